import type { McpConnection } from '../../session/mcp-session.interface.js';
import type { SseStream } from './sse.stream.js';

/**
 * A session's standalone GET stream as an `McpConnection`. Event ids are `g:<n>`: unique within
 * the session and naming the stream they belong to (DECISIONS D5).
 */
export class SseConnection implements McpConnection {
  private sequence = 0;

  constructor(private readonly stream: SseStream) {}

  send(message: object): boolean {
    this.sequence += 1;
    return this.stream.send(message, `g:${this.sequence}`);
  }

  close(): void {
    this.stream.close();
  }
}
