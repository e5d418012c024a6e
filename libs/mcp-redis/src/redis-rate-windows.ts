import type { McpRateWindow, McpRateWindows } from '@nest-mcp/server/backend';
import { sessionScriptKeys, type RedisKeys } from './redis-keys.js';
import type { RedisScripts } from './redis-scripts.js';

/**
 * Rate-limit windows in Redis, counted by one script per hit: a session's window lives with
 * the session (removed by its end, never re-created after it); a caller without a session gets
 * a window that expires by itself.
 */
export class RedisRateWindows implements McpRateWindows {
  constructor(
    private readonly scripts: RedisScripts,
    private readonly keys: RedisKeys,
  ) {}

  async hit(key: string, windowMs: number, now: number): Promise<McpRateWindow> {
    const sessionId = key.startsWith('s:') ? key.slice(2) : '';
    // The session's bucket (its window lives with the session), or the caller's own key.
    const slot =
      sessionId !== ''
        ? sessionScriptKeys(this.keys, this.keys.bucketOf(sessionId), [sessionId], ['hash', 'rl'])
        : [this.keys.rateWindow(key)];
    const [count, start] = await this.scripts.run<[number, number]>('mcpRateHit', slot, key, windowMs, now, sessionId);
    return { count, start };
  }
}
