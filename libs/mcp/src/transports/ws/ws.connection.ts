import type { WebSocket } from 'ws';
import type { McpConnection } from '../../backend/mcp-session.store.js';
import { StreamBacklog } from '../connection/stream-backlog.js';

/** Close code sent when the session behind the socket ends (idle expiry, shutdown). */
export const WS_CLOSE_SESSION_ENDED = 1001;
/** Close code for a peer that cannot keep up with its messages (RFC 6455 "try again later"). */
export const WS_CLOSE_SLOW_CONSUMER = 1013;

/**
 * A WebSocket as an `McpConnection`: one JSON-RPC message per text frame. It is the only way
 * anything is written to the socket, answers and notifications alike, so the send-buffer cap
 * holds for all of them: a peer that stops reading is closed once its backlog passes it by more
 * than one message (see {@link StreamBacklog}). The check comes before the write, so a peer
 * that is cut off is not sent the message that would have taken it over.
 */
export class WsConnection implements McpConnection {
  private readonly backlog: StreamBacklog;

  constructor(
    private readonly socket: WebSocket,
    maxBufferedBytes: number,
  ) {
    this.backlog = new StreamBacklog(maxBufferedBytes);
  }

  send(json: string): boolean {
    if (this.socket.readyState !== this.socket.OPEN) return false;
    if (!this.backlog.admits(this.socket.bufferedAmount + json.length, json.length)) {
      this.socket.close(WS_CLOSE_SLOW_CONSUMER, 'Too many undelivered messages');
      return false;
    }
    this.socket.send(json);
    return true;
  }

  close(): void {
    if (this.socket.readyState === this.socket.OPEN || this.socket.readyState === this.socket.CONNECTING) {
      this.socket.close(WS_CLOSE_SESSION_ENDED, 'Session ended');
    }
  }
}
