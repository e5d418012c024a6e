import { Inject, Injectable } from '@nestjs/common';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { MCP_RESOLVED_OPTIONS } from '../../mcp.constants.js';
import type { ResolvedMcpOptions } from '../../interfaces/mcp-module-options.interface.js';
import { McpForbiddenOriginException } from '../../errors/mcp-transport.exceptions.js';
import { applyCors } from '../http/cors.js';
import { rejectHttp } from '../http/http-rejection.js';
import { createHostOriginValidator, type HostOriginValidator } from '../http/host-origin.validator.js';

/**
 * The `Host` and `Origin` allowlists (DNS-rebinding and cross-site defence), built once from
 * the options and applied by every transport: Streamable HTTP, legacy SSE and the WebSocket
 * upgrade.
 */
@Injectable()
export class McpOriginPolicy {
  private readonly validate: HostOriginValidator;

  constructor(@Inject(MCP_RESOLVED_OPTIONS) options: ResolvedMcpOptions) {
    this.validate = createHostOriginValidator({
      allowedHosts: options.allowedHosts,
      allowedOrigins: options.allowedOrigins,
    });
  }

  /** True when both headers are allowed. */
  allows(headers: IncomingHttpHeaders): boolean {
    return this.validate(headers).ok;
  }

  /**
   * For HTTP requests: answers 403 (with a JSON-RPC body) and returns false when refused;
   * otherwise adds the CORS headers for an allowed browser origin and returns true.
   */
  admit(req: IncomingMessage, res: ServerResponse): boolean {
    const verdict = this.validate(req.headers);
    if (!verdict.ok) {
      rejectHttp(res, new McpForbiddenOriginException(verdict.reason));
      return false;
    }
    applyCors(req, res);
    return true;
  }
}
