/** Whether `value` is a JSON object: an object that is neither `null` nor an array. */
export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Whether `value` is a promise of any make (`then` is a function): what `await` would wait on.
 * Where a seam lets an answer come at once or later, this, not `instanceof Promise`, tells them
 * apart, so a store built on another promise library is still waited on.
 */
export const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  (typeof value === 'object' || typeof value === 'function') &&
  value !== null &&
  typeof (value as { then?: unknown }).then === 'function';
