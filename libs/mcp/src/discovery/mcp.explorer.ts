import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { MCP_RESOLVED_OPTIONS } from '../mcp.constants.js';
import type { ResolvedMcpOptions } from '../interfaces/mcp-module-options.interface.js';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper.js';
import { McpPromptRegistry } from '../registry/mcp-prompt.registry.js';
import { McpResourceRegistry } from '../registry/mcp-resource.registry.js';
import { McpToolRegistry } from '../registry/mcp-tool.registry.js';
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
import { McpHandlerFactory } from './mcp-handler.factory.js';
import { assertValidIcons } from '../registry/icon-rules.js';
import { McpToolHooks } from '../hooks/mcp-tool-hooks.js';
import { McpResourceTemplateRegistry } from '../registry/mcp-resource-template.registry.js';
import { buildTemplateEntry } from '../resources/template-entry.js';
import type { McpToolHookHandler } from '../hooks/mcp-tool-hook.interface.js';
import { McpMetadataAccessor } from './mcp-metadata.accessor.js';
import { requiredScopesOf } from '../auth/required-scopes.js';
import { buildResourceEntry } from '../resources/resource-entry.js';
import { McpExtensions } from '../extension/mcp-extensions.js';

/**
 * Finds `@McpTool`, `@McpResource` and `@McpPrompt` methods on every provider and controller
 * once, at startup, and fills the registries; each plugged extension checks and completes what
 * is declared, and finds its own class decorators (`@McpApp`). Definition errors fail
 * `app.init()`.
 */
@Injectable()
export class McpExplorer implements OnModuleInit {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly accessor: McpMetadataAccessor,
    private readonly handlerFactory: McpHandlerFactory,
    private readonly tools: McpToolRegistry,
    private readonly resources: McpResourceRegistry,
    private readonly prompts: McpPromptRegistry,
    @Inject(MCP_RESOLVED_OPTIONS) private readonly options: ResolvedMcpOptions,
    private readonly hooks: McpToolHooks,
    private readonly templates: McpResourceTemplateRegistry,
    private readonly extensions: McpExtensions,
  ) {}

  async onModuleInit(): Promise<void> {
    const wrappers = [...this.discovery.getProviders(), ...this.discovery.getControllers()];
    for (const wrapper of wrappers) {
      const { instance } = wrapper;
      if (!instance || typeof instance !== 'object' || wrapper.isAlias) continue;
      const prototype = Object.getPrototypeOf(instance) as Record<string, unknown> | null;
      if (!prototype) continue;
      if (this.accessor.isToolHook(prototype.constructor)) this.hooks.add(instance as McpToolHookHandler);
      for (const found of await this.extensions.discover({ classRef: prototype.constructor, instance })) {
        const { uri, metadata, handler, source, requiredScopes } = found;
        this.resources.register({
          ...buildResourceEntry(uri, metadata, handler, source, this.extensions),
          requiredScopes,
        });
      }
      for (const methodName of this.scanner.getAllMethodNames(prototype)) {
        await this.explore(wrapper, prototype[methodName], methodName);
      }
    }
  }

  private async explore(wrapper: InstanceWrapper, method: unknown, methodName: string): Promise<void> {
    const source = `${(wrapper.instance as object).constructor.name}.${methodName}`;
    const tool = this.accessor.getTool(method);
    const resource = this.accessor.getResource(method);
    const prompt = this.accessor.getPrompt(method);
    for (const declared of [tool, resource, prompt]) if (declared) assertValidIcons(declared.icons, source);
    if (!tool && !resource && !prompt) return;
    // @RequireScopes on the class and on the method (resource-server mode).
    const scopes = requiredScopesOf((wrapper.instance as object).constructor, method, source);
    if (tool) await this.addTool(wrapper, methodName, tool, source, scopes);
    if (resource) this.addResource(wrapper, methodName, resource, source, scopes);
    if (prompt) this.addPrompt(wrapper, methodName, prompt, source, scopes);
  }

  private async addTool(
    wrapper: InstanceWrapper,
    methodName: string,
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
      handler: this.handlerFactory.create(wrapper, methodName),
      source,
      cache: options.cache,
      headerParams: headers.params,
      requiredScopes,
      taskSupport: options.taskSupport,
    });
  }

  private addResource(
    wrapper: InstanceWrapper,
    methodName: string,
    options: McpResourceOptions,
    source: string,
    requiredScopes: readonly string[] | undefined,
  ) {
    const handler = this.handlerFactory.create(wrapper, methodName);
    if (options.uriTemplate !== undefined) {
      const { uriTemplate, complete, exists, uri: _uri, ...metadata } = options;
      const callbacks = {
        completers: this.completers(wrapper, methodName, Object.entries(complete ?? {})),
        exists: exists && this.handlerFactory.createCompanion(wrapper, methodName, 'exists', exists as McpCompanionFn),
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

  private addPrompt(
    wrapper: InstanceWrapper,
    methodName: string,
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
      handler: this.handlerFactory.create(wrapper, methodName),
      source,
      cache: options.cache,
      completers: this.completers(
        wrapper,
        methodName,
        (options.arguments ?? []).flatMap(({ name, complete }) => (complete ? [[name, complete] as const] : [])),
      ),
    });
  }

  /** Completers by name, each run as part of the method whose decorator declares it. */
  private completers(
    wrapper: InstanceWrapper,
    methodName: string,
    declared: Iterable<readonly [string, McpCompleter]>,
  ): Map<string, McpHandlerFn> {
    const completers = new Map<string, McpHandlerFn>();
    for (const [name, complete] of declared) {
      const role = `complete:${name}`;
      completers.set(
        name,
        this.handlerFactory.createCompanion(wrapper, methodName, role, completerAsHandler(complete)),
      );
    }
    return completers;
  }
}
