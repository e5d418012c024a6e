import type { McpPromptOptions } from '../interfaces/mcp-prompt-options.interface.js';
import type { McpToolOptions } from '../interfaces/mcp-tool-options.interface.js';
import type { CompiledSchema, JsonSchemaObject } from '../schema/schema.types.js';

/** Copies only the defined optional fields, so the wire form carries no `undefined`s. */
const definedFields = <T extends object>(source: T, keys: readonly (keyof T)[]): Record<string, unknown> => {
  const out: Record<string, unknown> = {};
  for (const key of keys) if (source[key] !== undefined) out[key as string] = source[key];
  return out;
};

/** The `tools/list` item of a tool. */
export function buildToolDescriptor(
  options: McpToolOptions,
  inputSchema: JsonSchemaObject,
  output: CompiledSchema | undefined,
): Record<string, unknown> {
  return {
    name: options.name,
    ...definedFields(options, ['title', 'description']),
    inputSchema,
    ...(output ? { outputSchema: output.jsonSchema } : {}),
    ...definedFields(options, ['annotations', 'icons', '_meta']),
  };
}

/** The `prompts/list` item of a prompt. */
export function buildPromptDescriptor(options: McpPromptOptions): Record<string, unknown> {
  return {
    name: options.name,
    ...definedFields(options, ['title', 'description']),
    ...(options.arguments?.length ? { arguments: options.arguments.map(({ complete: _complete, ...a }) => a) } : {}),
    ...definedFields(options, ['icons', '_meta']),
  };
}
