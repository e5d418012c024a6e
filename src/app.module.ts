import { Module, type DynamicModule } from '@nestjs/common';
import { McpModule, McpToolLoggingHook, McpToolMetricsHook } from '@app/mcp';
import { DemoPrompts } from './demo/demo.prompts.js';
import { DemoResources } from './demo/demo.resources.js';
import { DemoTools } from './demo/demo.tools.js';
import { NotesPrompts } from './notes/notes.prompts.js';
import { NotesResources } from './notes/notes.resources.js';
import { NotesStore } from './notes/notes.store.js';
import { NotesTools } from './notes/notes.tools.js';
import { GATEWAY_CONFIG, type GatewayConfig } from './gateway.config.js';
import { GATEWAY_NAME, GATEWAY_VERSION } from './gateway.info.js';

/** The reference gateway: the library plus a demo of every feature. */
@Module({})
export class AppModule {
  static forConfig(config: GatewayConfig): DynamicModule {
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
            'Tools: echo, add, notes.create, notes.update, notes.delete. Resources: system://info, system://metrics, config://gateway, db://notes, db://notes/latest, one db://notes/<id> per note, and the README. Subscribe to a URI to hear when it changes.',
          protocolVersion: config.protocolVersion,
          sessions: !config.stateless,
          wireProfile: config.wireProfile,
          sessionIdleTimeoutMs: config.sessionIdleTimeoutMs,
          sessionCleanupIntervalMs: config.sessionCleanupIntervalMs,
          allowedHosts: allowedHostsFor(config),
          // Every transport at once over HTTP; stdio mode opens no listener (DECISIONS D6).
          http: config.stdio ? false : { path: '/mcp' },
          ws: config.stdio ? false : { path: '/ws' },
          sse: config.stdio ? false : { path: '/sse', messagesPath: '/messages' },
          stdio: config.stdio,
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
        NotesStore,
        NotesTools,
        NotesResources,
        NotesPrompts,
      ],
    };
  }
}

/** Localhost names by default; a non-loopback bind address must also be allowed as Host. */
function allowedHostsFor(config: GatewayConfig): string[] | undefined {
  const host = config.url.hostname;
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(host);
  return loopback ? undefined : ['localhost', '127.0.0.1', '[::1]', host];
}
