import { McpException } from '../errors/mcp.exception.js';
import { JsonRpcErrorCode } from '../model/json-rpc.js';
import { bearerChallenge, type BearerChallenge } from './www-authenticate.js';

/**
 * Rejections of the resource server (MCP authorization, OAuth 2.1 §5.3 / RFC 6750 §3.1), in the
 * manner of errors/mcp-transport.exceptions.ts: each has its own message and HTTP status, and
 * carries its `WWW-Authenticate` challenge as a header. Over WebSocket and stdio they answer the
 * request in-band with the same JSON-RPC error.
 */

/**
 * 401: no access token, or one that is invalid (expired, not for this server, badly signed...).
 * `WWW-Authenticate` names the Protected Resource Metadata, so a client can discover where to get
 * a token; `error="invalid_token"` when a token was presented.
 */
export class McpUnauthorizedException extends McpException {
  constructor(challenge: BearerChallenge, detail: string) {
    super(JsonRpcErrorCode.Unauthorized, 'Unauthorized', detail, undefined, {
      status: 401,
      headers: { 'WWW-Authenticate': bearerChallenge(challenge) },
    });
  }
}

/**
 * 403 `insufficient_scope`: a valid token without the scopes this request needs. The challenge's
 * `scope` lists the scopes needed plus those already granted, so a client can step up (ask for a
 * token with all of them) and retry without losing what it had; the detail names the missing ones.
 */
export class McpInsufficientScopeException extends McpException {
  constructor(
    resourceMetadata: string,
    readonly requiredScopes: readonly string[],
    grantedScopes: readonly string[],
  ) {
    const scope = [...new Set([...requiredScopes, ...grantedScopes])];
    const missing = requiredScopes.filter((required) => !grantedScopes.includes(required));
    const detail = `This request needs the scope(s) ${missing.join(' ')}; request a token that includes them`;
    super(
      JsonRpcErrorCode.Forbidden,
      'Insufficient scope',
      detail,
      { requiredScopes: [...requiredScopes], scope: scope.join(' ') },
      {
        status: 403,
        headers: {
          'WWW-Authenticate': bearerChallenge({
            error: 'insufficient_scope',
            errorDescription: detail,
            scope,
            resourceMetadata,
          }),
        },
      },
    );
  }
}

/**
 * 400 `invalid_request`: a malformed authorization request (an `Authorization: Bearer` header
 * whose token is not a token, or a token sent both in the header and in the URI).
 */
export class McpInvalidAuthRequestException extends McpException {
  constructor(resourceMetadata: string, detail: string) {
    super(JsonRpcErrorCode.ServerError, 'Bad authorization request', detail, undefined, {
      status: 400,
      headers: {
        'WWW-Authenticate': bearerChallenge({ error: 'invalid_request', errorDescription: detail, resourceMetadata }),
      },
    });
  }
}
