import { executionAsyncResource } from 'node:async_hooks';

/**
 * One of Node's tick objects, kept for the life of the process (see {@link keepTickShape}).
 * Never read: holding it is the point.
 */
let keptTick: object | undefined;

/**
 * Keeps V8's feedback on Node's `process.nextTick` monomorphic, so every tick of the process
 * (several per HTTP request: a body's `resume`, each write's completion, the ends of both
 * streams) is built on V8's fast path.
 *
 * Node builds each tick as an object literal with two computed symbol keys. When a garbage
 * collection finds no tick alive, the literal's hidden class dies, and the next tick makes a new
 * one; after four of those, V8's feedback for the literal's properties turns megamorphic, and
 * from then on every tick defines its properties in the runtime: on Node 20 about 23,000 CPU
 * instructions more per request (docs/benchmarks.md, "Instructions per request on Fastify, and a
 * state of Node's `process.nextTick`"). When that happens depends on the collections a process
 * went through, not on its code: a Fastify server often reached it during start-up. One tick
 * object held for good keeps its hidden class alive, so the feedback stays on it. The object
 * is the tick's own resource (`executionAsyncResource()` inside the tick's callback), a few
 * dozen bytes. Called once, as early as the module loads; later calls do nothing.
 */
export function keepTickShape(): void {
  if (keptTick !== undefined) return;
  keptTick = {};
  process.nextTick(() => {
    keptTick = executionAsyncResource();
  });
}
