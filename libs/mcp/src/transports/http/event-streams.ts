import { Injectable, type OnModuleInit } from '@nestjs/common';
import { CallerSlots } from '../../auth/caller-slots.js';
import type { McpPrincipal } from '../../model/mcp-principal.js';
import { closeWhenExpired } from '../../auth/token-expiry.js';
import { McpOptions, type McpOptionGroup } from '../../mcp-option-groups.js';
import { McpSessionManager } from '../../session/mcp-session.manager.js';
import type { SseStream } from './sse.stream.js';
import { McpCapacityException } from '../../errors/mcp-capacity.exception.js';

/** How soon a client whose answer stream was ended by a shutdown should come back. */
const SHUTDOWN_RETRY_MS = 1_000;

/**
 * The bounds and ends of this instance's SSE streams that the streams themselves do not know:
 * - places per caller under `maxStreamsPerCaller` for the streams a client holds open (the
 *   standalone GET stream, legacy HTTP+SSE);
 * - the end of a held stream when the access token that opened it expires;
 * - the end of POST answer streams when their session ends (on whichever instance it ends), and
 *   at shutdown, after the listens were answered, with a `retry:` hint: a legacy client resumes
 *   the answer with `Last-Event-ID`, and a modern one's request is cancelled, as closing its
 *   stream means.
 * Each is tied to the stream's one close event, so every way a stream ends (the client leaves,
 * the server closes it, a slow consumer is cut off, the session ends, the instance shuts down)
 * gives its place back and stops its timer.
 */
@Injectable()
export class McpEventStreams implements OnModuleInit {
  private readonly perCaller: CallerSlots;
  /** Open POST answer streams, by session (`''`: no session). */
  private readonly answers = new Map<string, Set<SseStream>>();

  constructor(
    @McpOptions('transport') private readonly options: McpOptionGroup<'transport'>,
    private readonly sessions: McpSessionManager,
  ) {
    this.perCaller = new CallerSlots(options.maxStreamsPerCaller);
  }

  onModuleInit(): void {
    this.sessions.onSessionEnd((sessionId) => this.closeAnswers(sessionId));
  }

  /**
   * Takes a place for `stream` of `caller` (`callerKeyOf`), given back when it closes; the
   * streams under one `key` (the GETs of one session) share a place. Throws
   * `McpCapacityException` ('streamsPerCaller') when the caller holds `maxStreamsPerCaller` others.
   */
  hold(stream: SseStream, caller: string | undefined, key?: string): void {
    const release = this.perCaller.take(caller, key);
    if (!release) throw new McpCapacityException('streamsPerCaller', this.options.maxStreamsPerCaller);
    stream.onClose(release);
  }

  /**
   * `hold` for a holder that gives the place back itself, with `release(caller, key)` once its
   * stream closed: no release function per stream. Throws as `hold` does.
   */
  claim(caller: string | undefined, key: string): void {
    if (!this.perCaller.claim(caller, key)) {
      throw new McpCapacityException('streamsPerCaller', this.options.maxStreamsPerCaller);
    }
  }

  /** Gives back a place of `claim`. */
  release(caller: string | undefined, key: string): void {
    this.perCaller.release(caller, key);
  }

  /**
   * Ends `stream` when the access token of `principal` expires (nothing without one). No event
   * is defined for it: the stream simply ends, and the client reconnects with a fresh token.
   */
  endWithToken(stream: SseStream, principal: McpPrincipal | undefined): void {
    // Without an expiry there is nothing to end it, and nothing to keep per stream.
    if (principal?.expiresAt === undefined) return;
    const expiry = closeWhenExpired(principal, () => stream.close());
    stream.onClose(() => expiry.cancel());
  }

  /** Keeps a POST answer stream until it closes, to end it with its session or at shutdown. */
  trackAnswer(stream: SseStream, sessionId = ''): void {
    let open = this.answers.get(sessionId);
    if (!open) this.answers.set(sessionId, (open = new Set()));
    open.add(stream);
    stream.onClose(() => {
      open.delete(stream);
      if (open.size === 0 && this.answers.get(sessionId) === open) this.answers.delete(sessionId);
    });
  }

  /** Places `caller` holds. */
  heldBy(caller: string): number {
    return this.perCaller.count(caller);
  }

  /** Places held by every caller together. */
  get size(): number {
    return this.perCaller.size;
  }

  /** Open POST answer streams. */
  get answerCount(): number {
    let count = 0;
    for (const open of this.answers.values()) count += open.size;
    return count;
  }

  /**
   * At shutdown (after the listens among them were answered): answer streams close before the
   * HTTP server does, which would otherwise wait for them.
   */
  drain(): void {
    for (const sessionId of [...this.answers.keys()]) this.closeAnswers(sessionId, SHUTDOWN_RETRY_MS);
  }

  private closeAnswers(sessionId: string, retryMs?: number): void {
    const open = this.answers.get(sessionId);
    if (!open) return;
    this.answers.delete(sessionId);
    for (const stream of open) stream.close(retryMs);
  }
}
