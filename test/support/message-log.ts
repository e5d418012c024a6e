/**
 * What a test client has received, in order, and the waits on it. Shared by the SSE, WebSocket,
 * stdio and raw HTTP clients. A wait is settled by the push that matches it, by the end of the
 * log, or by its own timeout; nothing polls or sleeps.
 */
export class MessageLog<T> {
  private readonly items: T[] = [];
  private readonly waiters = new Set<(item: T | undefined, index: number) => void>();
  private endReason: string | undefined;

  /**
   * @param what names one message in failure texts ("SSE event", "stdout message").
   * @param describe what a failure text shows of the log; by default the messages, clipped.
   */
  constructor(
    private readonly what: string,
    private readonly describe: () => string = () => `got ${clip(JSON.stringify(this.items), this.items.length)}`,
  ) {}

  /** Every message so far, in order. The array is live: it grows as messages arrive. */
  all(): readonly T[] {
    return this.items;
  }

  get length(): number {
    return this.items.length;
  }

  /** True once {@link end} was called. */
  get ended(): boolean {
    return this.endReason !== undefined;
  }

  /** Appends one message and settles every wait it matches; returns its position. */
  push(item: T): number {
    const index = this.items.push(item) - 1;
    for (const waiter of [...this.waiters]) waiter(item, index);
    return index;
  }

  /**
   * No message will follow (stream ended, socket closed, process exited): pending waits fail
   * now, later ones fail at once unless a message already received matches. The first reason
   * is kept.
   */
  end(reason: string): void {
    this.endReason ??= reason;
    for (const waiter of [...this.waiters]) waiter(undefined, -1);
  }

  /**
   * The first message at position >= `fromIndex` that matches, already received or future.
   * Rejects after `timeoutMs`, or as soon as the log ends without one.
   */
  waitFor(predicate: (item: T, index: number) => boolean, timeoutMs = 5_000, fromIndex = 0): Promise<T> {
    for (let index = fromIndex; index < this.items.length; index++) {
      if (predicate(this.items[index], index)) return Promise.resolve(this.items[index]);
    }
    if (this.endReason !== undefined) return Promise.reject(this.endedWithout());
    return new Promise<T>((resolve, reject) => {
      const waiter = (item: T | undefined, index: number): void => {
        if (index === -1) {
          settle();
          reject(this.endedWithout());
        } else if (index >= fromIndex && predicate(item as T, index)) {
          settle();
          resolve(item as T);
        }
      };
      const settle = (): void => {
        clearTimeout(timer);
        this.waiters.delete(waiter);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new Error(`no matching ${this.what} within ${timeoutMs} ms (${this.describe()})`));
      }, timeoutMs);
      this.waiters.add(waiter);
    });
  }

  private endedWithout(): Error {
    return new Error(`${this.endReason} without a matching ${this.what} (${this.describe()})`);
  }
}

/** `text` cut to 2,000 characters, saying how many messages there were when it is cut. */
export function clip(text: string, count: number): string {
  return text.length > 2_000 ? `${text.slice(0, 2_000)}... (${count} messages)` : text;
}
