import { Inject, Injectable, Optional, type OnModuleInit } from '@nestjs/common';
import { MCP_RATE_WINDOWS } from '../backend/mcp-backend.tokens.js';
import type { McpRateWindow, McpRateWindows } from '../backend/mcp-rate-windows.js';
import type { McpRequestContext } from '../context/mcp-request-context.js';
import { McpException } from '../errors/mcp.exception.js';
import { McpSessionManager } from '../session/mcp-session.manager.js';
import { JsonRpcErrorCode } from '../model/json-rpc.js';
import { callerKeyOf } from '../auth/caller-key.js';
import type { McpRateBudget } from '../extension/mcp-extension.interface.js';
import { McpOptions, type McpOptionGroup } from '../mcp-option-groups.js';

/** Callers without a session tracked at once; the table is cleared when it fills. */
const MAX_ANONYMOUS_KEYS = 10_000;
/** Windows held before the stale ones (their period over) are swept out. */
const FIRST_PRUNE_AT = 1_024;

interface Window {
  start: number;
  count: number;
}

/**
 * The optional `toolRateLimit`: at most `limit` tool calls per `windowMs` per session (or per
 * remote address without a session). Past it, `tools/call` answers `-32004` with
 * `data.retryAfterMs`, before the tool or its guards run. With a shared backend that provides
 * `rateWindows` (Redis), the windows are counted there, so every instance applies one limit;
 * otherwise they are counted in this process.
 */
@Injectable()
export class McpToolRateLimiter implements OnModuleInit {
  private readonly windows = new Map<string, Window>();
  private anonymous = 0;
  private pruneAt = FIRST_PRUNE_AT;

  constructor(
    @McpOptions('limits') private readonly options: McpOptionGroup<'limits'>,
    private readonly sessions: McpSessionManager,
    @Optional() @Inject(MCP_RATE_WINDOWS) private readonly shared?: McpRateWindows,
  ) {}

  onModuleInit(): void {
    this.sessions.onSessionEnd((sessionId) => {
      this.windows.delete(`s:${sessionId}`);
    });
  }

  /**
   * Counts one request of the caller of `ctx` against `budget`: its tool calls (`toolRateLimit`),
   * or its `tasks/*` requests (a poll, a result, a cancel...: `tasks.pollRateLimit`, in windows
   * of their own, so polls neither use up the tool calls' budget nor are free). Throws (or
   * rejects, with shared windows) `-32004` past the limit. Without the limit it costs nothing.
   */
  take(ctx: McpRequestContext, budget: McpRateBudget = 'toolCalls'): void | Promise<void> {
    const tasks = budget === 'taskRequests';
    // No limit (the default): the caller's key is not even looked up.
    const rule = tasks ? this.options.taskPollRateLimit : this.options.toolRateLimit;
    if (!rule) return undefined;
    const key = keyOf(ctx);
    if (key === undefined) return undefined;
    return tasks ? this.hit(`tp:${key}`, rule, 'task requests') : this.hit(key, rule, 'tool calls');
  }

  private hit(key: string, rule: RateRule, what: string): void | Promise<void> {
    const now = Date.now();
    if (this.shared) return this.shared.hit(key, rule.windowMs, now).then((window) => check(window, rule, now, what));
    check(this.hitLocal(key, rule.windowMs, now), rule, now, what);
  }

  private hitLocal(key: string, windowMs: number, now: number): McpRateWindow {
    let window = this.windows.get(key);
    if (!window || now - window.start >= windowMs) {
      if (!window && !key.startsWith('s:') && ++this.anonymous > MAX_ANONYMOUS_KEYS) this.forgetAnonymous();
      window = { start: now, count: 0 };
      this.windows.set(key, window);
      if (this.windows.size > this.pruneAt) this.pruneStale(now, windowMs);
    }
    window.count += 1;
    return window;
  }

  /**
   * Drops windows whose period is over. A window re-created by a call that raced its session's
   * end would otherwise stay forever: this bounds the table by the callers of one period.
   */
  private pruneStale(now: number, windowMs: number): void {
    for (const [key, window] of this.windows) if (now - window.start >= windowMs) this.windows.delete(key);
    this.pruneAt = Math.max(FIRST_PRUNE_AT, 2 * this.windows.size);
  }

  private forgetAnonymous(): void {
    for (const key of this.windows.keys()) if (!key.startsWith('s:')) this.windows.delete(key);
    this.anonymous = 1;
  }
}

interface RateRule {
  readonly limit: number;
  readonly windowMs: number;
}

/** Throws `-32004` when the window is past the limit. */
function check(window: McpRateWindow, rule: RateRule, now: number, what: string): void {
  if (window.count <= rule.limit) return;
  const retryAfterMs = window.start + rule.windowMs - now;
  throw new McpException(
    JsonRpcErrorCode.TooManyRequests,
    'Too many requests',
    `At most ${rule.limit} ${what} per ${rule.windowMs} ms; retry in ${retryAfterMs} ms`,
    { retryAfterMs, limit: rule.limit, windowMs: rule.windowMs },
    // Over HTTP the answer is a 429 a client or proxy can act on.
    { status: 429, headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterMs / 1000))) } },
  );
}

/**
 * The principal in resource-server mode (a client cannot shed it by opening sessions), else the
 * session, else the remote address of an HTTP request; stdio has a single caller.
 */
function keyOf(ctx: McpRequestContext): string | undefined {
  // Each read once: the context's getters read through to the request's facts.
  const auth = ctx.auth;
  if (auth) return callerKeyOf(auth, ctx.request);
  const sessionId = ctx.sessionId;
  if (sessionId) return `s:${sessionId}`;
  return callerKeyOf(undefined, ctx.request);
}
