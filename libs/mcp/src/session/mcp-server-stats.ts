import { Injectable } from '@nestjs/common';

/** Counters of the running server, for health and metrics endpoints. @publicApi */
@Injectable()
export class McpServerStats {
  private served = 0;
  readonly startedAt = Date.now();

  /** JSON-RPC requests answered since startup (notifications are not counted). */
  get requestsServed(): number {
    return this.served;
  }

  /** @internal Called by the dispatcher once per request. */
  recordRequest(): void {
    this.served += 1;
  }
}
