import { Injectable } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import type { McpSessionRecord } from '../../backend/mcp-session.store.js';
import {
  McpSessionNotFoundException,
  McpSessionRequiredException,
  McpUnsupportedProtocolVersionException,
} from '../../errors/mcp-transport.exceptions.js';
import {
  PROTOCOL_VERSION_HEADER,
  SESSION_ID_HEADER,
  SUPPORTED_PROTOCOL_VERSIONS,
  type McpProtocolVersion,
} from '../../mcp.constants.js';
import { McpOptions, type McpOptionGroup } from '../../mcp-option-groups.js';
import type { McpDispatchContext } from '../../context/mcp-dispatch-context.js';
import type { McpPrincipal } from '../../model/mcp-principal.js';
import { isSupportedProtocolVersion } from '../../model/protocol-version.js';
import { McpSessionManager } from '../../session/mcp-session.manager.js';

/**
 * How a Streamable HTTP request is bound to its 2025-era session: by its `MCP-Session-Id`
 * header, to a session of the same principal (another principal's is "not found"), with its
 * `MCP-Protocol-Version` header checked. A 2026-07-28 request has no session and never comes
 * here.
 */
@Injectable()
export class McpHttpSessionBinding {
  constructor(
    @McpOptions('transport') private readonly options: McpOptionGroup<'transport'>,
    private readonly sessions: McpSessionManager,
  ) {}

  /**
   * Binds a POST to its 2025-era session (`ctx.session`) and its `MCP-Protocol-Version` header
   * (`ctx.headerProtocolVersion`; not read on `initialize`, where the version is negotiated);
   * throws the 400/404 rejections. The dispatcher runs it inside the message's span (its
   * `prepare`). The session is awaited only when the store answers later (a shared one).
   */
  async bindPost(
    ctx: McpDispatchContext,
    req: IncomingMessage,
    initialize: boolean,
    auth: McpPrincipal | undefined,
  ): Promise<void> {
    if (!initialize) ctx.headerProtocolVersion = this.headerVersion(req);
    if (!this.options.sessions) return;
    const session = initialize
      ? // Never adopt a client-chosen id: an unknown id on initialize is ignored and a new one
        // is minted; a live one makes the dispatcher refuse a second initialize.
        this.sessions.resolve(req.headers[SESSION_ID_HEADER], auth)
      : this.require(req, auth);
    ctx.session = session instanceof Promise ? await session : session;
  }

  /**
   * The session of the request, if it belongs to `auth` (another principal's is "not found").
   * Answered at once when the session store does (the in-memory one), else in a promise:
   * `await` takes either.
   */
  require(req: IncomingMessage, auth: McpPrincipal | undefined): McpSessionRecord | Promise<McpSessionRecord> {
    const header = req.headers[SESSION_ID_HEADER];
    if (header === undefined) {
      throw new McpSessionRequiredException(
        'Send the MCP-Session-Id header returned by initialize (or initialize first)',
        { status: 400 },
      );
    }
    const session = this.sessions.resolve(header, auth);
    return session instanceof Promise
      ? session.then((found) => found ?? sessionNotFound())
      : (session ?? sessionNotFound());
  }

  /** The header's version; `undefined` when absent or not validated; throws 400 when refused. */
  headerVersion(req: IncomingMessage): McpProtocolVersion | undefined {
    const value = req.headers[PROTOCOL_VERSION_HEADER];
    if (value === undefined) return undefined;
    if (isSupportedProtocolVersion(value)) return value;
    if (!this.options.validateProtocolVersionHeader) return undefined;
    throw new McpUnsupportedProtocolVersionException(String(value), SUPPORTED_PROTOCOL_VERSIONS);
  }

  /** `DELETE`: the client ends its session. */
  async end(session: McpSessionRecord): Promise<void> {
    await this.sessions.end(session.id, 'deleted');
  }
}

const sessionNotFound = (): never => {
  throw new McpSessionNotFoundException();
};
