import { McpBackendUnavailableError } from '../mcp-backend.interface.js';
import type { McpRequestStateNonces } from '../mcp-request-state-nonces.js';

/** Nonces remembered at once by default: about 10 MB, a sustained 330 retries a second for five minutes. */
export const DEFAULT_MAX_REMEMBERED_NONCES = 100_000;

/**
 * Consumed request-state nonces in this process, each until its state's expiry. Bounded: when
 * `capacity` unexpired nonces are held, a further one is refused as a busy backend (503) rather
 * than letting an older nonce go early, which would let its state be replayed.
 */
export class InMemoryRequestStateNonces implements McpRequestStateNonces {
  /** Nonce → expiry, in the order consumed (about the order of expiry: states share one lifetime). */
  private readonly used = new Map<string, number>();

  constructor(
    private readonly capacity = DEFAULT_MAX_REMEMBERED_NONCES,
    private readonly clock: () => number = Date.now,
  ) {}

  consume(nonce: string, expiresAt: number): Promise<boolean> {
    const now = this.clock();
    this.forgetExpired(now, false);
    if (this.used.has(nonce)) return Promise.resolve(false);
    if (this.used.size >= this.capacity) this.forgetExpired(now, true);
    if (this.used.size >= this.capacity) {
      return Promise.reject(
        new McpBackendUnavailableError(`${this.capacity} request states are in use: retry when some have expired`),
      );
    }
    this.used.set(nonce, expiresAt);
    return Promise.resolve(true);
  }

  /** Remembered nonces (for tests). */
  get size(): number {
    return this.used.size;
  }

  /**
   * Drops expired nonces: from the oldest until the first live one (cheap, every call), or all
   * of them (`everywhere`, when full: a nonce consumed late may expire before older ones).
   */
  private forgetExpired(now: number, everywhere: boolean): void {
    for (const [nonce, expiresAt] of this.used) {
      // A state is presentable up to and including its expiry instant.
      if (expiresAt >= now) {
        if (everywhere) continue;
        return;
      }
      this.used.delete(nonce);
    }
  }
}
