import { Inject, Injectable } from '@nestjs/common';
import { McpLogger } from '../../logging/mcp-logger.js';
import { MCP_INSTANCE_MESSAGING, MCP_LIVE_STREAMS } from '../../backend/mcp-backend.tokens.js';
import type { McpInstanceMessaging } from '../../backend/mcp-instance-messaging.js';
import type { McpLiveStreams } from '../../backend/mcp-live-streams.js';
import { McpClientRequests } from '../../client-requests/mcp-client-requests.js';
import type { McpPrincipal } from '../../model/mcp-principal.js';
import { McpTaskRuns } from './task-runs.js';

/** An instance tells the one running a task that it holds (`on`) or no longer holds a stream for it. */
const WATCH_TOPIC = 'task-watch';
/** The instance running a task hands a message for it to an instance that holds a stream for it. */
const RELAY_TOPIC = 'task-relay';

/** Messages kept per task while nothing can carry them (the client has not asked for them yet). */
export const MAX_QUEUED_TASK_MESSAGES = 32;
/** Instances that may hold a stream for one task (each `tasks/result` of its client, at most). */
const MAX_RELAYS_PER_TASK = 16;

type Send = (json: string) => boolean;

interface WatchMessage {
  readonly taskId: string;
  readonly on: boolean;
}

interface RelayMessage {
  readonly taskId: string;
  readonly json: string;
}

/**
 * How the messages of a 2025-11-25 task reach its client: its server→client requests
 * (`elicitation/create`, ...), progress and log messages, each with the related-task `_meta`.
 * That era's clients read them on a `tasks/result` answer stream (which any instance may hold)
 * or on the session's GET stream. So, for a task running here:
 * - the `tasks/result` streams of this instance get them directly;
 * - an instance that holds such a stream says so (`task-watch`), and gets them relayed;
 * - without either, the session's GET stream (wherever it is held) gets them;
 * - without any, a request is queued (a bounded few) until a stream opens; a notification is
 *   dropped.
 */
@Injectable()
export class McpTaskChannels {
  private readonly logger = new McpLogger('McpTasks');
  /** `tasks/result` streams on this instance, by task (whichever instance runs it). */
  private readonly streams = new Map<string, Set<Send>>();
  /** Tasks running here: the other instances that hold a stream for them. */
  private readonly relays = new Map<string, Set<string>>();
  /** Tasks running here: requests nothing could carry yet. */
  private readonly queued = new Map<string, string[]>();

  constructor(
    @Inject(MCP_INSTANCE_MESSAGING) private readonly messaging: McpInstanceMessaging,
    @Inject(MCP_LIVE_STREAMS) private readonly liveStreams: McpLiveStreams,
    /** Which tasks run on this instance (relays are kept only for those). */
    private readonly runs: McpTaskRuns,
    private readonly clientRequests: McpClientRequests,
  ) {
    messaging.on(WATCH_TOPIC, (payload, from) => this.watched(payload as WatchMessage, from));
    messaging.on(RELAY_TOPIC, (payload) => {
      const { taskId, json } = payload as RelayMessage;
      if (typeof taskId === 'string' && typeof json === 'string') this.writeLocal(taskId, json);
    });
  }

  /**
   * A `tasks/result` stream here waits on a task that `runner` runs: until the returned function
   * is called, the task's messages are written to it (what was queued first).
   */
  open(taskId: string, runner: string, send: Send): () => void {
    let sends = this.streams.get(taskId);
    if (!sends) this.streams.set(taskId, (sends = new Set()));
    const first = sends.size === 0;
    sends.add(send);
    const local = runner === this.messaging.instanceId;
    if (local) this.flush(taskId);
    else if (first) this.messaging.send(runner, WATCH_TOPIC, { taskId, on: true } satisfies WatchMessage);
    let open = true;
    return () => {
      if (!open) return;
      open = false;
      sends.delete(send);
      if (sends.size > 0 || this.streams.get(taskId) !== sends) return;
      this.streams.delete(taskId);
      if (!local) this.messaging.send(runner, WATCH_TOPIC, { taskId, on: false } satisfies WatchMessage);
    };
  }

  /**
   * Sends a message of a task running here. True when something carries it (or, with `queue`,
   * when it was queued for the next stream); false when nothing can.
   */
  deliver(taskId: string, sessionId: string | undefined, json: string, queue: boolean): boolean {
    let carried = this.writeLocal(taskId, json);
    for (const instance of this.relays.get(taskId) ?? []) {
      this.messaging.send(instance, RELAY_TOPIC, { taskId, json } satisfies RelayMessage);
      carried = true;
    }
    if (carried) return true;
    if (sessionId !== undefined && this.liveStreams.send(sessionId, json)) return true;
    if (!queue) return false;
    const waiting = this.queued.get(taskId) ?? [];
    if (waiting.length >= MAX_QUEUED_TASK_MESSAGES) return false;
    waiting.push(json);
    this.queued.set(taskId, waiting);
    return true;
  }

  /**
   * A request of a task running here to its client (2025-11-25), with the related-task `_meta`
   * in `params` already: sent as `deliver` sends (queued when nothing carries it yet: the
   * client fetches it with `tasks/result`) and answered like any other request to the client.
   */
  request(
    taskId: string,
    sessionId: string,
    method: string,
    params: Record<string, unknown>,
    options: { readonly signal: AbortSignal; readonly timeoutMs: number; readonly principal?: McpPrincipal },
  ): Promise<Record<string, unknown>> {
    return this.clientRequests.request(sessionId, method, params, {
      ...options,
      send: (json) => this.deliver(taskId, sessionId, json, true),
    });
  }

  /** A notification for the session's stream (the task status notifications of 2025-11-25). */
  notifySession(sessionId: string, json: string): void {
    this.liveStreams.send(sessionId, json);
  }

  /** A task that ran here ended: what was kept for it goes. */
  forget(taskId: string): void {
    this.relays.delete(taskId);
    this.queued.delete(taskId);
  }

  private watched({ taskId, on }: WatchMessage, from: string): void {
    if (typeof taskId !== 'string') return;
    if (!on) {
      const relays = this.relays.get(taskId);
      relays?.delete(from);
      if (relays?.size === 0) this.relays.delete(taskId);
      return;
    }
    if (!this.runs.has(taskId)) return;
    const relays = this.relays.get(taskId) ?? new Set<string>();
    if (relays.size >= MAX_RELAYS_PER_TASK && !relays.has(from)) return;
    relays.add(from);
    this.relays.set(taskId, relays);
    this.flush(taskId);
  }

  /** Hands what was queued for a task to whatever carries its messages now. */
  private flush(taskId: string): void {
    const waiting = this.queued.get(taskId);
    if (!waiting) return;
    this.queued.delete(taskId);
    for (const json of waiting) {
      if (!this.deliver(taskId, undefined, json, false)) {
        this.logger.debug(`A queued message of task ${taskId.slice(0, 8)}… found no stream`);
      }
    }
  }

  /** Writes to the `tasks/result` streams of this instance; true when one took it. */
  private writeLocal(taskId: string, json: string): boolean {
    let written = false;
    for (const send of [...(this.streams.get(taskId) ?? [])]) written = send(json) || written;
    return written;
  }
}
