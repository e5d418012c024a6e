/** Kept for an ended task that has no result (a failure with an error only). */
export const NO_RESULT = Symbol('no result');

type Cached = Record<string, unknown> | typeof NO_RESULT;

/** What an entry costs beside its result, counted so that entries without one are bounded too. */
const ENTRY_BYTES = 128;

/**
 * The results of ended tasks, by task id, least recently read out first once they pass
 * `maxBytes` (bytes of their JSON; one larger than that is not kept). A result never changes
 * once stored, so a copy here is never stale; whether the task still exists, and who may read
 * it, is checked in the store on every read.
 */
export class TaskResultCache {
  private readonly entries = new Map<string, { value: Cached; bytes: number }>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get(taskId: string): Cached | undefined {
    const entry = this.entries.get(taskId);
    if (!entry) return undefined;
    // Read lately: to the back of the line.
    this.entries.delete(taskId);
    this.entries.set(taskId, entry);
    return entry.value;
  }

  set(taskId: string, value: Cached): void {
    const bytes = ENTRY_BYTES + (value === NO_RESULT ? 0 : Buffer.byteLength(JSON.stringify(value)));
    if (bytes > this.maxBytes) return;
    const previous = this.entries.get(taskId);
    if (previous) {
      this.entries.delete(taskId);
      this.bytes -= previous.bytes;
    }
    this.entries.set(taskId, { value, bytes });
    this.bytes += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= entry.bytes;
    }
  }

  /** Entries held (for tests). */
  get size(): number {
    return this.entries.size;
  }
}
