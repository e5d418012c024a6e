import { JsonRpcErrorCode } from '../model/json-rpc.js';
import { isModernProtocolVersion } from '../model/protocol-version.js';
import { McpException } from './mcp.exception.js';

/**
 * Rejections of a whole HTTP request or connection, before any handler runs. Each has its own
 * message and HTTP status (docs/decisions/0002-error-codes-and-http-statuses.md); all share the JSON-RPC code
 * `-32000`, the
 * implementation-defined "server error", except where JSON-RPC or MCP define one.
 * Transports never build error bodies themselves: they throw or pass one of these.
 */

/** Seconds a client should wait before retrying a 503. */
export const RETRY_AFTER_SECONDS = 5;

/** 403: the `Origin` or `Host` header is not allowed (DNS-rebinding and cross-site defence). */
export class McpForbiddenOriginException extends McpException {
  constructor(detail: string) {
    super(JsonRpcErrorCode.ServerError, 'Forbidden origin or host', detail, undefined, { status: 403 });
  }
}

/** 405: an HTTP method the endpoint does not serve, with the `Allow` header. */
export class McpMethodNotAllowedException extends McpException {
  constructor(allow: string, detail: string) {
    super(JsonRpcErrorCode.ServerError, 'Method not allowed', detail, undefined, {
      status: 405,
      headers: { Allow: allow },
    });
  }
}

/** 406: the `Accept` header allows none of the formats the answer can take. */
export class McpNotAcceptableException extends McpException {
  constructor(detail: string) {
    super(JsonRpcErrorCode.ServerError, 'Not acceptable', detail, undefined, { status: 406 });
  }
}

/** 415: the body is not `application/json`. */
export class McpUnsupportedMediaTypeException extends McpException {
  constructor(detail = 'Content-Type must be application/json') {
    super(JsonRpcErrorCode.ServerError, 'Unsupported media type', detail, undefined, { status: 415 });
  }
}

/** 413: the body is larger than `maxBodyBytes` (JSON-RPC calls it an invalid request). */
export class McpPayloadTooLargeException extends McpException {
  constructor(limit: number) {
    super(JsonRpcErrorCode.InvalidRequest, 'Request body too large', `The body exceeds ${limit} bytes`, undefined, {
      status: 413,
      headers: { Connection: 'close' },
    });
  }
}

/**
 * 400: a protocol version this endpoint does not speak, answered in the form of the era whose
 * versions it names, so the client can act on it:
 * - modern versions (MCP 2026-07-28, `-32022` UnsupportedProtocolVersion with `data.supported`
 *   and `data.requested`): the answer to a modern request in a version the endpoint does not
 *   speak, and, in `'modern'` mode, to `initialize` and to legacy HTTP+SSE;
 * - the 2025 versions (`-32000`, as the official SDK answers, with `data.supported`): the answer
 *   to an `MCP-Protocol-Version` header naming a version the endpoint does not speak.
 */
export class McpUnsupportedProtocolVersionException extends McpException {
  constructor(requested: unknown, supported: readonly string[]) {
    const shown = String(requested).slice(0, 64);
    if (supported.every(isModernProtocolVersion)) {
      super(
        JsonRpcErrorCode.UnsupportedProtocolVersion,
        'Unsupported protocol version',
        `Protocol version ${JSON.stringify(shown)} is not supported; supported: ${supported.join(', ')}`,
        { supported: [...supported], requested: typeof requested === 'string' ? requested : String(requested) },
        { status: 400 },
      );
    } else {
      super(
        JsonRpcErrorCode.ServerError,
        'Unsupported protocol version',
        `MCP-Protocol-Version '${shown}' is not supported (supported: ${supported.join(', ')})`,
        { supported: [...supported] },
        { status: 400 },
      );
    }
  }
}

/**
 * `-32000` Session required: the request needs a session and has none. Over HTTP with session
 * management on, a missing `MCP-Session-Id` is a 400 (`http`); elsewhere (stateless HTTP, stdio
 * before `initialize`) it answers the request on 200.
 */
export class McpSessionRequiredException extends McpException {
  constructor(
    detail = 'This request needs a session: send initialize over Streamable HTTP (with session management on) or WebSocket first, then pass the MCP-Session-Id it returns',
    http?: { status: number },
  ) {
    super(JsonRpcErrorCode.ServerError, 'Session required', detail, undefined, http);
  }
}

/** 404 `-32001`: the session id is unknown or expired (as the official SDK answers). */
export class McpSessionNotFoundException extends McpException {
  constructor(detail = 'The session is unknown or has expired: initialize a new one') {
    super(JsonRpcErrorCode.SessionNotFound, 'Session not found', detail, undefined, { status: 404 });
  }
}

/**
 * 503: the backend that holds sessions and subscriptions (Redis, ...) cannot be reached. Never a
 * 404: the session may well exist. Backends throw `McpBackendUnavailableError`; the mapper turns
 * it into this.
 */
export class McpServiceUnavailableException extends McpException {
  constructor(detail = 'The session backend is unavailable; retry shortly') {
    super(JsonRpcErrorCode.ServerError, 'Service unavailable', detail, undefined, {
      status: 503,
      headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
    });
  }
}

/**
 * 410: a `Last-Event-ID` names a POST answer whose events after that point were dropped from its
 * bounded history, so it cannot be resumed without a silent gap.
 */
export class McpStreamHistoryLostException extends McpException {
  constructor(lastEventId: string) {
    super(
      JsonRpcErrorCode.ServerError,
      'Stream history lost',
      `Events after '${lastEventId.slice(0, 64)}' were dropped from this answer's history; re-issue the request if its result is still needed`,
      undefined,
      { status: 410 },
    );
  }
}
