import type { McpRateWindow, McpRateWindows } from '@nest-mcp/server/backend';
import type { RedisScripts } from './redis-scripts.js';

/**
 * Rate-limit windows in Redis, counted by one script per hit: a session's window lives with
 * the session (removed by its end, never re-created after it); a caller without a session gets
 * a window that expires by itself.
 */
export class RedisRateWindows implements McpRateWindows {
  constructor(private readonly scripts: RedisScripts) {}

  async hit(key: string, windowMs: number, now: number): Promise<McpRateWindow> {
    const sessionId = key.startsWith('s:') ? key.slice(2) : '';
    const [count, start] = await this.scripts.run<[number, number]>('mcpRateHit', key, windowMs, now, sessionId);
    return { count, start };
  }
}
