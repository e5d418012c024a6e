import { Injectable } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { ContextIdFactory, ExternalContextCreator, ModuleRef } from '@nestjs/core';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper.js';
import { MCP_CONTEXT_TYPE } from '../mcp.constants.js';
import type { McpRequestContext } from '../context/mcp-request-context.js';
import type { McpHandlerFn } from '../registry/mcp-handler.types.js';
import { McpParamsFactory } from './mcp-params.factory.js';

/**
 * Turns a discovered method into a callable that runs through Nest's guards, interceptors,
 * pipes and exception filters (the `ExternalContextCreator` recipe of @nestjs/graphql).
 */
@Injectable()
export class McpHandlerFactory {
  private readonly paramsFactory = new McpParamsFactory();

  constructor(
    private readonly externalContextCreator: ExternalContextCreator,
    private readonly moduleRef: ModuleRef,
  ) {}

  create(wrapper: InstanceWrapper, methodName: string): McpHandlerFn {
    const instance = wrapper.instance as Record<string, unknown>;
    // The prototype function, never a bound copy: enhancer metadata is stored on it.
    const callback = Object.getPrototypeOf(instance)[methodName] as (...args: unknown[]) => unknown;

    if (wrapper.isDependencyTreeStatic()) {
      const handler = this.wrap(instance, callback, methodName);
      return (args, ctx) => handler(args, ctx);
    }
    return async (args, ctx) => {
      // A fresh context per MCP request (not per HTTP request: a batch holds several).
      const contextId = ContextIdFactory.getByRequest(ctx as unknown as Record<string, unknown>);
      this.moduleRef.registerRequestByContextId(this.requestOf(ctx), contextId);
      const scoped = await this.moduleRef.resolve<unknown, Record<string, unknown>>(wrapper.token, contextId, {
        strict: false,
      });
      return this.wrap(scoped, callback, methodName, contextId, wrapper.id)(args, ctx);
    };
  }

  private wrap(
    instance: object,
    callback: (...args: unknown[]) => unknown,
    methodName: string,
    contextId?: ReturnType<typeof ContextIdFactory.create>,
    inquirerId?: string,
  ): (args: unknown, ctx: McpRequestContext) => Promise<unknown> {
    return this.externalContextCreator.create(
      instance,
      callback,
      methodName,
      ROUTE_ARGS_METADATA,
      this.paramsFactory,
      contextId,
      inquirerId,
      undefined,
      MCP_CONTEXT_TYPE,
    );
  }

  /** What `@Inject(REQUEST)` resolves to: the raw transport request when there is one. */
  private requestOf(ctx: McpRequestContext): object {
    return typeof ctx.request === 'object' && ctx.request !== null ? ctx.request : ctx;
  }
}
