import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Readable, Writable } from 'node:stream';
import { MCP_NOTIFICATION_BUS, type McpNotificationBus } from '../../notifications/mcp-notification.bus.js';
import { McpDispatcher } from '../../protocol/mcp.dispatcher.js';
import { errorResponse, JsonRpcErrorCode } from '../../protocol/json-rpc.js';
import { McpSessionManager } from '../../session/mcp-session.manager.js';
import { ConnectionSession } from '../shared/connection-session.js';
import { decodeJsonText } from '../shared/json-text.js';
import { LineSplitter } from './line-splitter.js';
import { StdioConnection } from './stdio.connection.js';

/** Streams and limits of the stdio transport. @publicApi */
export interface McpStdioOptions {
  /** @default process.stdin */
  input?: Readable;
  /** @default process.stdout */
  output?: Writable;
  /** Longest accepted line, in bytes. @default 10 MiB */
  maxLineBytes?: number;
}

/** DI token of the stdio options (from the module extras). */
export const MCP_STDIO_OPTIONS = Symbol('MCP_STDIO_OPTIONS');

const DEFAULT_MAX_LINE_BYTES = 10 * 1024 * 1024;

/**
 * The stdio transport: newline-delimited JSON-RPC on stdin/stdout, one implicit client.
 * Starts when the application boots; `finished` resolves when stdin ends.
 */
@Injectable()
export class McpStdioTransport implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('McpStdio');
  private readonly input: Readable;
  private readonly output: Writable;
  private readonly connection: StdioConnection;
  private session?: ConnectionSession;
  private resolveFinished!: () => void;
  /** Resolves when stdin has ended and every pending answer was written. */
  readonly finished = new Promise<void>((resolve) => (this.resolveFinished = resolve));
  private readonly pending = new Set<Promise<void>>();

  constructor(
    @Inject(MCP_STDIO_OPTIONS) private readonly options: McpStdioOptions,
    private readonly dispatcher: McpDispatcher,
    private readonly sessions: McpSessionManager,
    @Inject(MCP_NOTIFICATION_BUS) private readonly bus: McpNotificationBus,
  ) {
    this.input = options.input ?? process.stdin;
    this.output = options.output ?? process.stdout;
    this.connection = new StdioConnection(this.output);
  }

  onApplicationBootstrap(): void {
    this.session = new ConnectionSession(
      { dispatcher: this.dispatcher, sessions: this.sessions, bus: this.bus },
      'stdio',
      this.connection,
      { transport: 'stdio' },
    );
    const splitter = new LineSplitter(
      this.options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
      (line) => this.track(this.onLine(line)),
      () => this.writeError(JsonRpcErrorCode.InvalidRequest, 'Invalid Request', 'The line exceeds the size limit'),
    );
    this.input.on('data', (chunk: Buffer | string) =>
      splitter.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk)),
    );
    this.input.once('end', () => {
      splitter.end();
      void Promise.all(this.pending).then(() => this.resolveFinished());
    });
    this.input.once('error', (error) => {
      this.logger.error(`stdin failed: ${error.message}`);
      this.resolveFinished();
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.session?.close();
    this.input.pause();
  }

  private async onLine(line: Buffer): Promise<void> {
    const decoded = decodeJsonText(line);
    if (!decoded.ok) {
      this.writeError(JsonRpcErrorCode.ParseError, 'Parse error', decoded.detail);
      return;
    }
    try {
      const answer = await this.session!.handle(decoded.value);
      if (answer) this.connection.send(answer);
    } catch (error) {
      this.logger.error(`stdio message failed: ${(error as Error)?.stack ?? String(error)}`);
      this.writeError(JsonRpcErrorCode.InternalError, 'Internal error', 'The server failed to handle the message');
    }
  }

  private writeError(code: number, message: string, detail: string): void {
    this.connection.send(errorResponse(null, { code, message, data: { detail } }));
  }

  private track(work: Promise<void>): void {
    this.pending.add(work);
    void work.finally(() => this.pending.delete(work));
  }
}
