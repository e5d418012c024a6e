import { Injectable } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpTransportKind } from '../../model/mcp-transport.interface.js';
import { McpTelemetry } from '../../telemetry/mcp-telemetry.js';
import { McpForbiddenOriginException } from '../../errors/mcp-transport.exceptions.js';
import { applyCors } from './cors.js';
import { rejectHttp } from './http-rejection.js';
import { createHostOriginValidator, type HostOriginValidator } from './host-origin.validator.js';
import { McpOptions, type McpOptionGroup } from '../../mcp-option-groups.js';

/**
 * The `Host` and `Origin` allowlists (DNS-rebinding and cross-site defence), built once from
 * the options and applied by every transport: Streamable HTTP, legacy SSE and the WebSocket
 * upgrade.
 */
@Injectable()
export class McpOriginPolicy {
  private readonly validate: HostOriginValidator;

  constructor(
    @McpOptions('transport') options: McpOptionGroup<'transport'>,
    private readonly telemetry: McpTelemetry,
  ) {
    this.validate = createHostOriginValidator({
      allowedHosts: options.allowedHosts,
      allowedOrigins: options.allowedOrigins,
    });
  }

  /** True when both headers are allowed; a refusal is counted (`nest_mcp.requests.refused`). */
  allows(request: IncomingMessage, transport: McpTransportKind): boolean {
    if (this.validate(request.headers).ok) return true;
    this.refused(request, transport);
    return false;
  }

  /**
   * For HTTP requests: answers 403 (with a JSON-RPC body) and returns false when refused;
   * otherwise adds the CORS headers for an allowed browser origin and returns true.
   */
  admit(req: IncomingMessage, res: ServerResponse, transport: McpTransportKind = 'streamable-http'): boolean {
    const verdict = this.validate(req.headers);
    if (!verdict.ok) {
      rejectHttp(res, new McpForbiddenOriginException(verdict.reason));
      this.refused(req, transport);
      return false;
    }
    // CORS headers go to a browser's request alone (one with an Origin).
    if (req.headers.origin !== undefined) applyCors(req, res);
    return true;
  }

  private refused(request: IncomingMessage, transport: McpTransportKind): void {
    this.telemetry.refusedOn('origin', transport, request);
  }
}
