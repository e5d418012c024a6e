import type { McpBackend, McpBackendContext, McpBackendParts } from '../mcp-backend.interface.js';
import { DELIVERY_QUEUE_GAUGE } from '../delivery/delivery-queue.js';
import { InMemoryDelivery } from './in-memory-delivery.js';
import { InMemoryPostStreams } from './in-memory-post-streams.js';
import { InMemoryRequestStateNonces } from './in-memory-request-state-nonces.js';
import { InMemorySessionStore } from './in-memory-session.store.js';
import { InMemorySubscriptionStore } from './in-memory-subscription.store.js';
import { InMemorySkillStore } from './in-memory-skill.store.js';
import { InMemoryTaskStore } from '../../extensions/tasks/store/in-memory-task.store.js';

/**
 * The default backend: sessions, subscriptions, delivery, the replay guard of request states,
 * tasks and runtime skills in this process, nothing to install. Every part keeps its
 * per-session state under the one session table, so ending a session clears all of them in one
 * synchronous step. Fan-out and live streams are one object: a notification reaches a session through its stream.
 * @publicApi
 */
export class InMemoryMcpBackend implements McpBackend {
  connect({ options, telemetry }: McpBackendContext): McpBackendParts {
    const sessions = new InMemorySessionStore();
    const subscriptions = new InMemorySubscriptionStore(sessions);
    const delivery = new InMemoryDelivery(options, sessions, subscriptions);
    telemetry?.gauge(
      DELIVERY_QUEUE_GAUGE.name,
      DELIVERY_QUEUE_GAUGE.description,
      DELIVERY_QUEUE_GAUGE.unit,
      (observe) => observe(delivery.queued),
    );
    return {
      sessions,
      subscriptions,
      fanout: delivery,
      liveStreams: delivery,
      postStreams: new InMemoryPostStreams(options, sessions),
      requestStateNonces: new InMemoryRequestStateNonces(),
      tasks: new InMemoryTaskStore(),
      skills: new InMemorySkillStore(),
    };
  }
}
