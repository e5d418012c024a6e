import { ConfigurableModuleBuilder, type DynamicModule, type Provider, type Type } from '@nestjs/common';
import type { McpModuleExtras, McpModuleOptions } from './interfaces/mcp-module-options.interface.js';
import { DEFAULT_MCP_PATH } from './mcp.constants.js';
import { McpBodyReaderInstaller } from './transports/mcp-body-reader.installer.js';
import { createMcpHttpController } from './transports/http/mcp-http.controller.js';
import { MCP_BODY_PATHS } from './transports/http/mcp-http.tokens.js';
import { MCP_DIRECT_PATH, McpDirectMount } from './transports/http/mcp-direct.mount.js';
import { createMcpLegacySseController } from './transports/sse/mcp-legacy-sse.controller.js';
import { MCP_LEGACY_SSE_PATHS, McpLegacySseHandler } from './transports/sse/mcp-legacy-sse.handler.js';
import { MCP_STDIO_OPTIONS, McpStdioTransport } from './transports/stdio/mcp-stdio.transport.js';
import { createMcpWsGatewayProviders } from './transports/ws/mcp-ws.gateway.js';
import { McpWsHandler } from './transports/ws/mcp-ws.handler.js';
import { McpHttpHandler } from './transports/http/mcp-http.handler.js';
import { MCP_TRANSPORTS, type McpServedTransport } from './transports/connection/served-transport.js';
import { McpTransportsLifecycle } from './transports/mcp-transports.lifecycle.js';
import { McpHttpPlatformHost } from './transports/platform/http-platform.provider.js';

/** Adds the transports the extras ask for: controllers, gateway and providers. */
function withTransports(definition: DynamicModule, extras: McpModuleExtras): DynamicModule {
  const controllers: Type<unknown>[] = [];
  const providers: Provider[] = [];
  const bodyPaths: string[] = [];

  if (extras.http !== false) {
    const path = extras.http?.path ?? DEFAULT_MCP_PATH;
    if (extras.http?.mount === 'direct') {
      providers.push({ provide: MCP_DIRECT_PATH, useValue: path }, McpDirectMount);
    } else {
      controllers.push(createMcpHttpController(path));
      bodyPaths.push(path);
    }
  }
  if (extras.sse) {
    const paths = { ssePath: extras.sse.path ?? '/sse', messagesPath: extras.sse.messagesPath ?? '/messages' };
    controllers.push(createMcpLegacySseController(paths));
    providers.push({ provide: MCP_LEGACY_SSE_PATHS, useValue: paths }, McpLegacySseHandler);
    bodyPaths.push(paths.messagesPath);
  }
  if (bodyPaths.length > 0) {
    // The controllers' platform (Express or Fastify), chosen once from the application's adapter.
    providers.push(McpHttpPlatformHost, { provide: MCP_BODY_PATHS, useValue: bodyPaths }, McpBodyReaderInstaller);
  }
  if (extras.ws) {
    const gateway = createMcpWsGatewayProviders(extras.ws.path ?? '/ws', extras.ws.maxPayloadBytes);
    providers.push(McpWsHandler, ...gateway);
  }
  if (extras.stdio) {
    providers.push(
      { provide: MCP_STDIO_OPTIONS, useValue: extras.stdio === true ? {} : extras.stdio },
      McpStdioTransport,
    );
  }
  // The transports served, started and stopped along one path.
  const transports: Type<McpServedTransport>[] = [McpHttpHandler];
  if (extras.sse) transports.push(McpLegacySseHandler);
  if (extras.ws) transports.push(McpWsHandler);
  if (extras.stdio) transports.push(McpStdioTransport);
  providers.push(
    { provide: MCP_TRANSPORTS, useFactory: (...served: McpServedTransport[]) => served, inject: transports },
    McpTransportsLifecycle,
  );
  return {
    ...definition,
    controllers: [...(definition.controllers ?? []), ...controllers],
    providers: [...(definition.providers ?? []), ...providers],
  };
}

export const {
  ConfigurableModuleClass: McpConfigurableModuleClass,
  MODULE_OPTIONS_TOKEN: MCP_MODULE_OPTIONS,
  OPTIONS_TYPE: MCP_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: MCP_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<McpModuleOptions>({ moduleName: 'Mcp' })
  .setClassMethodName('forRoot')
  .setExtras<McpModuleExtras>(
    { isGlobal: true, http: { path: DEFAULT_MCP_PATH }, ws: false, sse: false, stdio: false },
    (definition, extras) => ({ ...withTransports(definition, extras), global: extras.isGlobal ?? true }),
  )
  .build();
