import type { McpConnection } from '../../session/mcp-session.interface.js';
import type { SseStream } from './sse.stream.js';

/** A session's standalone GET stream as an `McpConnection`. */
export class SseConnection implements McpConnection {
  constructor(private readonly stream: SseStream) {}

  send(message: object, eventId?: string): boolean {
    return this.stream.send(message, eventId);
  }

  sendJson(json: string, eventId?: string): boolean {
    return this.stream.sendJson(json, eventId);
  }

  close(): void {
    this.stream.close();
  }
}
