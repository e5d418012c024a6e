import type { McpBackend, McpBackendContext, McpBackendParts } from '../mcp-backend.interface.js';
import { InMemoryNotificationBus } from './in-memory-notification.bus.js';
import { InMemoryRequestStateNonces } from './in-memory-request-state-nonces.js';
import { InMemorySessionStore } from './in-memory-session.store.js';
import { InMemorySubscriptionStore } from './in-memory-subscription.store.js';
import { InMemoryTaskStore } from './in-memory-task.store.js';

/**
 * The default backend: sessions, subscriptions, delivery, the replay guard of request states and
 * tasks in this process, nothing to install. Sessions, subscriptions and delivery share one session
 * table, so ending a session clears all of them in one synchronous step.
 * @publicApi
 */
export class InMemoryMcpBackend implements McpBackend {
  connect({ options }: McpBackendContext): McpBackendParts {
    const sessions = new InMemorySessionStore();
    const subscriptions = new InMemorySubscriptionStore(sessions);
    const bus = new InMemoryNotificationBus(options, sessions, subscriptions);
    const tasks = new InMemoryTaskStore();
    return { sessions, subscriptions, bus, requestStateNonces: new InMemoryRequestStateNonces(), tasks };
  }
}
