import type { McpPrincipal } from '../model/mcp-principal.js';

/** Longest delay a Node timer takes (about 24.8 days); later expiries are re-armed. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Calls `onExpired` when the principal's token expires: for connections authenticated once (a
 * WebSocket upgrade) that no later request re-authenticates. Nothing without a principal or an
 * expiry. The timer does not keep the process alive.
 */
export function closeWhenExpired(principal: McpPrincipal | undefined, onExpired: () => void): { cancel(): void } {
  const expiresAt = principal?.expiresAt;
  if (expiresAt === undefined) return { cancel: () => undefined };
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    const remaining = expiresAt * 1000 - Date.now();
    if (remaining <= 0) {
      onExpired();
      return;
    }
    timer = setTimeout(arm, Math.min(remaining, MAX_TIMER_MS));
    timer.unref();
  };
  arm();
  return { cancel: () => clearTimeout(timer) };
}
