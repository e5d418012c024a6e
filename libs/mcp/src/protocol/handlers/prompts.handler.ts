import { Injectable } from '@nestjs/common';
import type { McpRequestContext } from '../../context/mcp-request-context.js';
import { McpInvalidParamsException } from '../../errors/mcp-protocol.exceptions.js';
import { McpPromptRegistry, type McpPromptEntry } from '../../registry/mcp-prompt.registry.js';
import { listResult } from './list-page.js';
import { optionalObject, requireString } from './params.js';
import type { McpMethodFn, McpMethodGroup } from '../../extension/mcp-method.types.js';
import { McpAccessPolicy } from '../../auth/mcp-access.policy.js';
import { McpMethods } from './mcp-methods.js';
import { McpOptions, type McpOptionGroup } from '../../mcp-option-groups.js';

/** `prompts/list` and `prompts/get`. */
@Injectable()
export class PromptsHandler implements McpMethodGroup {
  constructor(
    @McpOptions('server') private readonly options: McpOptionGroup<'server'>,
    private readonly prompts: McpPromptRegistry,
    private readonly access: McpAccessPolicy,
    methods: McpMethods,
  ) {
    methods.add(this);
  }

  methods(): Record<string, McpMethodFn> {
    return {
      'prompts/list': async (params, ctx) => this.list(params, ctx),
      'prompts/get': (params, ctx) => this.get(params, ctx),
    };
  }

  capability(): [string, Record<string, unknown>] | undefined {
    return this.prompts.size > 0 ? ['prompts', { listChanged: true }] : undefined;
  }

  available(): boolean {
    return this.prompts.size > 0;
  }

  private list(params: Record<string, unknown>, ctx: McpRequestContext) {
    const page = this.prompts.page(params.cursor, this.options.pageSize, this.access.visibleTo(ctx));
    return this.access.privateFor(listResult('prompts', page), ctx);
  }

  private async get(params: Record<string, unknown>, ctx: McpRequestContext) {
    const name = requireString(params, 'name');
    const prompt = this.prompts.get(name);
    if (!prompt) throw new McpInvalidParamsException(`Unknown prompt '${name}'`, { name });
    this.access.assert(prompt, ctx);
    const args = checkArguments(prompt, optionalObject(params, 'arguments'));
    return toPromptResult(prompt, await prompt.handler(args, ctx));
  }
}

/** Prompt arguments are strings; required ones must be present. Unknown ones are refused. */
function checkArguments(prompt: McpPromptEntry, args: Record<string, unknown>): Record<string, string> {
  const declared = prompt.argumentsByName!;
  for (const [name, value] of Object.entries(args)) {
    if (!declared.has(name))
      throw new McpInvalidParamsException(`Unknown argument '${name}' for prompt '${prompt.name}'`);
    if (typeof value !== 'string') {
      throw new McpInvalidParamsException(`Argument '${name}' of prompt '${prompt.name}' must be a string`);
    }
  }
  for (const argument of prompt.arguments) {
    if (argument.required && !Object.hasOwn(args, argument.name)) {
      throw new McpInvalidParamsException(`Missing required argument '${argument.name}' for prompt '${prompt.name}'`);
    }
  }
  return args as Record<string, string>;
}

/** A handler returns `{ messages }`, an array of messages, or a string (one user message). */
function toPromptResult(prompt: McpPromptEntry, value: unknown): Record<string, unknown> {
  const description = prompt.description !== undefined ? { description: prompt.description } : {};
  if (typeof value === 'string') {
    return { ...description, messages: [{ role: 'user', content: { type: 'text', text: value } }] };
  }
  if (Array.isArray(value)) return { ...description, messages: value };
  return { ...description, ...(value as Record<string, unknown>) };
}
