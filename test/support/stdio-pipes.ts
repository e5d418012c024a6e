/**
 * The stdio transport inside the test process: the module's stdin and stdout are two
 * `PassThrough` streams (override `MCP_STDIO_OPTIONS` with `pipes.options`), and this side
 * writes lines to one and reads lines from the other, like a client would.
 */
import { PassThrough } from 'node:stream';
import { MCP_STDIO_OPTIONS } from '@app/mcp/transports/stdio/mcp-stdio.transport.js';
import { MessageLog } from './message-log.js';

export interface StdioPipes {
  /** The override that gives the module these streams. */
  readonly override: { provide: unknown; useValue: unknown };
  /** Every stdout line parsed as JSON, in order. */
  readonly messages: readonly any[];
  send(message: object): void;
  /** Sends a request with this id and resolves with the response carrying it. */
  request(id: number | string, method: string, params?: Record<string, unknown>, timeoutMs?: number): Promise<any>;
  /** `initialize` then `notifications/initialized`. */
  initialize(): Promise<any>;
  waitFor(predicate: (message: any) => boolean, timeoutMs?: number, fromIndex?: number): Promise<any>;
  /** Ends stdin. */
  end(): void;
}

export function stdioPipes(): StdioPipes {
  const input = new PassThrough();
  const output = new PassThrough();
  const log = new MessageLog<any>('stdout message');
  let pending = '';
  output.setEncoding('utf8');
  output.on('data', (chunk: string) => {
    pending += chunk;
    let newline: number;
    while ((newline = pending.indexOf('\n')) !== -1) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      log.push(JSON.parse(line));
    }
  });
  const send = (message: object) => void input.write(`${JSON.stringify(message)}\n`);
  const waitFor = (predicate: (message: any) => boolean, timeoutMs = 5_000, fromIndex = 0) =>
    log.waitFor(predicate, timeoutMs, fromIndex);
  const request = (id: number | string, method: string, params?: Record<string, unknown>, timeoutMs = 5_000) => {
    const answer = waitFor((m) => m?.id === id && ('result' in m || 'error' in m), timeoutMs, log.length);
    send(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });
    return answer;
  };
  return {
    override: { provide: MCP_STDIO_OPTIONS, useValue: { input, output } },
    messages: log.all(),
    send,
    request,
    async initialize() {
      const response = await request('init', 'initialize', {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'stdio-pipes', version: '1.0.0' },
      });
      if (!response.result) throw new Error(`initialize over stdio failed: ${JSON.stringify(response)}`);
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      return response;
    },
    waitFor,
    end: () => void input.end(),
  };
}
