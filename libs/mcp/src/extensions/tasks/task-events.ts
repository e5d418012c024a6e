import { Inject, Injectable } from '@nestjs/common';
import { McpLogger } from '../../logging/mcp-logger.js';
import { MCP_INSTANCE_MESSAGING } from '../../backend/mcp-backend.tokens.js';
import { MCP_ALL_INSTANCES, type McpInstanceMessaging } from '../../backend/mcp-instance-messaging.js';

/** The topic under which a task's change is announced to the other instances. */
const CHANGED_TOPIC = 'task-changed';

type ChangeListener = () => void;

/**
 * "This task changed" hints, on this instance and across instances: whoever changes a task in
 * the store (the instance running it, one that cancelled it or answered its input, one that
 * found it orphaned) announces it here, and whoever waits on it (a `subscriptions/listen` asking
 * for its status, a 2025-11-25 `tasks/result`) reads it again from the store. A hint carries only
 * the id: one small broadcast per change of status, whatever the result's size, and only the
 * instances with someone waiting read it. A hint that is lost is caught up by the waiter's own
 * poll.
 */
@Injectable()
export class McpTaskEvents {
  private readonly logger = new McpLogger('McpTasks');
  private readonly listeners = new Map<string, Set<ChangeListener>>();

  constructor(@Inject(MCP_INSTANCE_MESSAGING) private readonly messaging: McpInstanceMessaging) {
    messaging.on(CHANGED_TOPIC, (payload) => {
      const taskId = (payload as { taskId?: unknown } | null)?.taskId;
      if (typeof taskId === 'string') this.tell(taskId);
    });
  }

  /** A task changed (here): its listeners here are told at once, every other instance's by a broadcast. */
  changed(taskId: string): void {
    this.tell(taskId);
    this.messaging.send(MCP_ALL_INSTANCES, CHANGED_TOPIC, { taskId });
  }

  /** Calls `listener` on each change of the task until the returned function is called. */
  watch(taskId: string, listener: ChangeListener): () => void {
    let listeners = this.listeners.get(taskId);
    if (!listeners) this.listeners.set(taskId, (listeners = new Set()));
    listeners.add(listener);
    return () => {
      if (!listeners.delete(listener)) return;
      if (listeners.size === 0 && this.listeners.get(taskId) === listeners) this.listeners.delete(taskId);
    };
  }

  /** Tasks watched on this instance (for tests). */
  get watched(): number {
    return this.listeners.size;
  }

  private tell(taskId: string): void {
    for (const listener of [...(this.listeners.get(taskId) ?? [])]) {
      try {
        listener();
      } catch (error) {
        this.logger.error(`A task change listener failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }
}
