import type { Attributes, Histogram } from '@opentelemetry/api';

interface Started {
  readonly at: number;
  readonly attributes: Attributes;
}

/**
 * `mcp.server.session.duration`: the instance that began a session remembers when, and records
 * its duration when the session ends, however and wherever it ends (every instance hears every
 * end; the others know nothing of it and record nothing, so each session counts once). At most
 * `cap` sessions are remembered: past it the oldest is forgotten (its end, if it ever comes,
 * records nothing), so an end that was never told cannot grow the table for ever.
 */
export class SessionDurations {
  private readonly open = new Map<string, Started>();

  constructor(
    private readonly histogram: Histogram,
    private readonly cap: number,
  ) {}

  started(id: string, at: number, attributes: Attributes): void {
    if (this.open.size >= this.cap) {
      const oldest = this.open.keys().next();
      if (!oldest.done) this.open.delete(oldest.value);
    }
    this.open.set(id, { at, attributes });
  }

  ended(id: string): void {
    const started = this.open.get(id);
    if (!started) return;
    this.open.delete(id);
    this.histogram.record(Math.max(0, Date.now() - started.at) / 1000, started.attributes);
  }

  /** Sessions remembered now (for tests). */
  get size(): number {
    return this.open.size;
  }
}
