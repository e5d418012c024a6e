import type { EventEmitter } from 'node:events';

/**
 * Calls `left` (never synchronously) once the connection an HTTP request came on closes (its
 * client left, or stopped the answer stream: HTTP/1.1 has no other way); returns the function
 * that stops watching.
 * Requests of other transports (a WebSocket, stdio) have no such connection: their sessions
 * end with their connection. Undefined when there is nothing to watch.
 */
export function onClientDeparture(request: unknown, left: () => void): (() => void) | undefined {
  const socket = (request as { socket?: unknown } | null | undefined)?.socket as
    (EventEmitter & { destroyed?: boolean }) | undefined;
  if (!socket || typeof socket.once !== 'function' || typeof socket.off !== 'function') return undefined;
  if (socket.destroyed) {
    // Gone already: told after the caller has its stop function, as for a later departure.
    queueMicrotask(left);
    return () => undefined;
  }
  socket.once('close', left);
  return () => void socket.off('close', left);
}
