import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper.js';
import { McpPromptRegistry } from '../registry/mcp-prompt.registry.js';
import { McpResourceRegistry, buildResourceDescriptor } from '../registry/mcp-resource.registry.js';
import { McpToolRegistry } from '../registry/mcp-tool.registry.js';
import { compileOutputSchema, compileSchema } from '../schema/index.js';
import { McpDefinitionError } from '../errors/mcp-bootstrap.errors.js';
import { INVALID_TOOL_NAME } from '../mcp.messages.js';
import { isValidToolName } from '../registry/tool-name.js';
import type { McpPromptOptions } from '../interfaces/mcp-prompt-options.interface.js';
import type { McpCompleter } from '../interfaces/mcp-completion.interface.js';
import type { McpResourceOptions } from '../interfaces/mcp-resource-options.interface.js';
import type { McpToolOptions } from '../interfaces/mcp-tool-options.interface.js';
import { buildPromptDescriptor, buildToolDescriptor } from './mcp-descriptors.js';
import { McpHandlerFactory } from './mcp-handler.factory.js';
import { assertValidIcons } from '../registry/icon-rules.js';
import { McpToolHooks } from '../hooks/mcp-tool-hooks.js';
import { McpResourceTemplateRegistry } from '../registry/mcp-resource-template.registry.js';
import { buildTemplateEntry } from '../resources/template-entry.js';
import type { McpToolHookHandler } from '../hooks/mcp-tool-hook.interface.js';
import { MCP_MODULE_OPTIONS } from '../mcp.module-definition.js';
import { validateMcpOptions } from '../mcp-options.resolver.js';
import type { McpModuleOptions } from '../interfaces/mcp-module-options.interface.js';
import { McpMetadataAccessor } from './mcp-metadata.accessor.js';

/**
 * Finds `@McpTool`, `@McpResource` and `@McpPrompt` methods on every provider and controller
 * once, at startup, and fills the registries. Definition errors fail `app.init()`.
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
    @Inject(MCP_MODULE_OPTIONS) private readonly options: McpModuleOptions,
    private readonly hooks: McpToolHooks,
    private readonly templates: McpResourceTemplateRegistry,
  ) {}

  async onModuleInit(): Promise<void> {
    const problems = validateMcpOptions(this.options);
    if (problems.length > 0) throw new McpDefinitionError(problems.join('; '));
    assertValidIcons(this.options.serverInfo.icons, 'serverInfo');
    const wrappers = [...this.discovery.getProviders(), ...this.discovery.getControllers()];
    for (const wrapper of wrappers) {
      const { instance } = wrapper;
      if (!instance || typeof instance !== 'object' || wrapper.isAlias) continue;
      const prototype = Object.getPrototypeOf(instance) as Record<string, unknown> | null;
      if (!prototype) continue;
      if (this.accessor.isToolHook(prototype.constructor)) this.hooks.add(instance as McpToolHookHandler);
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
    if (tool) await this.addTool(wrapper, methodName, tool, source);
    if (resource) this.addResource(wrapper, methodName, resource, source);
    if (prompt) this.addPrompt(wrapper, methodName, prompt, source);
  }

  private async addTool(wrapper: InstanceWrapper, methodName: string, options: McpToolOptions, source: string) {
    if (!isValidToolName(options.name)) throw new McpDefinitionError(INVALID_TOOL_NAME(String(options.name), source));
    const input = await compileSchema(options.input, `${source} (input)`);
    const output = options.output ? await compileOutputSchema(options.output, `${source} (output)`) : undefined;
    this.tools.register({
      name: options.name,
      descriptor: buildToolDescriptor(options, input, output),
      input,
      output,
      handler: this.handlerFactory.create(wrapper, methodName),
      source,
    });
  }

  private addResource(wrapper: InstanceWrapper, methodName: string, options: McpResourceOptions, source: string) {
    const handler = this.handlerFactory.create(wrapper, methodName);
    if (options.uriTemplate !== undefined) {
      const { uriTemplate, complete, uri: _uri, ...metadata } = options;
      this.templates.register(
        buildTemplateEntry(
          uriTemplate,
          metadata,
          handler,
          source,
          bindVariableCompleters(wrapper.instance as object, complete),
        ),
      );
      return;
    }
    const { uri, uriTemplate: _template, ...metadata } = options;
    this.resources.register({
      uri: uri ?? '',
      descriptor: buildResourceDescriptor(uri ?? '', metadata),
      mimeType: metadata.mimeType,
      handler,
      source,
    });
  }

  private addPrompt(wrapper: InstanceWrapper, methodName: string, options: McpPromptOptions, source: string) {
    this.prompts.register({
      name: options.name,
      descriptor: buildPromptDescriptor(options),
      arguments: options.arguments ?? [],
      description: options.description,
      handler: this.handlerFactory.create(wrapper, methodName),
      source,
      completers: bindCompleters(wrapper.instance as object, options.arguments),
    });
  }
}

/** Completers of template variables, with their provider as `this`. */
function bindVariableCompleters(instance: object, complete: Record<string, McpCompleter> | undefined) {
  return new Map<string, McpCompleter>(Object.entries(complete ?? {}).map(([name, fn]) => [name, fn.bind(instance)]));
}

/** Completers of prompt arguments, with their provider as `this`. */
function bindCompleters(instance: object, args: McpPromptOptions['arguments']): Map<string, McpCompleter> {
  const completers = new Map<string, McpCompleter>();
  for (const argument of args ?? []) {
    if (argument.complete) completers.set(argument.name, argument.complete.bind(instance));
  }
  return completers;
}
