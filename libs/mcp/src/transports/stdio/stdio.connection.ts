import type { Writable } from 'node:stream';
import type { McpConnection } from '../../session/mcp-session.interface.js';

/** stdout as an `McpConnection`: one JSON-RPC message per line, nothing else. */
export class StdioConnection implements McpConnection {
  constructor(private readonly output: Writable) {}

  send(message: object): boolean {
    if (this.output.destroyed || this.output.writableEnded) return false;
    // JSON.stringify never emits a raw newline, so one message is always one line.
    this.output.write(`${JSON.stringify(message)}\n`);
    return true;
  }

  close(): void {
    // stdout belongs to the process; the session ending does not close it.
  }
}
