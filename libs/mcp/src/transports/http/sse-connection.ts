import { randomBytes } from 'node:crypto';
import type { McpConnection } from '../../session/mcp-session.interface.js';
import type { SseStream } from './sse.stream.js';

/** A session's standalone GET stream as an `McpConnection`. */
export class SseConnection implements McpConnection {
  constructor(private readonly stream: SseStream) {}

  send(message: object, eventId?: string): boolean {
    return this.stream.send(message, eventId);
  }

  close(): void {
    this.stream.close();
  }
}

/**
 * The SSE answer of one POST. Its event ids are `p:<stream>:<n>`, so they never collide with
 * the session's GET stream ids (`g:…`) or with another POST's.
 */
export class PostSseWriter {
  private readonly streamId = randomBytes(6).toString('base64url');
  private sequence = 0;

  constructor(private readonly stream: SseStream) {}

  send(message: object): boolean {
    this.sequence += 1;
    return this.stream.send(message, `p:${this.streamId}:${this.sequence}`);
  }

  close(): void {
    this.stream.close();
  }
}
