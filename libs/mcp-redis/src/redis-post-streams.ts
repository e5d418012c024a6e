import { randomBytes } from 'node:crypto';
import {
  McpLogger,
  type McpConnection,
  type McpPostStream,
  type McpPostStreamResume,
  type McpPostStreams,
} from '@nest-mcp/server/backend';
import { POST_LOGS_ASKED, runAskingForKeys } from './asked-keys.js';
import { OrderedWriter, type LoggedEvent } from './ordered-writer.js';
import { describeError, guarded } from './redis-errors.js';
import type { RedisKeys } from './redis-keys.js';
import type { BusMessage, RedisPubSub } from './redis-pubsub.js';
import type { RedisClient, RedisScripts } from './redis-scripts.js';
import type { SessionEnds } from './session-ends.js';

/** How soon a client whose resumed answer was drained by a shutdown should reconnect. */
const DRAIN_RETRY_MS = 1_000;

/** POST answers kept per session for resumption; older ones are forgotten. */
const POST_STREAMS_PER_SESSION = 16;

const POST_EVENT_ID = /^p:([A-Za-z0-9_-]+):(\d+)$/;

/** A client's new connection that carries the rest of a POST answer, here. */
interface ResumedTarget {
  readonly sessionId: string;
  readonly writer: OrderedWriter;
  /** The replay was written; before that, an end waits for it. */
  started: boolean;
  /** The answer ended (its writer said so). */
  ended: boolean;
}

/**
 * POST answers (SSE) logged in Redis, so that a client whose connection dropped resumes the
 * answer on any instance with `GET` + `Last-Event-ID` (`p:<stream>:<seq>`): the instance that
 * runs the request writes each event to the log and, once another connection owns the stream,
 * publishes it to that connection's instance (in the same script). The events reach the resumed
 * connection in order, once (`OrderedWriter`). When the session ends (announced on every
 * instance), each instance closes the connections it holds that carry the session's answers.
 */
export class RedisPostStreams implements McpPostStreams {
  private readonly logger = new McpLogger('McpRedis');
  /** Streams written by this instance, by owner string (`<instance> <token>`). */
  private readonly writers = new Map<string, RedisPostWriter>();
  /** Resumed connections held by this instance, by owner string. */
  private readonly resumed = new Map<string, ResumedTarget>();
  /** The owner strings of both maps, by session: what a session's end closes here. */
  private readonly ownersOf = new Map<string, Set<string>>();

  constructor(
    private readonly scripts: RedisScripts,
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    pubsub: RedisPubSub,
    ends: SessionEnds,
    private readonly logLength: number,
  ) {
    pubsub.handle('post', (message) => this.resumed.get(String(message.owner))?.writer.push(eventOf(message)));
    pubsub.handle('postEnd', (message) => this.ended(String(message.owner)));
    pubsub.handle('postMoved', (message) => this.moved(String(message.owner)));
    ends.listen((sessionId) => this.sessionEnded(sessionId));
  }

  open(sessionId: string | undefined, connection: McpConnection): McpPostStream {
    const owner = this.newOwner();
    const writer = new RedisPostWriter(this, sessionId, owner, connection);
    if (sessionId !== undefined) {
      this.writers.set(owner, writer);
      this.track(sessionId, owner);
      this.fireAndForget(
        runAskingForKeys(
          (keys) => this.scripts.run('mcpPostOpen', keys, sessionId, writer.id, owner, POST_STREAMS_PER_SESSION),
          this.keysOf(sessionId, writer.id, true),
          POST_LOGS_ASKED,
        ),
        'open a POST stream log',
      );
    }
    return writer;
  }

  async resume(sessionId: string, lastEventId: string, connection: McpConnection): Promise<McpPostStreamResume> {
    const position = POST_EVENT_ID.exec(lastEventId);
    if (!position || !Number.isSafeInteger(Number(position[2]))) return 'unknown';
    const [, streamId, after] = position;
    const owner = this.newOwner();
    const target: ResumedTarget = {
      sessionId,
      started: false,
      ended: false,
      writer: new OrderedWriter(
        connection,
        (seq) => `p:${streamId}:${seq}`,
        (seq) => this.readLog(sessionId, streamId, seq),
        () => this.forgetResumed(owner),
      ),
    };
    this.resumed.set(owner, target);
    this.track(sessionId, owner);
    let reply: [string, string?, ...(string | number)[]];
    try {
      reply = await this.scripts.run(
        'mcpPostResume',
        this.keysOf(sessionId, streamId),
        sessionId,
        streamId,
        after,
        owner,
      );
    } catch (error) {
      this.forgetResumed(owner);
      throw error;
    }
    const [state, done, ...flat] = reply;
    if (state !== 'resumed') {
      this.forgetResumed(owner);
      return state === 'gap' ? 'gap' : 'unknown';
    }
    const events: LoggedEvent[] = [];
    for (let i = 0; i < flat.length; i += 2) events.push({ seq: Number(flat[i]), json: String(flat[i + 1]) });
    target.writer.start(events, Math.max(Number(after), ...events.map((event) => event.seq)));
    target.started = true;
    if (done === '1' || target.ended) this.ended(owner);
    return 'resumed';
  }

  /** Graceful shutdown: resumed connections close with a retry hint (their answers stay logged). */
  async drain(): Promise<void> {
    for (const [owner, target] of [...this.resumed]) {
      this.forgetResumed(owner);
      target.writer.connection.close(DRAIN_RETRY_MS);
    }
  }

  /** Logs one event of a writer's stream; tells the writer when another connection owns it. */
  append(writer: RedisPostWriter, seq: number, json: string): void {
    this.fireAndForget(
      this.scripts
        .run<number>(
          'mcpPostAppend',
          this.keysOf(writer.sessionId!, writer.id),
          writer.sessionId!,
          writer.id,
          seq,
          json,
          this.logLength,
          writer.owner,
        )
        .then((outcome) => {
          if (outcome === 2) writer.release();
        }),
      'log a POST stream event',
    );
  }

  finish(writer: RedisPostWriter): void {
    this.writers.delete(writer.owner);
    this.untrack(writer.sessionId!, writer.owner);
    this.fireAndForget(
      this.scripts.run(
        'mcpPostFinish',
        this.keysOf(writer.sessionId!, writer.id),
        writer.sessionId!,
        writer.id,
        writer.owner,
      ),
      'end a POST stream',
    );
  }

  private ended(owner: string): void {
    const target = this.resumed.get(owner);
    if (!target) return;
    target.ended = true;
    // While its replay is in flight the close waits for it (resume() closes it afterwards).
    if (!target.started) return;
    this.forgetResumed(owner);
    target.writer.connection.close();
  }

  /** Another connection took the stream over: the one this owner names lets go. */
  private moved(owner: string): void {
    this.writers.get(owner)?.release();
    const target = this.resumed.get(owner);
    if (!target) return;
    this.forgetResumed(owner);
    target.writer.connection.close();
  }

  /**
   * The session ended (here or elsewhere): the connections this instance holds that carry its
   * answers close, the resumed ones included (no transport knows those as answers). A writer
   * goes on until its request finishes; its events are no longer logged.
   */
  private sessionEnded(sessionId: string): void {
    const owners = this.ownersOf.get(sessionId);
    if (!owners) return;
    this.ownersOf.delete(sessionId);
    for (const owner of owners) {
      this.writers.get(owner)?.release();
      const target = this.resumed.get(owner);
      if (!target) continue;
      this.resumed.delete(owner);
      target.writer.connection.close();
    }
  }

  private forgetResumed(owner: string): void {
    const target = this.resumed.get(owner);
    if (!target) return;
    this.resumed.delete(owner);
    this.untrack(target.sessionId, owner);
  }

  private track(sessionId: string, owner: string): void {
    let owners = this.ownersOf.get(sessionId);
    if (!owners) this.ownersOf.set(sessionId, (owners = new Set<string>()));
    owners.add(owner);
  }

  private untrack(sessionId: string, owner: string): void {
    const owners = this.ownersOf.get(sessionId);
    if (!owners?.delete(owner) || owners.size > 0) return;
    this.ownersOf.delete(sessionId);
  }

  private async readLog(sessionId: string, streamId: string, after: number): Promise<LoggedEvent[]> {
    const rows = await guarded(this.redis.xrange(this.keys.postLog(sessionId, streamId), `(${after}-0`, '+'));
    return rows.map(([id, fields]) => ({ seq: Number(id.split('-')[0]), json: fields[1] }));
  }

  /**
   * The keys a POST-stream script declares (see sessionScriptKeys): the session's bucket (its
   * slot), the stream's owner record and log, and on open the session's hash and log index
   * (the logs an open trims are read from that index: the script asks for their keys, see
   * wantPostLogs in lua/prelude).
   */
  private keysOf(sessionId: string, streamId: string, opening = false): string[] {
    const session = this.keys.session(sessionId);
    const meta = `${session}:rm:${streamId}`;
    return opening
      ? [this.keys.bucketOfSession(sessionId), session, `${session}:rs`, meta]
      : [this.keys.bucketOfSession(sessionId), meta, this.keys.postLog(sessionId, streamId)];
  }

  private newOwner(): string {
    return `${this.scripts.instanceId} ${randomBytes(6).toString('base64url')}`;
  }

  private fireAndForget(work: Promise<unknown>, what: string): void {
    work.catch((error: unknown) => this.logger.warn(`Could not ${what}: ${describeError(error)}`));
  }
}

/**
 * The answer stream of one POST, written by the instance that runs the request: each event
 * goes to the connection while it owns the stream, and to the log.
 */
class RedisPostWriter implements McpPostStream {
  readonly id = randomBytes(6).toString('base64url');
  private seq = 0;

  constructor(
    private readonly streams: RedisPostStreams,
    readonly sessionId: string | undefined,
    readonly owner: string,
    private target: McpConnection | undefined,
  ) {}

  send(json: string): void {
    this.seq += 1;
    if (this.target && !this.target.send(json, `p:${this.id}:${this.seq}`)) this.target = undefined;
    if (this.sessionId !== undefined) this.streams.append(this, this.seq, json);
  }

  finish(): void {
    this.release();
    if (this.sessionId !== undefined) this.streams.finish(this);
  }

  /** The original connection no longer carries the stream (resumed elsewhere, or finished). */
  release(): void {
    this.target?.close();
    this.target = undefined;
  }
}

const eventOf = (message: BusMessage): LoggedEvent => ({ seq: Number(message.seq), json: String(message.j) });
