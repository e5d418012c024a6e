/**
 * `nest_mcp.delivery.queue.size`, as every backend registers it (through
 * `McpBackendContext.telemetry`): notification writes this instance accepted and has not made yet.
 */
export const DELIVERY_QUEUE_GAUGE = {
  name: 'delivery.queue.size',
  description:
    'Notification deliveries this instance accepted and has not written to their streams yet (the notifying request is answered first).',
  unit: '{delivery}',
} as const;

/**
 * Delivery work queued behind the request that caused it: the work runs in order, on the next
 * turn of the event loop, so a tool that notifies a thousand streams is answered before the
 * thousand writes happen, and a slow stream never holds up the notifying request.
 */
export class DeliveryQueue {
  private tasks: Array<() => void> = [];
  private waiters: Array<() => void> = [];
  private scheduled = false;

  constructor(private readonly onError: (error: unknown) => void) {}

  push(task: () => void): void {
    this.tasks.push(task);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  /** Deliveries queued and not run yet (`nest_mcp.delivery.queue.size`). */
  get size(): number {
    return this.tasks.length;
  }

  /** Resolves once everything queued so far has run. */
  drained(): Promise<void> {
    if (!this.scheduled) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private flush(): void {
    const tasks = this.tasks;
    const waiters = this.waiters;
    this.tasks = [];
    this.waiters = [];
    this.scheduled = false;
    for (const task of tasks) {
      try {
        task();
      } catch (error) {
        this.onError(error);
      }
    }
    for (const wake of waiters) wake();
  }
}
