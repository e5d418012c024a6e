import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { McpModuleExtras, McpModuleOptions } from './interfaces/mcp-module-options.interface.js';
import { DEFAULT_MCP_PATH } from './mcp.constants.js';
import { McpBodyReaderInstaller } from './transports/http/mcp-body-reader.installer.js';
import { createMcpHttpController } from './transports/http/mcp-http.controller.js';
import { MCP_HTTP_PATH } from './transports/http/mcp-http.tokens.js';

export const {
  ConfigurableModuleClass: McpConfigurableModuleClass,
  MODULE_OPTIONS_TOKEN: MCP_MODULE_OPTIONS,
  OPTIONS_TYPE: MCP_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: MCP_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<McpModuleOptions>({ moduleName: 'Mcp' })
  .setClassMethodName('forRoot')
  .setExtras<McpModuleExtras>({ isGlobal: true, http: { path: DEFAULT_MCP_PATH } }, (definition, extras) => {
    const http = extras.http === false ? undefined : { path: extras.http?.path ?? DEFAULT_MCP_PATH };
    return {
      ...definition,
      global: extras.isGlobal ?? true,
      controllers: [...(definition.controllers ?? []), ...(http ? [createMcpHttpController(http.path)] : [])],
      providers: [
        ...(definition.providers ?? []),
        ...(http ? [{ provide: MCP_HTTP_PATH, useValue: http.path }, McpBodyReaderInstaller] : []),
      ],
    };
  })
  .build();
