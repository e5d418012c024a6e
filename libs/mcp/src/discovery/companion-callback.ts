import type { McpRequestContext } from '../context/mcp-request-context.js';

/** Code declared in a handler's decorator (a completer, a template's `exists`), called on its provider. */
export type McpCompanionFn = (this: unknown, args: unknown, ctx: McpRequestContext) => unknown;

/**
 * The callback through which `run` executes as a companion of `method` (the prompt or template
 * method whose decorator declared it), for `ExternalContextCreator` to call on the provider.
 *
 * Its prototype is `method`: Nest reads guards, interceptors and filters (and `Reflector` reads
 * `@SetMetadata`) with `Reflect.getMetadata`, which follows the prototype chain, so the companion
 * is enhanced exactly like its method, without copies of metadata that could drift. It takes the
 * method's name too, which is what `getHandler().name` shows.
 */
export function companionCallback(
  method: (...args: unknown[]) => unknown,
  run: McpCompanionFn,
): (...args: unknown[]) => unknown {
  const callback = function (this: unknown, args: unknown, ctx: McpRequestContext) {
    return run.call(this, args, ctx);
  };
  Object.setPrototypeOf(callback, method);
  Object.defineProperty(callback, 'name', { value: method.name });
  return callback as (...args: unknown[]) => unknown;
}
