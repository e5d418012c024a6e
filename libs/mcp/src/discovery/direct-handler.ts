import {
  EXCEPTION_FILTERS_METADATA,
  GUARDS_METADATA,
  INTERCEPTORS_METADATA,
  PIPES_METADATA,
  ROUTE_ARGS_METADATA,
} from '@nestjs/common/constants.js';
import type { ExternalContextCreator } from '@nestjs/core';
import type { ParamsFactory } from '@nestjs/core/helpers/external-context-creator.js';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host.js';
import { isObservable, lastValueFrom } from 'rxjs';
import type { McpHandlerFn } from '../context/mcp-handler.types.js';
import type { McpRequestContext } from '../context/mcp-request-context.js';
import { MCP_CONTEXT_TYPE } from '../mcp.constants.js';
import { isThenable } from '../model/is-object.js';

type Callback = (...args: unknown[]) => unknown;

/** What `ContextCreator` (guards, interceptors, pipes, filters) offers for one metadata key. */
interface EnhancerCreator {
  reflectClassMetadata(instance: object, metadataKey: string): unknown;
  reflectMethodMetadata(callback: Callback, metadataKey: string): unknown;
  config?: Record<string, unknown>;
}

/** The parts of Nest's `ExternalContextCreator` this file reads (its own fields, in Nest 12). */
interface ContextCreatorParts {
  guardsContextCreator?: EnhancerCreator;
  interceptorsContextCreator?: EnhancerCreator;
  pipesContextCreator?: EnhancerCreator;
  filtersContextCreator?: EnhancerCreator & {
    create(
      instance: object,
      callback: Callback,
      module: string | undefined,
    ): { next(error: unknown, host: unknown): unknown };
  };
  contextUtils?: { reflectCallbackMetadata(instance: object, methodName: string, metadataKey: string): unknown };
}

/**
 * The application's enhancers, global and request-scoped global (`app.useGlobalGuards`,
 * `APP_GUARD`, ...), of every kind, by the getters of Nest's `ApplicationConfig`.
 */
const GLOBAL_GETTERS = [
  'getGlobalGuards',
  'getGlobalInterceptors',
  'getGlobalPipes',
  'getGlobalFilters',
  'getGlobalRequestGuards',
  'getGlobalRequestInterceptors',
  'getGlobalRequestPipes',
  'getGlobalRequestFilters',
] as const;

const isNone = (value: unknown): boolean =>
  value === undefined || value === null || (Array.isArray(value) && value.length === 0);

/** One decorated parameter: where it goes and what `McpParamsFactory` is asked for. */
interface DirectParam {
  index: number;
  type: number;
  data: unknown;
}

/**
 * A call of `callback` on `instance` without `ExternalContextCreator`'s chain, for a method that
 * nothing enhances: no guard, interceptor, pipe or exception filter on the method, on its class,
 * or global (static or request-scoped), and no parameter pipe or custom parameter decorator.
 * Nest's chain would then only extract the parameters, call the method and resolve what it
 * returned, through several async functions per call; this does the same with at most one
 * promise. `undefined` when anything enhances the method, or when the context creator is not
 * shaped as this file expects: the caller keeps Nest's chain then.
 *
 * It is asked when the chain would be built (at startup), and sees what the chain would see:
 * Nest's context creators read the enhancers then too, so one added later (`app.useGlobalGuards`
 * after `app.init()`) applies to neither.
 *
 * Behaves as the chain does: the parameters come from the same params factory (`undefined` for a
 * parameter without a decorator; `(args, ctx)` as they are when the method has none); an
 * Observable (or a promise of one) is resolved to its last value; what the method throws or
 * rejects with goes through the exception handler Nest builds for a method without filters,
 * which logs it as Nest does and throws it again.
 */
export function directHandler(
  externalContextCreator: ExternalContextCreator,
  instance: object,
  callback: Callback,
  key: string,
  paramsFactory: ParamsFactory,
): McpHandlerFn | undefined {
  const parts = externalContextCreator as unknown as ContextCreatorParts;
  const creators: [EnhancerCreator | undefined, string][] = [
    [parts.guardsContextCreator, GUARDS_METADATA],
    [parts.interceptorsContextCreator, INTERCEPTORS_METADATA],
    [parts.pipesContextCreator, PIPES_METADATA],
    [parts.filtersContextCreator, EXCEPTION_FILTERS_METADATA],
  ];
  for (const [creator, metadataKey] of creators) {
    if (typeof creator?.reflectClassMetadata !== 'function' || typeof creator.reflectMethodMetadata !== 'function') {
      return undefined;
    }
    if (!isNone(creator.reflectClassMetadata(instance, metadataKey))) return undefined;
    if (!isNone(creator.reflectMethodMetadata(callback, metadataKey))) return undefined;
    const config = creator.config;
    if (typeof config !== 'object' || config === null) return undefined;
    for (const getter of GLOBAL_GETTERS) {
      const read = config[getter];
      if (typeof read !== 'function' || !isNone((read as () => unknown).call(config))) return undefined;
    }
  }
  const reflectParams = parts.contextUtils?.reflectCallbackMetadata;
  const filters = parts.filtersContextCreator;
  if (typeof reflectParams !== 'function' || typeof filters?.create !== 'function') return undefined;
  const params = paramsOf(reflectParams.call(parts.contextUtils, instance, key, ROUTE_ARGS_METADATA));
  if (params === undefined) return undefined;
  // With no filter, Nest's handler: logs what is not an `IntrinsicException` and throws it again.
  const exceptions = filters.create(instance, callback, undefined);
  if (typeof exceptions?.next !== 'function') return undefined;

  const argsLength = params.reduce((length, param) => Math.max(length, param.index + 1), 0);
  // The handler throws: the executor's throw rejects the promise with it.
  const fail = (error: unknown, args: unknown[]): Promise<unknown> =>
    new Promise((resolve) => {
      const host = new ExecutionContextHost(args);
      host.setType(MCP_CONTEXT_TYPE);
      resolve(exceptions.next(error, host));
    });
  const settle = (value: unknown, args: unknown[]): unknown =>
    isObservable(value) ? lastValueFrom(value).catch((error: unknown) => fail(error, args)) : value;

  return (args: unknown, ctx: McpRequestContext): Promise<unknown> => {
    const callArgs = [args, ctx];
    let value: unknown;
    try {
      if (params.length === 0) {
        value = callback.apply(instance, callArgs);
      } else {
        const values = new Array<unknown>(argsLength).fill(undefined);
        for (const { index, type, data } of params) {
          values[index] = paramsFactory.exchangeKeyForValue(type, data as never, callArgs);
        }
        value = callback.apply(instance, values);
      }
    } catch (error) {
      return fail(error, callArgs);
    }
    if (isThenable(value)) {
      return Promise.resolve(value).then(
        (resolved) => settle(resolved, callArgs),
        (error: unknown) => fail(error, callArgs),
      );
    }
    return isObservable(value) ? (settle(value, callArgs) as Promise<unknown>) : Promise.resolve(value);
  };
}

/**
 * The method's decorated parameters, from its `ROUTE_ARGS_METADATA` (keys `type:index`), or
 * `undefined` when one has pipes or is a custom decorator (`createParamDecorator`): those keep
 * Nest's chain, which runs the pipes and awaits what a custom factory returns.
 */
function paramsOf(metadata: unknown): DirectParam[] | undefined {
  if (metadata === undefined || metadata === null) return [];
  if (typeof metadata !== 'object') return undefined;
  const params: DirectParam[] = [];
  for (const [metadataKey, entry] of Object.entries(metadata as Record<string, unknown>)) {
    const { index, data, pipes, factory } = (entry ?? {}) as {
      index?: unknown;
      data?: unknown;
      pipes?: unknown;
      factory?: unknown;
    };
    const type = Number(metadataKey.split(':')[0]);
    if (factory !== undefined || !Number.isInteger(type) || typeof index !== 'number' || !isNone(pipes)) {
      return undefined;
    }
    params.push({ index, type, data });
  }
  return params;
}
