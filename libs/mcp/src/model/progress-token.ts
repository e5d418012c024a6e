/**
 * The progress token a request's `_meta` carries, if it is one (a string or a finite number, as
 * MCP defines it): without one, a handler's progress goes nowhere.
 */
export const progressTokenOf = (meta: Record<string, unknown> | undefined): string | number | undefined => {
  const token = meta?.progressToken;
  return typeof token === 'string' || (typeof token === 'number' && Number.isFinite(token)) ? token : undefined;
};
