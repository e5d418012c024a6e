import { Inject, Injectable, Optional, type OnModuleInit } from '@nestjs/common';
import { MCP_LEGACY_SSE_PATHS, type McpLegacySsePaths } from './sse/mcp-legacy-sse.handler.js';
import { MCP_BODY_PATHS } from './http/mcp-http.tokens.js';
import { McpHttpHandler } from './http/mcp-http.handler.js';
import { normalizePath } from './connection/request-path.js';
import { McpHttpPlatformHost } from './platform/http-platform.provider.js';
import type { McpTransportKind } from '../model/mcp-transport.interface.js';

/**
 * Puts the MCP body reader in front of the framework's body parsing for POSTs to the MCP paths
 * (how is the platform's business: `McpHttpPlatform.readBodiesFirst`). The framework's parsers
 * would answer malformed, large or non-JSON bodies with their own non-JSON-RPC errors and their
 * own limits; the reader answers them as every MCP transport does.
 */
@Injectable()
export class McpBodyReaderInstaller implements OnModuleInit {
  constructor(
    private readonly platforms: McpHttpPlatformHost,
    private readonly handler: McpHttpHandler,
    @Inject(MCP_BODY_PATHS) private readonly paths: string[],
    @Optional() @Inject(MCP_LEGACY_SSE_PATHS) private readonly legacy?: McpLegacySsePaths,
  ) {}

  onModuleInit(): void {
    const messages = this.legacy && normalizePath(this.legacy.messagesPath);
    const paths = new Map<string, McpTransportKind>();
    for (const path of this.paths.map(normalizePath)) paths.set(path, path === messages ? 'sse' : 'streamable-http');
    // The handler's reader itself, bound: no adapter of the installer's runs per POST.
    this.platforms.platform.readBodiesFirst(paths, this.handler.readBody.bind(this.handler));
  }
}
