import { Inject, Injectable, type OnApplicationShutdown, type Provider } from '@nestjs/common';
import type { McpModuleOptions, ResolvedMcpOptions } from './interfaces/mcp-module-options.interface.js';
import { MCP_MODULE_OPTIONS } from './mcp.module-definition.js';
import { MCP_RESOLVED_OPTIONS } from './mcp.constants.js';
import { McpTelemetry } from './telemetry/mcp-telemetry.js';
import { InMemoryMcpBackend } from './backend/in-memory/in-memory.backend.js';
import { InMemorySkillStore } from './backend/in-memory/in-memory-skill.store.js';
import { LocalInstanceMessaging } from './backend/in-memory/local-instance-messaging.js';
import type { McpBackendParts } from './backend/mcp-backend.interface.js';
import {
  MCP_BACKEND_PARTS,
  MCP_FANOUT,
  MCP_INSTANCE_MESSAGING,
  MCP_LIVE_STREAMS,
  MCP_POST_STREAMS,
  MCP_RATE_WINDOWS,
  MCP_REQUEST_STATE_NONCES,
  MCP_SESSION_STORE,
  MCP_SUBSCRIPTION_STORE,
  MCP_SKILL_STORE,
  MCP_TASK_STORE,
} from './backend/mcp-backend.tokens.js';
import { traceFanout } from './notifications/traced-fanout.js';

/** Closes the backend's connections and timers when the application shuts down. */
@Injectable()
export class McpBackendLifecycle implements OnApplicationShutdown {
  constructor(@Inject(MCP_BACKEND_PARTS) private readonly parts: McpBackendParts) {}

  async onApplicationShutdown(): Promise<void> {
    await this.parts.close?.();
  }
}

/**
 * The backend seams as providers: the parts are built once from `options.backend` (the
 * in-memory one by default), and each seam is provided from them, so an application's backend
 * is what every consumer gets.
 */
export const MCP_BACKEND_PROVIDERS: Provider[] = [
  {
    provide: MCP_BACKEND_PARTS,
    useFactory: (raw: McpModuleOptions, options: ResolvedMcpOptions, telemetry: McpTelemetry) =>
      (raw.backend ?? new InMemoryMcpBackend()).connect({ options, telemetry: telemetry.forBackend() }),
    inject: [MCP_MODULE_OPTIONS, MCP_RESOLVED_OPTIONS, McpTelemetry],
  },
  { provide: MCP_SESSION_STORE, useFactory: (parts: McpBackendParts) => parts.sessions, inject: [MCP_BACKEND_PARTS] },
  {
    provide: MCP_SUBSCRIPTION_STORE,
    useFactory: (parts: McpBackendParts) => parts.subscriptions,
    inject: [MCP_BACKEND_PARTS],
  },
  {
    provide: MCP_FANOUT,
    useFactory: (parts: McpBackendParts, telemetry: McpTelemetry) => traceFanout(parts.fanout, telemetry),
    inject: [MCP_BACKEND_PARTS, McpTelemetry],
  },
  { provide: MCP_LIVE_STREAMS, useFactory: (parts: McpBackendParts) => parts.liveStreams, inject: [MCP_BACKEND_PARTS] },
  { provide: MCP_POST_STREAMS, useFactory: (parts: McpBackendParts) => parts.postStreams, inject: [MCP_BACKEND_PARTS] },
  {
    provide: MCP_INSTANCE_MESSAGING,
    useFactory: (parts: McpBackendParts) => parts.messaging ?? new LocalInstanceMessaging(),
    inject: [MCP_BACKEND_PARTS],
  },
  {
    provide: MCP_RATE_WINDOWS,
    // Optional: absent, the rate limiter counts in this process.
    useFactory: (parts: McpBackendParts) => parts.rateWindows ?? null,
    inject: [MCP_BACKEND_PARTS],
  },
  {
    provide: MCP_REQUEST_STATE_NONCES,
    // Optional: absent, consumed nonces are remembered in this process (see McpMrtr).
    useFactory: (parts: McpBackendParts) => parts.requestStateNonces ?? null,
    inject: [MCP_BACKEND_PARTS],
  },
  {
    provide: MCP_TASK_STORE,
    // Optional: absent, tasks live in this process (see McpTasks).
    useFactory: (parts: McpBackendParts) => parts.tasks ?? null,
    inject: [MCP_BACKEND_PARTS],
  },
  {
    provide: MCP_SKILL_STORE,
    // Optional: absent, runtime skills live in this process (served by the instance that registered them).
    useFactory: (parts: McpBackendParts) => parts.skills ?? new InMemorySkillStore(),
    inject: [MCP_BACKEND_PARTS],
  },
  McpBackendLifecycle,
];
