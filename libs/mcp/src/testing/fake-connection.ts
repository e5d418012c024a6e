import type { McpConnection } from '../backend/mcp-session.store.js';

/** One message a fake connection took. */
export interface SentMessage {
  readonly json: string;
  readonly eventId?: string;
  /** `json` parsed. */
  readonly message: { id?: unknown; method?: string; params?: { uri?: string } & Record<string, unknown> };
}

/**
 * A live channel that records what it is sent, for backend tests. Waits resolve on the message
 * (or the close) itself, bounded in time; nothing sleeps.
 */
export class FakeConnection implements McpConnection {
  readonly sent: SentMessage[] = [];
  closed = false;
  /** The `retryMs` it was closed with (a drain gives one). */
  closedWith?: number;
  private readonly waiters = new Set<() => void>();

  send(json: string, eventId?: string): boolean {
    if (this.closed) return false;
    this.sent.push({ json, eventId, message: JSON.parse(json) as SentMessage['message'] });
    this.wake();
    return true;
  }

  close(retryMs?: number): void {
    if (this.closed) return;
    this.closed = true;
    this.closedWith = retryMs;
    this.wake();
  }

  /** `method uri` (or `method`) of every message, in order. */
  get summary(): string[] {
    return this.sent.map(({ message }) =>
      message.params?.uri ? `${message.method} ${message.params.uri}` : String(message.method ?? message.id),
    );
  }

  /** The first message at index >= `from` that matches; rejects after `timeoutMs`. */
  waitFor(predicate: (sent: SentMessage) => boolean, from = 0, timeoutMs = 5_000): Promise<SentMessage> {
    return this.until(
      () => this.sent.slice(from).find(predicate),
      timeoutMs,
      () => `no matching message after index ${from} (got ${JSON.stringify(this.summary)})`,
    );
  }

  /** Resolves with the message count once at least `count` messages arrived. */
  waitForCount(count: number, timeoutMs = 5_000): Promise<number> {
    return this.until(
      () => (this.sent.length >= count ? this.sent.length : undefined),
      timeoutMs,
      () => `${this.sent.length} of ${count} messages (got ${JSON.stringify(this.summary)})`,
    );
  }

  /** Resolves when the connection was closed. */
  waitClosed(timeoutMs = 5_000): Promise<true> {
    return this.until(
      () => (this.closed ? true : undefined),
      timeoutMs,
      () => 'the connection was not closed',
    );
  }

  private until<T>(check: () => T | undefined, timeoutMs: number, describe: () => string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const attempt = (): boolean => {
        const found = check();
        if (found === undefined) return false;
        clearTimeout(timer);
        this.waiters.delete(attempt);
        resolve(found);
        return true;
      };
      const timer = setTimeout(() => {
        this.waiters.delete(attempt);
        reject(new Error(`${describe()} within ${timeoutMs} ms`));
      }, timeoutMs);
      if (!attempt()) this.waiters.add(attempt);
    });
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}

/** `notifications/resources/updated` for `uri`. */
export const updated =
  (uri: string) =>
  (sent: SentMessage): boolean =>
    sent.message.method === 'notifications/resources/updated' && sent.message.params?.uri === uri;

/** Any `notifications/<list>/list_changed`. */
export const listChanged = (sent: SentMessage): boolean => /\/list_changed$/.test(sent.message.method ?? '');
