import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper.js';
import { McpHandlerFactory } from './mcp-handler.factory.js';
import { assertValidIcons } from '../registry/icon-rules.js';
import { McpToolHooks } from '../hooks/mcp-tool-hooks.js';
import type { McpToolHookHandler } from '../hooks/mcp-tool-hook.interface.js';
import { McpMetadataAccessor } from './mcp-metadata.accessor.js';
import { requiredScopesOf } from '../auth/required-scopes.js';
import { McpDeclarationsRegistrar, type McpDeclarationSite } from './mcp-declarations.registrar.js';

/**
 * Finds `@McpTool`, `@McpResource` and `@McpPrompt` methods on every provider and controller
 * once, at startup, and hands each to the registrar (`McpDeclarationsRegistrar`), which builds
 * and registers it through the plugged extensions, and finds their class decorators (`@McpApp`).
 * Definition errors fail `app.init()`.
 */
@Injectable()
export class McpExplorer implements OnModuleInit {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly accessor: McpMetadataAccessor,
    private readonly handlerFactory: McpHandlerFactory,
    private readonly hooks: McpToolHooks,
    private readonly declarations: McpDeclarationsRegistrar,
  ) {}

  async onModuleInit(): Promise<void> {
    const wrappers = [...this.discovery.getProviders(), ...this.discovery.getControllers()];
    for (const wrapper of wrappers) {
      const { instance } = wrapper;
      if (!instance || typeof instance !== 'object' || wrapper.isAlias) continue;
      const prototype = Object.getPrototypeOf(instance) as Record<string, unknown> | null;
      if (!prototype) continue;
      if (this.accessor.isToolHook(prototype.constructor)) this.hooks.add(instance as McpToolHookHandler);
      await this.declarations.addDiscovered({ classRef: prototype.constructor, instance });
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
    const site: McpDeclarationSite = {
      handler: () => this.handlerFactory.create(wrapper, methodName),
      companion: (role, run) => this.handlerFactory.createCompanion(wrapper, methodName, role, run),
    };
    if (tool) await this.declarations.addTool(site, tool, source, scopes);
    if (resource) this.declarations.addResource(site, resource, source, scopes);
    if (prompt) this.declarations.addPrompt(site, prompt, source, scopes);
  }
}
