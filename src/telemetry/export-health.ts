/** Where the health of the exports is told: the gateway's log. */
export interface ExportHealthLog {
  warn(message: string): void;
  log(message: string): void;
}

/** An OpenTelemetry export result (`ExportResult` of `@opentelemetry/core`): 0 is success. */
interface ExportResult {
  readonly code: number;
  readonly error?: Error;
}

type ExportCallback = (result: ExportResult) => void;

/**
 * Whether the exports reach their collector. The SDK's exporters fail silently (or once per batch
 * with `OTEL_LOG_LEVEL`): this says once that they fail, and once that they succeed again, so an
 * unreachable collector is one line in the log, not none and not one per batch.
 */
export class ExportHealth {
  private failing = false;
  /** When each export still unanswered began (the exporter retries an unreachable collector). */
  private readonly pending = new Map<object, number>();

  constructor(
    private readonly log: ExportHealthLog,
    /** Where the exports go, for the line. */
    private readonly destination: string,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** True since an export failed, until one succeeds. */
  get isFailing(): boolean {
    return this.failing;
  }

  /**
   * True when the collector looks unreachable: the last export failed, or one has gone unanswered
   * for `ms` (a reachable collector answers in milliseconds; an unreachable one is retried for
   * the exporter's whole timeout).
   */
  stalled(ms: number): boolean {
    if (this.failing) return true;
    const now = this.now();
    for (const started of this.pending.values()) if (now - started >= ms) return true;
    return false;
  }

  succeeded(): void {
    if (!this.failing) return;
    this.failing = false;
    this.log.log(`OpenTelemetry exports to ${this.destination} succeed again`);
  }

  failed(signal: string, error: Error | undefined): void {
    if (this.failing) return;
    this.failing = true;
    const why = error?.message ? `: ${error.message}` : '';
    this.log.warn(
      `OpenTelemetry exports to ${this.destination} fail (${signal}${why}); what they carry is lost until they succeed again, which will be logged`,
    );
  }

  /**
   * `exporter` with its `export` observed (a span or metric exporter: everything else, such as a
   * metric exporter's temporality selection, passes through unchanged).
   */
  observe<T extends object>(exporter: T, signal: string): T {
    return new Proxy(exporter, {
      get: (target, property, receiver) => {
        const value: unknown = Reflect.get(target, property, receiver);
        if (property !== 'export' || typeof value !== 'function') {
          return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
        }
        return (items: unknown, done: ExportCallback) => {
          const token = {};
          this.pending.set(token, this.now());
          (value as (items: unknown, done: ExportCallback) => void).call(target, items, (result: ExportResult) => {
            this.pending.delete(token);
            if (result.code === 0) this.succeeded();
            else this.failed(signal, result.error);
            done(result);
          });
        };
      },
    });
  }
}
