import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import type { McpRequestContext } from '../context/mcp-request-context.js';
import { McpException } from '../errors/mcp.exception.js';
import type { ResolvedMcpOptions } from '../interfaces/mcp-module-options.interface.js';
import { MCP_RESOLVED_OPTIONS } from '../mcp-options.resolver.js';
import { McpSessionManager } from '../session/mcp-session.manager.js';
import { JsonRpcErrorCode } from './json-rpc.js';

/** Callers without a session tracked at once; the table is cleared when it fills. */
const MAX_ANONYMOUS_KEYS = 10_000;

interface Window {
  start: number;
  count: number;
}

/**
 * The optional `toolRateLimit`: at most `limit` tool calls per `windowMs` per session (or per
 * remote address without a session). Past it, `tools/call` answers `-32004` with
 * `data.retryAfterMs`, before the tool or its guards run.
 */
@Injectable()
export class McpToolRateLimiter implements OnModuleInit {
  private readonly windows = new Map<string, Window>();
  private anonymous = 0;

  constructor(
    @Inject(MCP_RESOLVED_OPTIONS) private readonly options: ResolvedMcpOptions,
    private readonly sessions: McpSessionManager,
  ) {}

  onModuleInit(): void {
    this.sessions.onSessionEnd((sessionId) => {
      this.windows.delete(`s:${sessionId}`);
    });
  }

  /** Counts one call of the caller of `ctx`; throws `-32004` past the limit. */
  take(ctx: McpRequestContext): void {
    const rule = this.options.toolRateLimit;
    if (!rule) return;
    const key = keyOf(ctx);
    if (!key) return;
    const now = Date.now();
    let window = this.windows.get(key);
    if (!window || now - window.start >= rule.windowMs) {
      if (!window && !key.startsWith('s:') && ++this.anonymous > MAX_ANONYMOUS_KEYS) this.forgetAnonymous();
      window = { start: now, count: 0 };
      this.windows.set(key, window);
    }
    window.count += 1;
    if (window.count > rule.limit) {
      const retryAfterMs = window.start + rule.windowMs - now;
      throw new McpException(
        JsonRpcErrorCode.TooManyRequests,
        'Too many requests',
        `At most ${rule.limit} tool calls per ${rule.windowMs} ms; retry in ${retryAfterMs} ms`,
        { retryAfterMs, limit: rule.limit, windowMs: rule.windowMs },
      );
    }
  }

  private forgetAnonymous(): void {
    for (const key of this.windows.keys()) if (!key.startsWith('s:')) this.windows.delete(key);
    this.anonymous = 1;
  }
}

/** The session, else the remote address of an HTTP request; stdio has a single caller. */
function keyOf(ctx: McpRequestContext): string | undefined {
  if (ctx.sessionId) return `s:${ctx.sessionId}`;
  const address = (ctx.request as IncomingMessage | undefined)?.socket?.remoteAddress;
  return address ? `a:${address}` : undefined;
}
