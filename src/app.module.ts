import { Module, type DynamicModule, type Provider } from '@nestjs/common';
import { fileURLToPath } from 'node:url';
import {
  McpJwtVerifier,
  McpModule,
  McpToolLoggingHook,
  McpToolMetricsHook,
  type McpAuthOptions,
  type McpBackend,
} from '@app/mcp';
import { RedisMcpBackend } from '@nest-mcp/redis';
import { DemoPrompts } from './demo/demo.prompts.js';
import { DemoResources } from './demo/demo.resources.js';
import { DemoTools } from './demo/demo.tools.js';
import { NotesPrompts } from './notes/notes.prompts.js';
import { NotesResources } from './notes/notes.resources.js';
import { InMemoryNotesStore, NotesStore } from './notes/notes.store.js';
import { RedisNotesStore } from './notes/redis-notes.store.js';
import { redisTargetOf } from './redis-target.js';
import { NotesExportTools } from './notes/notes-export.tools.js';
import { NotesSummaryTools } from './notes/notes-summary.tools.js';
import { NotesTools } from './notes/notes.tools.js';
import { NotesPublisher } from './notes/notes.publisher.js';
import { NotesBoardApp } from './notes/board/notes-board.app.js';
import { NotesBoardTools } from './notes/board/notes-board.tools.js';
import { GATEWAY_CONFIG, type GatewayConfig } from './gateway.config.js';
import { GATEWAY_NAME, GATEWAY_VERSION } from './gateway.info.js';
import type { GatewayTelemetry } from './telemetry/otel-sdk.js';
import { telemetryProviders } from './telemetry/gateway-telemetry.providers.js';

/**
 * The gateway's Agent Skills (docs/skills.md): `src/skills` beside this file, copied next to the
 * built file by `nest build` (nest-cli.json assets), so the same path works from both.
 */
export const GATEWAY_SKILLS_DIR = fileURLToPath(new URL('./skills', import.meta.url));

/** The reference gateway: the library plus a demo of every feature. */
@Module({})
export class AppModule {
  /** `telemetry`: the OpenTelemetry SDK main.ts started, flushed when the application closes. */
  static forConfig(config: GatewayConfig, telemetry?: GatewayTelemetry): DynamicModule {
    return {
      module: AppModule,
      imports: [
        McpModule.forRoot({
          serverInfo: {
            name: GATEWAY_NAME,
            version: GATEWAY_VERSION,
            title: 'MCP Resource Gateway',
            description: 'The reference gateway of the NestJS MCP library',
          },
          instructions:
            'Tools: echo, add, notes.create, notes.update, notes.delete, notes.clear (asks to confirm), notes.summarize (asks the client to sample), notes.board (shows the notes board, an MCP App, in hosts that render apps), notes.export (exports every note as json or markdown, one step per note; a client that can poll tasks gets it as a task). Resources: system://info, system://metrics, config://gateway, db://notes, db://notes/latest, one db://notes/<id> per note, and the README. Subscribe to a URI to hear when it changes. Skill: skill://notes/SKILL.md (how to search, summarize and export the notes).',
          protocolVersion: config.protocolVersion,
          protocol: config.protocolEras,
          wireProfile: config.wireProfile,
          sessions: {
            enabled: !config.stateless,
            idleTimeoutMs: config.sessionIdleTimeoutMs,
            cleanupIntervalMs: config.sessionCleanupIntervalMs,
          },
          transport: { allowedHosts: allowedHostsFor(config) },
          modern: { requestStateKeys: config.requestStateKeys },
          // Every transport at once over HTTP; stdio mode opens no listener
          // (docs/decisions/0008-one-session-model-for-every-transport.md).
          http: config.stdio ? false : { path: '/mcp' },
          ws: config.stdio ? false : { path: '/ws' },
          sse: config.stdio ? false : { path: '/sse', messagesPath: '/messages' },
          stdio: config.stdio,
          auth: authOptionsFor(config),
          backend: backendFor(config),
          telemetry: config.telemetry,
          skills: {
            directories: [GATEWAY_SKILLS_DIR],
            watch: config.skillsWatch,
            // The notes skill teaches tools that need notes:read: a caller without it is not shown
            // a skill it cannot act on (with authorization on; without it, every caller sees it).
            requiredScopes: { notes: ['notes:read'] },
          },
        }),
      ],
      providers: [
        { provide: GATEWAY_CONFIG, useValue: config },
        // Tool lifecycle hooks, run in this order: logging, then metrics (system://tool-metrics).
        McpToolLoggingHook,
        McpToolMetricsHook,
        DemoTools,
        DemoResources,
        DemoPrompts,
        notesStoreFor(config),
        NotesPublisher,
        NotesTools,
        NotesSummaryTools,
        NotesExportTools,
        NotesResources,
        NotesPrompts,
        NotesBoardApp,
        NotesBoardTools,
        ...telemetryProviders(config, telemetry),
      ],
    };
  }
}

/** The scopes of the notes: reading and writing them. Everything else needs a valid token only. */
export const GATEWAY_SCOPES = ['notes:read', 'notes:write'];

/** Resource-server mode from `MCP_AUTH_ISSUER` (stdio stays local and unauthenticated). */
function authOptionsFor(config: GatewayConfig): McpAuthOptions | undefined {
  if (!config.auth || config.stdio) return undefined;
  const { issuer, audience, jwksUri } = config.auth;
  return {
    resource: audience,
    authorizationServers: [issuer],
    scopesSupported: GATEWAY_SCOPES,
    resourceName: 'MCP Resource Gateway',
    verifier: new McpJwtVerifier({ issuer, audience, jwksUri }),
  };
}

/** The in-memory backend by default; Redis when `REDIS_URL` is set, a Redis Cluster when `REDIS_CLUSTER_NODES` is. */
function backendFor(config: GatewayConfig): McpBackend | undefined {
  const target = redisTargetOf(config);
  if (!target) return undefined;
  return new RedisMcpBackend({
    ...(target.clusterNodes ? { clusterNodes: target.clusterNodes, redis: target.nodeOptions } : { url: target.url }),
    instanceId: config.instanceId,
    keyPrefix: config.redisKeyPrefix,
    heartbeatMs: config.redisHeartbeatMs,
  });
}

/** The demo's notes: in memory, or in Redis beside the sessions so every instance sees them. */
function notesStoreFor(config: GatewayConfig): Provider {
  const target = redisTargetOf(config);
  if (!target) return { provide: NotesStore, useClass: InMemoryNotesStore };
  const { redisKeyPrefix } = config;
  return { provide: NotesStore, useFactory: () => new RedisNotesStore(target, redisKeyPrefix) };
}

/** Localhost names by default; a non-loopback bind address must also be allowed as Host. */
function allowedHostsFor(config: GatewayConfig): string[] | undefined {
  const host = config.url.hostname;
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(host);
  return loopback ? undefined : ['localhost', '127.0.0.1', '[::1]', host];
}
