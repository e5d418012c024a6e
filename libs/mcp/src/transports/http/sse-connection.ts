import type { OutgoingHttpHeaders } from 'node:http';
import type { McpConnection } from '../../backend/mcp-session.store.js';
import type { SseStream } from './sse.stream.js';

/**
 * An SSE response as an `McpConnection`. The headers are written on the first message (or by
 * `open()`), so a stream that turns out to be refused (its session ended meanwhile) can still be
 * answered with an HTTP error.
 */
export class SseConnection implements McpConnection {
  constructor(
    readonly stream: SseStream,
    private headers?: OutgoingHttpHeaders,
  ) {}

  /** Writes the headers if nothing was written yet; false when the stream is closed. */
  open(): boolean {
    if (this.stream.opened) return true;
    const headers = this.headers;
    // Sent with the status line: not kept as long as the stream.
    this.headers = undefined;
    return this.stream.open(headers);
  }

  send(json: string, eventId?: string): boolean {
    return this.open() && this.stream.send(json, eventId);
  }

  close(retryMs?: number): void {
    this.stream.close(retryMs);
  }
}
