import type { EventEmitter } from 'node:events';

/** Where a connection keeps the departure callbacks of its requests in flight. */
const WAITING = Symbol('nest-mcp.clientDepartureWaiting');

type WatchedSocket = EventEmitter & { destroyed?: boolean; [WAITING]?: Set<() => void> };

/** A connection watched for its client's departure (`onClientDeparture`), to stop watching it with. */
export type DepartureWatch = WatchedSocket;

/**
 * Calls `left` (never synchronously) once the connection an HTTP request came on closes (its
 * client left, or stopped the answer stream: HTTP/1.1 has no other way). Requests of other
 * transports (a WebSocket, stdio) have no such connection: their sessions end with their
 * connection. Returns the watch to hand `stopWatchingDeparture`; undefined when there is nothing
 * to watch (then there is nothing to stop).
 *
 * A connection gets one `close` listener for all its requests, added with its first one: a
 * keep-alive connection serves many requests one after the other, and adding and removing an
 * EventEmitter listener (with `once`'s wrapper) for each is measurable per-request work.
 */
export function onClientDeparture(request: unknown, left: () => void): DepartureWatch | undefined {
  const socket = (request as { socket?: unknown } | null | undefined)?.socket as WatchedSocket | undefined;
  if (!socket || typeof socket.once !== 'function' || typeof socket.off !== 'function') return undefined;
  if (socket.destroyed) {
    // Gone already: told after the caller is set up, as for a later departure.
    queueMicrotask(left);
    return socket;
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
  return socket;
}

/**
 * Stops watching for the departure `onClientDeparture` watches (`watch` is what it returned);
 * harmless twice, and after the connection closed.
 */
export function stopWatchingDeparture(watch: DepartureWatch, left: () => void): void {
  watch[WAITING]?.delete(left);
}
