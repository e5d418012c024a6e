import { beforeAll, describe, expect, it } from '@jest/globals';
import { Logger } from '@nestjs/common';
import type { ResolvedMcpOptions } from '../interfaces/mcp-module-options.interface.js';
import { McpServiceUnavailableException } from '../errors/mcp-transport.exceptions.js';
import { McpAuthServerUnavailableError, McpInvalidTokenError } from './verifiers/verifier.errors.js';
import {
  McpInsufficientScopeException,
  McpInvalidAuthRequestException,
  McpUnauthorizedException,
} from './mcp-auth.exceptions.js';
import type { McpAuthOptions } from '../interfaces/mcp-auth-options.interface.js';
import { McpAuthenticator } from './mcp-authenticator.js';
import type { McpTokenVerifier, McpVerifiedToken } from '../interfaces/mcp-token-verifier.interface.js';

const RESOURCE = 'https://mcp.example.com/mcp';
const PRM = 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp';

const verified = (overrides: Partial<McpVerifiedToken> = {}): McpVerifiedToken => ({
  issuer: 'https://as.example.com',
  subject: 'alice',
  clientId: 'app',
  audience: [RESOURCE],
  scopes: ['notes:read'],
  expiresAt: Math.floor(Date.now() / 1000) + 300,
  claims: { sub: 'alice' },
  ...overrides,
});

/** A verifier that answers what it is told to, and records the tokens it saw. */
class ScriptedVerifier implements McpTokenVerifier {
  seen: string[] = [];
  constructor(private readonly outcome: () => McpVerifiedToken) {}
  async verify(token: string) {
    this.seen.push(token);
    return this.outcome();
  }
}

function authenticator(verifier: McpTokenVerifier, auth: Partial<McpAuthOptions> = {}): McpAuthenticator {
  const options = {
    auth: {
      resource: RESOURCE,
      authorizationServers: ['https://as.example.com'],
      scopesSupported: ['notes:read', 'notes:write'],
      verifier,
      ...auth,
    },
  } as ResolvedMcpOptions;
  return new McpAuthenticator(options);
}

const req = (authorization?: string, url = '/mcp') => ({
  headers: authorization === undefined ? {} : { authorization },
  url,
});

/** The exception `promise` rejects with. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

describe('McpAuthenticator', () => {
  beforeAll(() => Logger.overrideLogger(false));

  it('lets everything through without a principal when auth is off', async () => {
    const off = new McpAuthenticator({} as ResolvedMcpOptions);
    expect(off.enabled).toBe(false);
    await expect(off.authenticate(req())).resolves.toBeUndefined();
  });

  it('turns a verified token into a frozen principal without the raw token', async () => {
    const principal = await authenticator(new ScriptedVerifier(() => verified())).authenticate(req('Bearer tok'));
    expect(principal).toEqual({
      issuer: 'https://as.example.com',
      subject: 'alice',
      clientId: 'app',
      scopes: ['notes:read'],
      audience: [RESOURCE],
      expiresAt: expect.any(Number),
      claims: { sub: 'alice' },
    });
    expect(Object.isFrozen(principal)).toBe(true);
    expect(JSON.stringify(principal)).not.toContain('tok');
  });

  it('adds the raw token only when exposeToken asks for it', async () => {
    const principal = await authenticator(new ScriptedVerifier(() => verified()), { exposeToken: true }).authenticate(
      req('Bearer tok'),
    );
    expect(principal?.token).toBe('tok');
  });

  it('answers 401 naming the metadata and the scopes, without an error code, when there is no token', async () => {
    const error = (await rejection(
      authenticator(new ScriptedVerifier(verified)).authenticate(req()),
    )) as McpUnauthorizedException;
    expect(error).toBeInstanceOf(McpUnauthorizedException);
    expect(error.httpStatus).toBe(401);
    expect(error.httpHeaders).toEqual({
      'WWW-Authenticate': `Bearer scope="notes:read notes:write", resource_metadata="${PRM}"`,
    });
    expect(error.toJsonRpcError()).toEqual({
      code: -32005,
      message: 'Unauthorized',
      data: { detail: 'This MCP server needs an access token: send Authorization: Bearer <token>' },
    });
  });

  it('names challengeScopes in the 401 when set', async () => {
    const error = (await rejection(
      authenticator(new ScriptedVerifier(verified), { challengeScopes: ['notes:read'] }).authenticate(req()),
    )) as McpUnauthorizedException;
    expect(error.httpHeaders?.['WWW-Authenticate']).toBe(`Bearer scope="notes:read", resource_metadata="${PRM}"`);
  });

  it('answers 401 invalid_token for a token in the query string, without looking at it', async () => {
    const verifier = new ScriptedVerifier(verified);
    const error = (await rejection(
      authenticator(verifier).authenticate(req(undefined, '/mcp?access_token=tok')),
    )) as McpUnauthorizedException;
    expect(error.httpStatus).toBe(401);
    expect(error.httpHeaders?.['WWW-Authenticate']).toMatch(
      /^Bearer error="invalid_token", error_description="Access tokens in the URI are refused/,
    );
    expect(verifier.seen).toEqual([]);
  });

  it('answers 400 invalid_request for a malformed Authorization header', async () => {
    const error = (await rejection(
      authenticator(new ScriptedVerifier(verified)).authenticate(req('Bearer a b')),
    )) as McpInvalidAuthRequestException;
    expect(error).toBeInstanceOf(McpInvalidAuthRequestException);
    expect(error.httpStatus).toBe(400);
    expect(error.httpHeaders?.['WWW-Authenticate']).toMatch(/^Bearer error="invalid_request"/);
  });

  it('answers 401 invalid_token with the verifier reason', async () => {
    const verifier: McpTokenVerifier = {
      verify: async () => {
        throw new McpInvalidTokenError('The access token has expired');
      },
    };
    const error = (await rejection(
      authenticator(verifier).authenticate(req('Bearer tok')),
    )) as McpUnauthorizedException;
    expect(error.httpHeaders?.['WWW-Authenticate']).toBe(
      `Bearer error="invalid_token", error_description="The access token has expired", scope="notes:read notes:write", resource_metadata="${PRM}"`,
    );
  });

  it('answers 503 (not 401) when the authorization server cannot be reached', async () => {
    const verifier: McpTokenVerifier = {
      verify: async () => {
        throw new McpAuthServerUnavailableError('connection refused');
      },
    };
    const error = (await rejection(
      authenticator(verifier).authenticate(req('Bearer tok')),
    )) as McpServiceUnavailableException;
    expect(error).toBeInstanceOf(McpServiceUnavailableException);
    expect(error.httpStatus).toBe(503);
    expect(error.httpHeaders).toEqual({ 'Retry-After': '5' });
  });

  it('checks the audience itself, so a custom verifier that forgets it fails closed', async () => {
    for (const audience of [['https://other.example.com/mcp'], []]) {
      const error = (await rejection(
        authenticator(new ScriptedVerifier(() => verified({ audience }))).authenticate(req('Bearer tok')),
      )) as McpUnauthorizedException;
      expect(error.httpStatus).toBe(401);
      expect(error.detail).toBe('The token was not issued for this resource (aud)');
    }
  });

  it('re-checks the expiry a custom verifier reports', async () => {
    const error = (await rejection(
      authenticator(
        new ScriptedVerifier(() => verified({ expiresAt: Math.floor(Date.now() / 1000) - 120 })),
      ).authenticate(req('Bearer tok')),
    )) as McpUnauthorizedException;
    expect(error.detail).toBe('The access token has expired');
  });

  it('builds the 403 insufficient_scope challenge with the needed and the granted scopes', async () => {
    const auth = authenticator(new ScriptedVerifier(verified));
    const principal = (await auth.authenticate(req('Bearer tok')))!;
    expect(auth.insufficientScope(['notes:read'], principal)).toBeUndefined();
    expect(auth.insufficientScope(undefined, principal)).toBeUndefined();
    expect(auth.insufficientScope(['notes:write'], undefined)).toBeUndefined();
    const refusal = auth.insufficientScope(['notes:write'], principal)!;
    expect(refusal).toBeInstanceOf(McpInsufficientScopeException);
    expect(refusal.httpStatus).toBe(403);
    expect(refusal.httpHeaders?.['WWW-Authenticate']).toBe(
      `Bearer error="insufficient_scope", error_description="This request needs the scope(s) notes:write; request a token that includes them", scope="notes:write notes:read", resource_metadata="${PRM}"`,
    );
    expect(refusal.toJsonRpcError()).toEqual({
      code: -32003,
      message: 'Insufficient scope',
      data: {
        requiredScopes: ['notes:write'],
        scope: 'notes:write notes:read',
        detail: 'This request needs the scope(s) notes:write; request a token that includes them',
      },
    });
  });
});
