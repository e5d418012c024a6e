import { Injectable } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { McpServiceUnavailableException } from '../errors/mcp-transport.exceptions.js';
import { findBearerToken } from './bearer-token.js';
import type { McpAuthOptions } from '../interfaces/mcp-auth-options.interface.js';
import { McpAuthServerUnavailableError, McpInvalidTokenError } from './verifiers/verifier.errors.js';
import {
  McpInsufficientScopeException,
  McpInvalidAuthRequestException,
  McpUnauthorizedException,
} from './mcp-auth.exceptions.js';
import type { McpPrincipal } from '../model/mcp-principal.js';
import type { McpTokenVerifier, McpVerifiedToken } from '../interfaces/mcp-token-verifier.interface.js';
import { resourceMetadataUrl } from './resource-metadata.js';
import { bindRequestPrincipal } from './request-principal.js';
import { missingScopes } from './scopes.js';
import { McpJwtVerifier } from './verifiers/jwt.verifier.js';
import { McpLogger } from '../logging/mcp-logger.js';
import { McpOptions, type McpOptionGroup } from '../mcp-option-groups.js';

/** Clock skew tolerated when the authenticator re-checks a verifier's `expiresAt`. */
const EXPIRY_TOLERANCE_SECONDS = 30;

/**
 * The resource server's front door: turns the headers of an HTTP request (POST, GET, DELETE, the
 * WebSocket upgrade, legacy SSE) into the principal that makes it, or into the rejection to
 * answer: 401 with a `WWW-Authenticate` challenge naming the Protected Resource Metadata, 400 for
 * a malformed authorization request, 503 when the authorization server is needed and away.
 *
 * With `auth` unset it lets everything through without a principal (a local server).
 */
@Injectable()
export class McpAuthenticator {
  private readonly logger = new McpLogger('McpAuth');
  private readonly auth?: McpAuthOptions;
  private readonly verifier?: McpTokenVerifier;
  /** The metadata URL every challenge names; empty when auth is off. */
  readonly resourceMetadata: string;
  private readonly challengeScopes: readonly string[];
  /** True in resource-server mode (a field: every HTTP request asks). */
  readonly enabled: boolean;

  constructor(@McpOptions('auth') options: McpOptionGroup<'auth'>) {
    this.auth = options.auth;
    this.enabled = this.auth !== undefined;
    this.resourceMetadata = this.auth ? resourceMetadataUrl(this.auth.resource) : '';
    this.challengeScopes = this.auth?.challengeScopes ?? this.auth?.scopesSupported ?? [];
    if (this.auth) {
      this.verifier =
        this.auth.verifier ??
        new McpJwtVerifier({ issuer: this.auth.authorizationServers, audience: this.auth.resource });
    }
  }

  /** The canonical resource URI; undefined when auth is off. */
  get resource(): string | undefined {
    return this.auth?.resource;
  }

  /**
   * The principal of a request; `undefined` when auth is off. Throws the rejection to answer
   * (an `McpException` with its HTTP status and `WWW-Authenticate` header).
   */
  async authenticate(req: Pick<IncomingMessage, 'headers' | 'url'>): Promise<McpPrincipal | undefined> {
    if (!this.auth || !this.verifier) return undefined;
    const found = findBearerToken(req);
    switch (found.kind) {
      case 'missing':
        throw this.unauthorized('This MCP server needs an access token: send Authorization: Bearer <token>');
      case 'query':
        throw this.unauthorized(
          'Access tokens in the URI are refused; send the token in the Authorization header',
          'invalid_token',
        );
      case 'oversized':
        throw this.unauthorized('The access token is too long', 'invalid_token');
      case 'malformed':
        throw new McpInvalidAuthRequestException(this.resourceMetadata, found.detail);
      case 'token':
        return this.principalOf(await this.verify(found.token), found.token);
    }
  }

  /**
   * Authenticates the request that opens a connection (a WebSocket upgrade, a legacy SSE stream)
   * and records its principal beside it (`requestPrincipal(req)`), for every message the
   * connection carries. Resolves to the rejection, or `undefined` when it may go on.
   */
  async authenticateConnection(req: IncomingMessage): Promise<unknown> {
    try {
      bindRequestPrincipal(req, await this.authenticate(req));
      return undefined;
    } catch (error) {
      return error;
    }
  }

  /**
   * The 403 for a principal that lacks `required` scopes, or `undefined` when it has them (or
   * when there is no principal: auth is off, or the transport is local).
   */
  insufficientScope(
    required: readonly string[] | undefined,
    principal: McpPrincipal | undefined,
  ): McpInsufficientScopeException | undefined {
    if (!principal || !required || required.length === 0) return undefined;
    const missing = missingScopes(principal.scopes, required);
    return missing.length === 0
      ? undefined
      : new McpInsufficientScopeException(this.resourceMetadata, required, principal.scopes);
  }

  private async verify(token: string): Promise<McpVerifiedToken> {
    const auth = this.auth!;
    try {
      return await this.verifier!.verify(token, { resource: auth.resource });
    } catch (error) {
      if (error instanceof McpInvalidTokenError) {
        this.logger.debug(`Refused an access token: ${error.message}`);
        throw this.unauthorized(error.message, 'invalid_token');
      }
      if (error instanceof McpAuthServerUnavailableError) {
        this.logger.warn(`Cannot verify an access token: ${error.message}`);
        throw new McpServiceUnavailableException(
          'The authorization server cannot be reached to verify the access token; retry shortly',
        );
      }
      throw error;
    }
  }

  /** The principal of a verified token, after the checks no verifier may skip. */
  private principalOf(verified: McpVerifiedToken, token: string): McpPrincipal {
    const auth = this.auth!;
    // The audience check is the authenticator's too, so a custom verifier cannot forget it.
    if (!Array.isArray(verified.audience) || !verified.audience.includes(auth.resource)) {
      throw this.unauthorized('The token was not issued for this resource (aud)', 'invalid_token');
    }
    if (verified.expiresAt !== undefined && verified.expiresAt + EXPIRY_TOLERANCE_SECONDS <= Date.now() / 1000) {
      throw this.expiredToken();
    }
    if (typeof verified.issuer !== 'string' || !verified.issuer) {
      throw this.unauthorized('The token names no issuer', 'invalid_token');
    }
    const principal: McpPrincipal = {
      issuer: verified.issuer,
      subject: verified.subject,
      clientId: verified.clientId,
      scopes: [...(verified.scopes ?? [])],
      audience: [...verified.audience],
      expiresAt: verified.expiresAt,
      claims: verified.claims ?? {},
      ...(auth.exposeToken ? { token } : {}),
    };
    return Object.freeze(principal);
  }

  /**
   * The 401 for a request whose token expired while it was being served: the client gets the
   * challenge it would get for the token now, and comes back with a fresh one.
   */
  expiredToken(): McpUnauthorizedException {
    return this.unauthorized('The access token has expired', 'invalid_token');
  }

  private unauthorized(detail: string, error?: 'invalid_token'): McpUnauthorizedException {
    return new McpUnauthorizedException(
      {
        resourceMetadata: this.resourceMetadata,
        scope: this.challengeScopes,
        error,
        errorDescription: error ? detail : undefined,
      },
      detail,
    );
  }
}
