import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { McpTelemetry } from '../../telemetry/mcp-telemetry.js';
import { MCP_FANOUT } from '../../backend/mcp-backend.tokens.js';
import type { McpFanout, McpListener } from '../../backend/mcp-fanout.js';
import { CallerSlots } from '../../auth/caller-slots.js';
import type { McpPrincipal } from '../../model/mcp-principal.js';
import type { JsonRpcId } from '../../model/json-rpc.js';
import { McpRequestCancelledError } from '../inflight-requests.js';
import { closeWhenExpired } from '../../auth/token-expiry.js';
import { McpCapacityException } from '../../errors/mcp-capacity.exception.js';
import { McpOptions, type McpOptionGroup } from '../../mcp-option-groups.js';

/** An open listen: it ends when its request is cancelled, its token expires or the server shuts down. */
export interface OpenListen {
  /** Resolves when the server ends the listen (token expiry, shutdown); rejects with the reason when `signal` aborts. */
  readonly ended: Promise<void>;
}

/** Who opened a listen: the caller its place is counted for, and the principal whose token it lives on. */
export interface ListenOwner {
  /** Who `maxListensPerCaller` counts (`callerKeyOf`); `undefined` (stdio) is not counted. */
  readonly caller?: string;
  /** The principal of the request that opened it: the listen ends when its access token expires. */
  readonly principal?: McpPrincipal;
  /**
   * The id of the `subscriptions/listen` request: with `caller`, what a `notifications/cancelled`
   * sent on another HTTP request names it by (`cancel`).
   */
  readonly requestId?: JsonRpcId;
}

/**
 * The `subscriptions/listen` streams of this instance: their caps (`maxListens`, and
 * `maxListensPerCaller` per caller), their registration with the fan-out, and their
 * end. A listen the client drops (its signal aborts) is let go at once; one the server ends (its
 * access token expired, or a graceful shutdown) is answered with its completion result first.
 * Every end gives its places back and stops its expiry timer.
 */
@Injectable()
export class McpListens implements OnModuleInit {
  private readonly open = new Set<() => void>();
  private readonly perCaller: CallerSlots;
  /** Listens a caller can cancel by request id, by `caller` and id. */
  private readonly cancellable = new Map<string, Set<(reason?: string) => void>>();
  /**
   * When a listen of each `caller` and id ended lately (epoch ms), oldest first, at most
   * `maxListens` of them: a cancel naming such a key may come from the client whose listen just
   * ended (it closes its stream and posts the cancel), so it cannot prove which listen it means.
   */
  private readonly lately = new Map<string, number>();

  constructor(
    @McpOptions('modern') private readonly options: McpOptionGroup<'modern'>,
    @Inject(MCP_FANOUT) private readonly fanout: McpFanout,
    private readonly telemetry: McpTelemetry,
  ) {
    this.perCaller = new CallerSlots(options.maxListensPerCaller);
  }

  onModuleInit(): void {
    this.telemetry.gauge(
      'listens.open',
      'subscriptions/listen streams open on this instance (MCP 2026-07-28).',
      '{listen}',
      (observe) => observe(this.open.size),
    );
  }

  get size(): number {
    return this.open.size;
  }

  /** Listens `caller` holds here. */
  heldBy(caller: string): number {
    return this.perCaller.count(caller);
  }

  /**
   * Throws `McpCapacityException` ('listens') when the instance holds `maxListens` already, and
   * `McpCapacityException` ('listensPerCaller') when `caller` holds `maxListensPerCaller`.
   */
  assertRoom(caller?: string): void {
    if (this.open.size >= this.options.maxListens) throw new McpCapacityException('listens', this.options.maxListens);
    if (caller !== undefined && this.perCaller.count(caller) >= this.options.maxListensPerCaller) {
      throw new McpCapacityException('listensPerCaller', this.options.maxListensPerCaller);
    }
  }

  /** Registers a listener until `signal` aborts, the owner's token expires or the server shuts down. */
  start(listener: McpListener, signal: AbortSignal, owner: ListenOwner = {}): OpenListen {
    this.assertRoom(owner.caller);
    const release = this.perCaller.take(owner.caller);
    if (!release) throw new McpCapacityException('listensPerCaller', this.options.maxListensPerCaller);
    const remove = this.fanout.addListener(listener);
    let expiry: { cancel(): void } | undefined;
    let finish!: () => void;
    const ended = new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        finish();
        reject(signal.reason instanceof Error ? signal.reason : new Error('The listen was cancelled'));
      };
      const cancelKey =
        owner.caller !== undefined && owner.requestId !== undefined
          ? cancellationKey(owner.caller, owner.requestId)
          : undefined;
      const onCancel = (reason?: string) => {
        finish();
        reject(new McpRequestCancelledError(reason ?? 'The client cancelled the listen'));
      };
      finish = () => {
        this.open.delete(endGracefully);
        remove();
        release();
        expiry?.cancel();
        signal.removeEventListener('abort', onAbort);
        if (cancelKey !== undefined) this.forget(cancelKey, onCancel);
      };
      const endGracefully = () => {
        finish();
        resolve();
      };
      this.open.add(endGracefully);
      if (signal.aborted) {
        onAbort();
        return;
      }
      signal.addEventListener('abort', onAbort, { once: true });
      if (cancelKey !== undefined) {
        let listens = this.cancellable.get(cancelKey);
        if (!listens) this.cancellable.set(cancelKey, (listens = new Set()));
        listens.add(onCancel);
      }
      // The token was checked when the listen opened; nothing renews it on this stream.
      expiry = closeWhenExpired(owner.principal, endGracefully);
    });
    return { ended };
  }

  /**
   * Cancels the listen `caller` opened with request id `requestId` (a `notifications/cancelled`
   * that came on another HTTP request than the listen's own stream): it ends without an answer,
   * as a cancelled request does. Over HTTP nothing but the caller and the id ties the cancel to a
   * listen, and a caller is not one client: clients behind one address (or one proxy) without
   * authorization, or two sessions of one principal, are one caller, and the official clients
   * give every client's first listen the same id. So the cancel ends a listen only when it
   * provably means it: exactly one listen of that caller and id is open, and none ended in the
   * last `CANCEL_PROOF_MS` (the sender may be the client whose own listen just ended, as
   * clients close the stream and post the cancel). Otherwise it ends none; closing a listen's
   * stream always ends it. Another caller's listen is never touched.
   * @returns how many listens it cancelled (0 or 1)
   */
  cancel(caller: string, requestId: JsonRpcId, reason?: string): number {
    const key = cancellationKey(caller, requestId);
    const listens = this.cancellable.get(key);
    if (listens?.size !== 1) return 0;
    const endedAt = this.lately.get(key);
    if (endedAt !== undefined && Date.now() - endedAt < CANCEL_PROOF_MS) return 0;
    const [cancel] = listens;
    cancel(reason);
    return 1;
  }

  private forget(key: string, cancel: (reason?: string) => void): void {
    this.endedLately(key);
    const listens = this.cancellable.get(key);
    if (!listens?.delete(cancel) || listens.size > 0) return;
    this.cancellable.delete(key);
  }

  /** Notes that a listen of `key` ended now, forgetting the oldest note past `maxListens`. */
  private endedLately(key: string): void {
    this.lately.delete(key);
    this.lately.set(key, Date.now());
    const now = Date.now();
    for (const [oldest, endedAt] of this.lately) {
      if (this.lately.size <= this.options.maxListens && now - endedAt < CANCEL_PROOF_MS) break;
      this.lately.delete(oldest);
    }
  }

  /** Ends every listen with its completion result, and lets those answers go out. */
  async endAll(): Promise<void> {
    for (const end of [...this.open]) end();
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * How long after a listen of a caller and id ended a cancel naming them is ambiguous: longer than
 * a client takes between closing its stream and posting its cancel, short enough that a client
 * reusing an id later can still cancel its new listen.
 */
export const CANCEL_PROOF_MS = 30_000;

/** `caller` and a request id as one key: ids of either type never collide (`1` and `"1"`). */
const cancellationKey = (caller: string, requestId: JsonRpcId): string =>
  `${caller}\u0000${typeof requestId === 'number' ? 'n' : 's'}${requestId}`;
