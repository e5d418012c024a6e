import { Injectable } from '@nestjs/common';
import { McpPromptRegistry } from '../registry/mcp-prompt.registry.js';
import { McpResourceRegistry } from '../registry/mcp-resource.registry.js';
import { McpToolRegistry } from '../registry/mcp-tool.registry.js';
import { McpResourceTemplateRegistry } from '../registry/mcp-resource-template.registry.js';
import { compileOutputSchema, compileSchema } from '../schema/index.js';
import { McpDefinitionError } from '../errors/mcp-bootstrap.errors.js';
import { INVALID_TOOL_NAME } from '../mcp.messages.js';
import { isValidToolName } from '../registry/tool-name.js';
import { toolHeaderParams } from '../registry/tool-header-params.js';
import type { McpPromptOptions } from '../interfaces/mcp-prompt-options.interface.js';
import type { McpCompleter } from '../interfaces/mcp-completion.interface.js';
import type { McpHandlerFn } from '../context/mcp-handler.types.js';
import { completerAsHandler } from '../completion/completer-call.js';
import type { McpCompanionFn } from './companion-callback.js';
import type { McpResourceOptions } from '../interfaces/mcp-resource-options.interface.js';
import type { McpToolOptions } from '../interfaces/mcp-tool-options.interface.js';
import { buildPromptDescriptor, buildToolDescriptor } from './mcp-descriptors.js';
import { buildTemplateEntry } from '../resources/template-entry.js';
import { buildResourceEntry } from '../resources/resource-entry.js';
import { McpExtensions } from '../extension/mcp-extensions.js';
import type { McpScannedProvider } from '../extension/mcp-extension.interface.js';
import { McpOptions, type McpOptionGroup } from '../mcp-option-groups.js';

/** The decorated method a declaration sits on: how to call it, and its companions (completers, `exists`). */
export interface McpDeclarationSite {
  handler(): McpHandlerFn;
  companion(role: string, run: McpCompanionFn): McpHandlerFn;
}

/**
 * Turns what the explorer finds into registry entries and registers them: each entry built once
 * (schemas compiled, descriptors written), through every plugged extension's declaration hooks,
 * and the resources extensions find on a provider class (`@McpApp`). Definition errors name
 * where the declaration is.
 */
@Injectable()
export class McpDeclarationsRegistrar {
  constructor(
    private readonly tools: McpToolRegistry,
    private readonly resources: McpResourceRegistry,
    private readonly templates: McpResourceTemplateRegistry,
    private readonly prompts: McpPromptRegistry,
    @McpOptions('limits') private readonly options: McpOptionGroup<'limits'>,
    private readonly extensions: McpExtensions,
  ) {}

  /** The resources the plugged extensions find on one provider class. */
  async addDiscovered(provider: McpScannedProvider): Promise<void> {
    for (const found of await this.extensions.discover(provider)) {
      const { uri, metadata, handler, source, requiredScopes } = found;
      this.resources.register({
        ...buildResourceEntry(uri, metadata, handler, source, this.extensions),
        requiredScopes,
      });
    }
  }

  /** A tool: its schemas compiled once, its descriptor, and what each extension makes of it. */
  async addTool(
    site: McpDeclarationSite,
    options: McpToolOptions,
    source: string,
    requiredScopes: readonly string[] | undefined,
  ) {
    if (!isValidToolName(options.name)) throw new McpDefinitionError(INVALID_TOOL_NAME(String(options.name), source));
    const input = await compileSchema(options.input, `${source} (input)`, {
      maxDepth: this.options.maxArgumentDepth,
    });
    const output = options.output ? await compileOutputSchema(options.output, `${source} (output)`) : undefined;
    const headers = toolHeaderParams(input.jsonSchema, options.headerParams, source);
    const declared = this.extensions.declareTool({
      options,
      descriptor: buildToolDescriptor(options, headers.schema, output),
      source,
    });
    this.tools.register({
      name: options.name,
      ...declared,
      input,
      output,
      handler: site.handler(),
      source,
      cache: options.cache,
      headerParams: headers.params,
      requiredScopes,
    });
  }

  /** An exact resource or a template, through each extension's declaration hooks. */
  addResource(
    site: McpDeclarationSite,
    options: McpResourceOptions,
    source: string,
    requiredScopes: readonly string[] | undefined,
  ) {
    const handler = site.handler();
    if (options.uriTemplate !== undefined) {
      const { uriTemplate, complete, exists, uri: _uri, ...metadata } = options;
      const callbacks = {
        completers: completersOf(site, Object.entries(complete ?? {})),
        exists: exists && site.companion('exists', exists as McpCompanionFn),
      };
      this.templates.register({
        ...buildTemplateEntry(uriTemplate, metadata, handler, source, this.extensions, callbacks),
        requiredScopes,
      });
      return;
    }
    const { uri, uriTemplate: _template, ...metadata } = options;
    this.resources.register({
      ...buildResourceEntry(uri ?? '', metadata, handler, source, this.extensions),
      requiredScopes,
    });
  }

  /** A prompt, with the completers of its arguments. */
  addPrompt(
    site: McpDeclarationSite,
    options: McpPromptOptions,
    source: string,
    requiredScopes: readonly string[] | undefined,
  ) {
    this.prompts.register({
      requiredScopes,
      name: options.name,
      descriptor: buildPromptDescriptor(options),
      arguments: options.arguments ?? [],
      description: options.description,
      handler: site.handler(),
      source,
      cache: options.cache,
      completers: completersOf(
        site,
        (options.arguments ?? []).flatMap(({ name, complete }) => (complete ? [[name, complete] as const] : [])),
      ),
    });
  }
}

/** Completers by name, each run as part of the method whose decorator declares it. */
function completersOf(site: McpDeclarationSite, declared: Iterable<readonly [string, McpCompleter]>) {
  const completers = new Map<string, McpHandlerFn>();
  for (const [name, complete] of declared)
    completers.set(name, site.companion(`complete:${name}`, completerAsHandler(complete)));
  return completers;
}
