import type { Writable } from 'node:stream';
import type { McpConnection } from '../../backend/mcp-session.store.js';
import { McpLogger } from '../../logging/mcp-logger.js';

/**
 * stdout as an `McpConnection`: one JSON-RPC message per line, nothing else, and the only way
 * anything is written there.
 *
 * stdout belongs to the process and cannot be closed for a client that stops reading, so it is
 * bounded instead: the transport stops reading stdin while the backlog passes `maxBufferedBytes`
 * (`congested`), so no new request starts; a notification (or other message the server starts
 * itself, `send`) that finds the backlog over twice the cap is dropped, with one warning per
 * episode. Answers to the client's requests (`answer`) are never dropped: the client waits for
 * each of them, and there are at most `maxInFlightRequests` of them once reading stopped.
 */
export class StdioConnection implements McpConnection {
  private readonly logger = new McpLogger('McpStdio');
  private dropping = false;

  constructor(
    private readonly output: Writable,
    private readonly maxBufferedBytes: number,
  ) {}

  /** True while the unread backlog is over the cap: stop taking new work until 'drain'. */
  get congested(): boolean {
    return this.output.writableLength > this.maxBufferedBytes;
  }

  send(json: string): boolean {
    if (this.output.destroyed || this.output.writableEnded) return false;
    if (this.output.writableLength > 2 * this.maxBufferedBytes) {
      if (!this.dropping) this.logger.warn('The stdio client is not reading its output: dropping messages');
      this.dropping = true;
      return true;
    }
    this.dropping = false;
    // JSON.stringify never emits a raw newline, so one message is always one line.
    this.output.write(`${json}\n`);
    return true;
  }

  /** Writes the answer to a request of the client: never dropped (see the class comment). */
  answer(json: string): boolean {
    if (this.output.destroyed || this.output.writableEnded) return false;
    this.output.write(`${json}\n`);
    return true;
  }

  close(): void {
    // stdout belongs to the process; the session ending does not close it.
  }
}
