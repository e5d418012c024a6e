import { Redis } from 'ioredis';
import type { McpBackendSpan, McpBackendTelemetry } from '@nest-mcp/server/backend';

/** The parts of an ioredis command the spans read and wrap. */
interface SentCommand {
  name: string;
  args: unknown[];
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

/** Marks a command whose round trip has its span already (a command sent again from the offline queue). */
const TRACED = Symbol('mcp:traced');

/** ioredis's scripts, by the name `defineCommand` gave them. */
type ScriptsSet = Record<string, { readonly sha: string; readonly lua: string }>;

/**
 * The command connection of an instance: every command sent during one turn of the event loop
 * leaves in one socket write, flushed when the turn's I/O callbacks are done (`setImmediate`).
 *
 * Why: under load an instance reads several HTTP requests in one turn (one per ready socket),
 * and each looks its session up in Redis. Written one by one, that is one `write` system call
 * per request here and one `read` per request in Redis; corked, it is one of each per turn.
 * ioredis's own auto-pipelining batches per turn too, but builds a pipeline object per batch and
 * keeps one batch in flight at a time (the next waits for the previous one's replies): measured
 * with `npm run bench` (the Redis echo row), it cost the gateway more CPU than it saved.
 *
 * A command waits at most until the end of the current turn: Node never blocks in poll while
 * an immediate is pending. Commands sent with their own stream (pipelines, MULTI) already share
 * one write and are left alone, and so is anything sent before the connection is ready (ioredis
 * queues it). A connection lost while corked loses nothing ioredis would have kept: its unsent
 * commands fail or are retried exactly as if they had been written.
 *
 * Every command sent here is also where its round trip is traced (`traceWith`): one CLIENT span
 * per command, in the database conventions, under the request being served; a script is named
 * by the name it was defined with (`EVALSHA mcpAccess`), not its hash.
 */
export class TurnBatchedRedis extends Redis {
  private corked = false;
  private telemetry?: McpBackendTelemetry;
  /** Script name by SHA-1 and by body (`EVAL` sends the body): filled from `scriptsSet` when a script is first seen. */
  private scriptNames = new Map<string, string>();

  /** Traces each round trip through the module's telemetry from now on. */
  traceWith(telemetry: McpBackendTelemetry | undefined): void {
    this.telemetry = telemetry;
  }

  override sendCommand(...args: Parameters<Redis['sendCommand']>): unknown {
    if (!this.corked && args[1] === undefined && this.status === 'ready') this.corkForThisTurn();
    if (this.telemetry) this.trace(args[0]);
    return super.sendCommand(...args);
  }

  private trace(command: SentCommand & { [TRACED]?: true }): void {
    if (command[TRACED]) return;
    const operation = command.name.toUpperCase();
    const script = operation === 'EVALSHA' || operation === 'EVAL' ? this.scriptName(command.args[0]) : undefined;
    const attributes: Record<string, string | number> = {
      'db.system.name': 'redis',
      'db.operation.name': operation,
      'db.namespace': String(this.options.db ?? 0),
    };
    if (script !== undefined) attributes['db.stored_procedure.name'] = script;
    if (this.options.host !== undefined) attributes['server.address'] = this.options.host;
    if (this.options.port !== undefined) attributes['server.port'] = this.options.port;
    const span = this.telemetry!.startRoundTrip(
      script === undefined ? operation : `${operation} ${script}`,
      attributes,
    );
    if (!span) return;
    command[TRACED] = true;
    const { resolve, reject } = command;
    let ended = false;
    const end = (error?: Error) => {
      if (ended) return;
      ended = true;
      endSpan(span, error);
    };
    command.resolve = (value) => {
      end();
      resolve(value);
    };
    command.reject = (error) => {
      end(error);
      reject(error);
    };
  }

  private scriptName(first: unknown): string | undefined {
    if (typeof first !== 'string') return undefined;
    let name = this.scriptNames.get(first);
    if (name === undefined) {
      const scripts = (this as unknown as { scriptsSet?: ScriptsSet }).scriptsSet ?? {};
      this.scriptNames = new Map();
      for (const [defined, script] of Object.entries(scripts)) {
        this.scriptNames.set(script.sha, defined);
        this.scriptNames.set(script.lua, defined);
      }
      name = this.scriptNames.get(first);
    }
    return name;
  }

  private corkForThisTurn(): void {
    const socket = this.stream;
    socket.cork();
    this.corked = true;
    setImmediate(() => {
      this.corked = false;
      socket.uncork();
    });
  }
}

/** Ends a round trip's span; a Redis error reply's prefix (`ERR`, `NOSCRIPT`) is its status code. */
function endSpan(span: McpBackendSpan, error: Error | undefined): void {
  if (!error) return span.end();
  const prefix = /^([A-Z][A-Z_]+)\s/.exec(error.message)?.[1];
  span.end(error, prefix === undefined ? undefined : { 'db.response.status_code': prefix });
}
