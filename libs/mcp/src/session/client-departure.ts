import type { EventEmitter } from 'node:events';

/** Where a connection keeps the departure callbacks of its requests in flight. */
const WAITING = Symbol('nest-mcp.clientDepartureWaiting');

type WatchedSocket = EventEmitter & { destroyed?: boolean; [WAITING]?: Set<() => void> };

/**
 * Calls `left` (never synchronously) once the connection an HTTP request came on closes (its
 * client left, or stopped the answer stream: HTTP/1.1 has no other way). Requests of other
 * transports (a WebSocket, stdio) have no such connection: their sessions end with their
 * connection. False when there is nothing to watch; then `stopWatchingDeparture` need not be
 * called.
 *
 * A connection gets one `close` listener for all its requests, added with its first one: a
 * keep-alive connection serves many requests one after the other, and adding and removing an
 * EventEmitter listener (with `once`'s wrapper) for each is measurable per-request work.
 */
export function onClientDeparture(request: unknown, left: () => void): boolean {
  const socket = socketOf(request);
  if (!socket) return false;
  if (socket.destroyed) {
    // Gone already: told after the caller is set up, as for a later departure.
    queueMicrotask(left);
    return true;
  }
  let waiting = socket[WAITING];
  if (!waiting) {
    const callbacks = new Set<() => void>();
    waiting = socket[WAITING] = callbacks;
    socket.once('close', () => {
      socket[WAITING] = undefined;
      for (const callback of callbacks) callback();
      callbacks.clear();
    });
  }
  waiting.add(left);
  return true;
}

/** Stops watching for the departure `onClientDeparture(request, left)` watches; harmless twice. */
export function stopWatchingDeparture(request: unknown, left: () => void): void {
  socketOf(request)?.[WAITING]?.delete(left);
}

function socketOf(request: unknown): WatchedSocket | undefined {
  const socket = (request as { socket?: unknown } | null | undefined)?.socket as WatchedSocket | undefined;
  return socket && typeof socket.once === 'function' && typeof socket.off === 'function' ? socket : undefined;
}
