import type { Writable } from 'node:stream';
import type { McpConnection } from '../../session/mcp-session.interface.js';

/** stdout as an `McpConnection`: one JSON-RPC message per line, nothing else. */
export class StdioConnection implements McpConnection {
  constructor(private readonly output: Writable) {}

  send(message: object): boolean {
    return this.sendJson(JSON.stringify(message));
  }

  sendJson(json: string): boolean {
    if (this.output.destroyed || this.output.writableEnded) return false;
    // JSON.stringify never emits a raw newline, so one message is always one line.
    this.output.write(`${json}\n`);
    return true;
  }

  close(): void {
    // stdout belongs to the process; the session ending does not close it.
  }
}
