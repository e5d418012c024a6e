/** The state of one fixed rate-limit window after a hit. @publicApi */
export interface McpRateWindow {
  /** Hits in the current window, this one included. */
  readonly count: number;
  /** When the current window started (epoch ms). */
  readonly start: number;
}

/**
 * Fixed-window hit counters shared by every instance: a backend seam (see `McpBackend`) for
 * `toolRateLimit`, so that a client spreading its calls over several instances meets one limit.
 * Keys of a session (`s:<sessionId>`) are removed with the session.
 * @publicApi
 */
export interface McpRateWindows {
  /**
   * Counts one hit of `key` at `now` in windows of `windowMs`, in one step: a window older than
   * `windowMs` is restarted at `now`.
   */
  hit(key: string, windowMs: number, now: number): Promise<McpRateWindow>;
}
