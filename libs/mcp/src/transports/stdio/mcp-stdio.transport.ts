import { Inject, Injectable } from '@nestjs/common';
import type { McpServedTransport } from '../connection/served-transport.js';
import type { Readable, Writable } from 'node:stream';
import { McpInvalidRequestException, McpParseErrorException } from '../../errors/mcp-protocol.exceptions.js';
import type { ConnectionSession } from '../connection/connection-session.js';
import { ConnectionSessions } from '../connection/connection-sessions.js';
import { McpListens } from '../../protocol/listen/listens.registry.js';
import { decodeJsonText } from '../connection/json-text.js';
import { LineSplitter } from './line-splitter.js';
import { StdioConnection } from './stdio.connection.js';
import { McpLogger } from '../../logging/mcp-logger.js';
import { McpOptions, type McpOptionGroup } from '../../mcp-option-groups.js';

/** Streams and limits of the stdio transport. @publicApi */
export interface McpStdioOptions {
  /** @default process.stdin */
  input?: Readable;
  /** @default process.stdout */
  output?: Writable;
  /** Longest accepted line, in bytes. @default the module's `maxBodyBytes` (4 MiB) */
  maxLineBytes?: number;
}

/** DI token of the stdio options (from the module extras). */
export const MCP_STDIO_OPTIONS = Symbol('MCP_STDIO_OPTIONS');

/**
 * The stdio transport: newline-delimited JSON-RPC on stdin/stdout, one implicit client.
 * Starts when the application boots; `finished` resolves when stdin ends.
 */
@Injectable()
export class McpStdioTransport implements McpServedTransport {
  readonly kind = 'stdio';
  /** Reading stdin: from `start` until stdin ends or the transport closes. */
  private reading = false;
  private readonly logger = new McpLogger('McpStdio');
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
    @McpOptions('transport') private readonly moduleOptions: McpOptionGroup<'transport'>,
    private readonly connections: ConnectionSessions,
    private readonly listens: McpListens,
  ) {
    this.input = options.input ?? process.stdin;
    this.output = options.output ?? process.stdout;
    this.connection = new StdioConnection(this.output, moduleOptions.maxStreamBufferBytes);
  }

  start(): void {
    // Answers go through StdioConnection.answer: past the output cap only what the server starts
    // itself may be dropped, never the answer a client waits for.
    const session = this.connections.open('stdio', this.connection, { transport: 'stdio' }, undefined, (json) =>
      this.connection.answer(json),
    );
    this.session = session;
    this.reading = true;
    const splitter = new LineSplitter(
      this.options.maxLineBytes ?? this.moduleOptions.maxBodyBytes,
      (line) => this.track(this.onLine(line)),
      () => session.refuse(null, new McpInvalidRequestException('The line exceeds the size limit'), 'size'),
    );
    this.input.on('data', (chunk: Buffer | string) => {
      splitter.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
      this.holdWhileCongested();
    });
    this.input.once('end', () => {
      this.reading = false;
      splitter.end();
      // The client is gone: its listens end (they would never finish otherwise); answers to its
      // other requests are still written before the transport reports it is finished.
      void this.listens
        .endAll()
        .then(() => Promise.all(this.pending))
        .then(() => this.resolveFinished());
    });
    this.input.once('error', (error) => {
      this.reading = false;
      this.logger.error(`stdin failed: ${error.message}`);
      this.resolveFinished();
    });
  }

  /** The one pipe, while its client is there. */
  heldStreams(): number {
    return this.reading ? 1 : 0;
  }

  /** The one client's session is the connection: it stays until the process ends. */
  drain(): void {}

  async close(): Promise<void> {
    this.reading = false;
    await this.session?.close();
    this.input.pause();
  }

  private async onLine(line: Buffer): Promise<void> {
    const decoded = decodeJsonText(line);
    if (!decoded.ok) {
      this.session!.refuse(null, new McpParseErrorException(decoded.detail));
      return;
    }
    await this.session!.handle(decoded.value);
  }

  /** Back-pressure: no new lines are read while the client leaves its output unread. */
  private holdWhileCongested(): void {
    if (!this.connection.congested || this.input.isPaused()) return;
    this.input.pause();
    this.output.once('drain', () => this.input.resume());
  }

  private track(work: Promise<void>): void {
    this.pending.add(work);
    void work.finally(() => this.pending.delete(work));
  }
}
