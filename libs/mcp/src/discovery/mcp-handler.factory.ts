import { Injectable } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { ContextIdFactory, ExternalContextCreator, ModuleRef } from '@nestjs/core';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper.js';
import { MCP_CONTEXT_TYPE } from '../mcp.constants.js';
import type { McpRequestContext } from '../context/mcp-request-context.js';
import type { McpHandlerFn } from '../context/mcp-handler.types.js';
import { McpParamsFactory } from './mcp-params.factory.js';
import { companionCallback, type McpCompanionFn } from './companion-callback.js';
import { directHandler } from './direct-handler.js';

type Callback = (...args: unknown[]) => unknown;

/**
 * Turns a discovered method into a callable that runs through Nest's guards, interceptors,
 * pipes and exception filters (the `ExternalContextCreator` recipe of @nestjs/graphql). A
 * method of a static provider that nothing enhances is called directly instead
 * (`directHandler`): the same parameters, result and errors, without the chain's async layers.
 */
@Injectable()
export class McpHandlerFactory {
  private readonly paramsFactory = new McpParamsFactory();

  constructor(
    private readonly externalContextCreator: ExternalContextCreator,
    private readonly moduleRef: ModuleRef,
  ) {}

  create(wrapper: InstanceWrapper, methodName: string): McpHandlerFn {
    // The prototype function, never a bound copy: enhancer metadata is stored on it.
    return this.build(wrapper, this.methodOf(wrapper, methodName), methodName);
  }

  /**
   * A callable for `run`, code declared in the decorator of `methodName` (a completer, a
   * template's `exists`): it runs through that method's guards, interceptors and filters, and the
   * global ones, with the provider as `this` (a fresh instance per request when it is
   * request-scoped). Pipes do not apply: `run` has no decorated parameters.
   * @param role Tells apart the companions of one method (`complete:id`, `exists`).
   */
  createCompanion(wrapper: InstanceWrapper, methodName: string, role: string, run: McpCompanionFn): McpHandlerFn {
    // A key no method has: ExternalContextCreator reads parameter metadata and caches by it, and
    // the method's own parameters (`@McpArgs('text')`) must not rewrite the companion's arguments.
    const key = `${methodName}:${role}`;
    return this.build(wrapper, companionCallback(this.methodOf(wrapper, methodName), run), key);
  }

  private methodOf(wrapper: InstanceWrapper, methodName: string): Callback {
    return Object.getPrototypeOf(wrapper.instance)[methodName] as Callback;
  }

  private build(wrapper: InstanceWrapper, callback: Callback, key: string): McpHandlerFn {
    if (wrapper.isDependencyTreeStatic()) {
      const instance = wrapper.instance as object;
      const direct = directHandler(this.externalContextCreator, instance, callback, key, this.paramsFactory);
      if (direct) return direct;
      const handler = this.wrap(instance, callback, key);
      return (args, ctx) => handler(args, ctx);
    }
    return async (args, ctx) => {
      // A fresh context per MCP request (not per HTTP request: a batch holds several).
      const contextId = ContextIdFactory.getByRequest(ctx as unknown as Record<string, unknown>);
      this.moduleRef.registerRequestByContextId(this.requestOf(ctx), contextId);
      const scoped = await this.moduleRef.resolve<unknown, Record<string, unknown>>(wrapper.token, contextId, {
        strict: false,
      });
      return this.wrap(scoped, callback, key, contextId, wrapper.id)(args, ctx);
    };
  }

  private wrap(
    instance: object,
    callback: Callback,
    key: string,
    contextId?: ReturnType<typeof ContextIdFactory.create>,
    inquirerId?: string,
  ): (args: unknown, ctx: McpRequestContext) => Promise<unknown> {
    return this.externalContextCreator.create(
      instance,
      callback,
      key,
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
