import { Injectable } from '@nestjs/common';
import type { McpRequestContext } from '../../context/mcp-request-context.js';
import { McpInvalidParamsException } from '../../errors/mcp-protocol.exceptions.js';
import type { McpCompletionArgs, McpCompletionResult } from '../../interfaces/mcp-completion.interface.js';
import type { McpHandlerFn } from '../../context/mcp-handler.types.js';
import { McpPromptRegistry } from '../../registry/mcp-prompt.registry.js';
import { McpResourceTemplateRegistry } from '../../registry/mcp-resource-template.registry.js';
import { optionalObject, requireString } from './params.js';
import type { McpMethodFn, McpMethodGroup } from '../../extension/mcp-method.types.js';
import { McpAccessPolicy } from '../../auth/mcp-access.policy.js';
import { McpMethods } from './mcp-methods.js';

/** The most values one completion answer may carry (MCP). */
const MAX_VALUES = 100;

/** `completion/complete` for prompt arguments and resource-template variables. */
@Injectable()
export class CompletionHandler implements McpMethodGroup {
  constructor(
    private readonly prompts: McpPromptRegistry,
    private readonly templates: McpResourceTemplateRegistry,
    private readonly access: McpAccessPolicy,
    methods: McpMethods,
  ) {
    methods.add(this);
  }

  methods(): Record<string, McpMethodFn> {
    return { 'completion/complete': (params, ctx) => this.complete(params, ctx) };
  }

  capability(): [string, Record<string, unknown>] | undefined {
    return this.available() ? ['completions', {}] : undefined;
  }

  available(): boolean {
    return this.prompts.hasCompleters || this.templates.hasCompleters;
  }

  private async complete(params: Record<string, unknown>, ctx: McpRequestContext) {
    const ref = optionalObject(params, 'ref');
    const argument = optionalObject(params, 'argument');
    const name = requireString(argument, 'name');
    const value = typeof argument.value === 'string' ? argument.value : '';
    const context = optionalObject(params, 'context');
    const chosen = stringValues(optionalObject(context, 'arguments'));
    const completer = this.completerFor(ref, name, ctx);
    const args: McpCompletionArgs = { name, value, arguments: chosen };
    const result = completer ? ((await completer(args, ctx)) as McpCompletionResult) : [];
    return { completion: toCompletion(result) };
  }

  /** The completer of a prompt argument or template variable; completing needs the entry's scopes. */
  private completerFor(
    ref: Record<string, unknown>,
    argument: string,
    ctx: McpRequestContext,
  ): McpHandlerFn | undefined {
    if (ref.type === 'ref/prompt') {
      const name = requireString(ref, 'name');
      const prompt = this.prompts.get(name);
      if (!prompt) throw new McpInvalidParamsException(`Unknown prompt '${name}'`);
      this.access.assert(prompt, ctx);
      return prompt.completers?.get(argument);
    }
    if (ref.type === 'ref/resource') {
      const uri = requireString(ref, 'uri');
      const template = this.templates.get(uri);
      if (!template) throw new McpInvalidParamsException(`Unknown resource template '${uri}'`);
      this.access.assert(template, ctx);
      return template.completers?.get(argument);
    }
    throw new McpInvalidParamsException("Parameter 'ref.type' must be 'ref/prompt' or 'ref/resource'");
  }
}

function toCompletion(result: McpCompletionResult) {
  const { values, total, hasMore } = Array.isArray(result)
    ? { values: result, total: undefined, hasMore: undefined }
    : result;
  const strings = values.filter((entry): entry is string => typeof entry === 'string');
  const kept = strings.slice(0, MAX_VALUES);
  const overall = total ?? strings.length;
  return { values: kept, total: overall, hasMore: hasMore ?? overall > kept.length };
}

const stringValues = (record: Record<string, unknown>): Record<string, string> =>
  Object.fromEntries(Object.entries(record).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
