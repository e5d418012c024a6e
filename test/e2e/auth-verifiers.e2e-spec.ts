/**
 * The shipped token verifiers against a real authorization server (oidc-provider): JWT access
 * tokens (RFC 9068) checked against the issuer's discovered JWKS, every token rejection of
 * docs/authorization.md, key rotation and outages; opaque tokens through introspection (RFC 7662).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Logger } from '@nestjs/common';
import {
  McpAuthServerUnavailableError,
  McpIntrospectionVerifier,
  McpInvalidTokenError,
  McpJwtVerifier,
  type McpJwtVerifierOptions,
} from '@app/mcp';
import { HARNESS_CLIENT, OidcHarness } from '../support/oauth/oidc-harness.js';
import {
  accessTokenClaims,
  forgeHs256WithPublicKey,
  forgeSigned,
  forgeUnsigned,
} from '../support/oauth/token-forger.js';

const RESOURCE = 'http://127.0.0.1:7777/mcp';
const OTHER_RESOURCE = 'http://127.0.0.1:7777/other';
const OPAQUE_RESOURCE = 'http://127.0.0.1:7777/opaque';
const SCOPES = 'notes:read notes:write';

/** What `promise` rejects with (fails when it resolves). */
async function failure(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    (value) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(value)}`);
    },
    (error: Error) => error,
  );
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await failure(promise);
  expect(error).toBeInstanceOf(McpInvalidTokenError);
  return error.message;
}

describe('McpJwtVerifier against oidc-provider', () => {
  let provider: OidcHarness;
  let foreign: OidcHarness;

  const verifier = (options: Partial<McpJwtVerifierOptions> = {}) =>
    new McpJwtVerifier({ issuer: provider.issuer, audience: RESOURCE, ...options });
  const claims = (overrides: Record<string, unknown> = {}) => ({
    ...accessTokenClaims({ issuer: provider.issuer, audience: RESOURCE }),
    ...overrides,
  });

  beforeAll(async () => {
    Logger.overrideLogger(false);
    const resources = {
      [RESOURCE]: { scope: SCOPES },
      [OTHER_RESOURCE]: { scope: SCOPES },
    };
    provider = await OidcHarness.start({ resources });
    foreign = await OidcHarness.start({ resources });
  });

  afterAll(async () => {
    await provider?.close();
    await foreign?.close();
  });

  it('verifies a real access token: issuer, subject, client, audience, scopes, expiry', async () => {
    const token = await provider.token({ resource: RESOURCE, scope: 'notes:read' });
    const verified = await verifier().verify(token, { resource: RESOURCE });
    expect(verified).toEqual({
      issuer: provider.issuer,
      subject: HARNESS_CLIENT.clientId,
      clientId: HARNESS_CLIENT.clientId,
      audience: [RESOURCE],
      scopes: ['notes:read'],
      expiresAt: expect.any(Number),
      claims: expect.objectContaining({ iss: provider.issuer, aud: RESOURCE, scope: 'notes:read' }),
    });
  });

  it('discovers the JWKS from the issuer metadata once and then uses its cache', async () => {
    const v = verifier();
    const jwksBefore = provider.hitsOf('/jwks');
    const metadataBefore = provider.hitsOf('/.well-known/oauth-authorization-server');
    for (let i = 0; i < 3; i++) {
      await v.verify(await provider.token({ resource: RESOURCE }), { resource: RESOURCE });
    }
    expect(provider.hitsOf('/.well-known/oauth-authorization-server') - metadataBefore).toBe(1);
    expect(provider.hitsOf('/jwks') - jwksBefore).toBe(1);
  });

  it('uses a configured jwksUri without discovery', async () => {
    const metadataBefore = provider.hitsOf('/.well-known/oauth-authorization-server');
    await verifier({ jwksUri: provider.jwksUri }).verify(await provider.token({ resource: RESOURCE }));
    expect(provider.hitsOf('/.well-known/oauth-authorization-server')).toBe(metadataBefore);
  });

  describe('refuses', () => {
    it('an expired token', async () => {
      const token = await forgeSigned(provider.currentKey, claims({ exp: Math.floor(Date.now() / 1000) - 120 }));
      expect(await refusal(verifier().verify(token))).toBe('The access token has expired');
    });

    it('a token that is not valid yet (nbf in the future)', async () => {
      const token = await forgeSigned(provider.currentKey, claims({ nbf: Math.floor(Date.now() / 1000) + 600 }));
      expect(await refusal(verifier().verify(token))).toBe('The token is not valid yet (nbf)');
    });

    it('a real token of another issuer', async () => {
      const token = await foreign.token({ resource: RESOURCE });
      expect(await refusal(verifier().verify(token))).toBe(
        'The token was not issued by a trusted authorization server',
      );
    });

    it('a token signed by the right key that claims another issuer', async () => {
      const token = await forgeSigned(provider.currentKey, claims({ iss: foreign.issuer }));
      expect(await refusal(verifier().verify(token))).toBe(
        'The token was not issued by a trusted authorization server',
      );
    });

    it('a real token of the right issuer for another resource (wrong audience)', async () => {
      const token = await provider.token({ resource: OTHER_RESOURCE });
      expect(await refusal(verifier().verify(token))).toBe('The token was not issued for this resource (aud)');
    });

    it('a token without an audience', async () => {
      const token = await forgeSigned(provider.currentKey, claims({ aud: undefined }));
      expect(await refusal(verifier().verify(token))).toBe("The token has no 'aud' claim");
    });

    it('a token without an expiry', async () => {
      const token = await forgeSigned(provider.currentKey, claims({ exp: undefined }));
      expect(await refusal(verifier().verify(token))).toBe("The token has no 'exp' claim");
    });

    it('a JWT that is not an access token (typ JWT, as an ID token), or has no typ', async () => {
      const idToken = await forgeSigned(provider.currentKey, claims(), { typ: 'JWT' });
      expect(await refusal(verifier().verify(idToken))).toBe(
        "The token's type 'JWT' is not an access token type (at+jwt)",
      );
      const untyped = await forgeSigned(provider.currentKey, claims(), { typ: undefined });
      expect(await refusal(verifier().verify(untyped))).toBe(
        "The token's type 'undefined' is not an access token type (at+jwt)",
      );
    });

    it('accepts application/at+jwt as at+jwt', async () => {
      const token = await forgeSigned(provider.currentKey, claims(), { typ: 'application/at+jwt' });
      await expect(verifier().verify(token)).resolves.toMatchObject({ subject: 'mcp-client' });
    });

    it('a token signed with a key the issuer never published (unknown kid)', async () => {
      const stranger = await OidcHarness.start({ resources: { [RESOURCE]: { scope: SCOPES } } });
      try {
        const token = await forgeSigned(stranger.currentKey, claims());
        expect(await refusal(verifier({ jwksCooldownMs: 0 }).verify(token))).toBe(
          "No key of the issuer matches the token's key id",
        );
      } finally {
        await stranger.close();
      }
    });

    it('a token signed by another key under a published kid', async () => {
      const stranger = await OidcHarness.start({ resources: { [RESOURCE]: { scope: SCOPES } } });
      try {
        const token = await forgeSigned(stranger.currentKey, claims(), { kid: provider.currentKey.kid });
        expect(await refusal(verifier().verify(token))).toBe('The token signature does not verify');
      } finally {
        await stranger.close();
      }
    });

    it('an unsigned token (alg none), without fetching any key', async () => {
      const v = verifier();
      const before = provider.hitsOf('/jwks');
      expect(await refusal(v.verify(forgeUnsigned(claims(), provider.currentKey.kid)))).toBe(
        "The token's signature algorithm 'none' is not accepted",
      );
      expect(provider.hitsOf('/jwks')).toBe(before);
    });

    it('HS256 signed with the public key as the secret (algorithm confusion)', async () => {
      const token = await forgeHs256WithPublicKey(provider.currentKey, claims());
      expect(await refusal(verifier().verify(token))).toBe("The token's signature algorithm 'HS256' is not accepted");
    });

    it('a token whose signature was tampered with, or whose payload was', async () => {
      const token = await provider.token({ resource: RESOURCE, scope: 'notes:read' });
      const [header, payload, signature] = token.split('.');
      const flipped = `${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`;
      expect(await refusal(verifier().verify(`${header}.${payload}.${flipped}`))).toBe(
        'The token signature does not verify',
      );
      const widened = Buffer.from(
        JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), scope: SCOPES }),
      ).toString('base64url');
      expect(await refusal(verifier().verify(`${header}.${widened}.${signature}`))).toBe(
        'The token signature does not verify',
      );
    });

    it('garbage', async () => {
      for (const token of ['abc', 'a.b.c', 'eyJhbGciOiJFUzI1NiJ9..']) {
        expect(await refusal(verifier().verify(token))).toBe('The access token is not a well-formed JWT');
      }
    });
  });

  it('refuses symmetric algorithms in its configuration', () => {
    expect(() => verifier({ algorithms: ['HS256'] })).toThrow(/HS\* and none are never accepted/);
  });
});

describe('McpJwtVerifier: key rotation and outages', () => {
  let provider: OidcHarness;

  beforeAll(async () => {
    Logger.overrideLogger(false);
    provider = await OidcHarness.start({ resources: { [RESOURCE]: { scope: SCOPES } } });
  });

  afterAll(() => provider?.close());

  it('picks up a rotated key without a restart', async () => {
    const v = new McpJwtVerifier({ issuer: provider.issuer, audience: RESOURCE, jwksCooldownMs: 0 });
    await v.verify(await provider.token({ resource: RESOURCE }));
    const before = provider.hitsOf('/jwks');
    const key = await provider.rotateKeys();
    const token = await provider.token({ resource: RESOURCE });
    expect(JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString()).kid).toBe(key.kid);
    await expect(v.verify(token)).resolves.toMatchObject({ issuer: provider.issuer });
    expect(provider.hitsOf('/jwks') - before).toBe(1);
  });

  it('fetches the key set at most once per cooldown for unknown key ids', async () => {
    const v = new McpJwtVerifier({ issuer: provider.issuer, audience: RESOURCE, jwksCooldownMs: 60_000 });
    await v.verify(await provider.token({ resource: RESOURCE }));
    const before = provider.hitsOf('/jwks');
    const claims = accessTokenClaims({ issuer: provider.issuer, audience: RESOURCE });
    for (let i = 0; i < 5; i++) {
      const token = await forgeSigned(provider.currentKey, claims, { kid: `random-${i}` });
      expect(await refusal(v.verify(token))).toBe("No key of the issuer matches the token's key id");
    }
    expect(provider.hitsOf('/jwks')).toBe(before);
  });

  it('keeps verifying with cached keys while the provider is down, and answers unavailable for a token that needs a fresh key', async () => {
    const v = new McpJwtVerifier({ issuer: provider.issuer, audience: RESOURCE, jwksCooldownMs: 0 });
    const cached = await provider.token({ resource: RESOURCE });
    await v.verify(cached);
    await provider.rotateKeys();
    const fresh = await provider.token({ resource: RESOURCE });
    await provider.down();
    try {
      await expect(v.verify(cached)).resolves.toMatchObject({ issuer: provider.issuer });
      const error = await failure(v.verify(fresh));
      expect(error).toBeInstanceOf(McpAuthServerUnavailableError);
      // A malformed token needs no key: it stays a plain refusal during the outage.
      expect(await refusal(v.verify('a.b.c'))).toBe('The access token is not a well-formed JWT');
    } finally {
      await provider.up();
    }
    await expect(v.verify(fresh)).resolves.toMatchObject({ issuer: provider.issuer });
  });

  it('keeps using stale keys when a scheduled refresh fails', async () => {
    const v = new McpJwtVerifier({ issuer: provider.issuer, audience: RESOURCE, jwksMaxAgeMs: 0 });
    const token = await provider.token({ resource: RESOURCE });
    await v.verify(token);
    await provider.down();
    try {
      await expect(v.verify(token)).resolves.toMatchObject({ issuer: provider.issuer });
    } finally {
      await provider.up();
    }
  });

  it('answers unavailable when the provider is down before any key was fetched', async () => {
    const token = await provider.token({ resource: RESOURCE });
    const v = new McpJwtVerifier({ issuer: provider.issuer, audience: RESOURCE });
    await provider.down();
    try {
      expect(await failure(v.verify(token))).toBeInstanceOf(McpAuthServerUnavailableError);
    } finally {
      await provider.up();
    }
    await expect(v.verify(token)).resolves.toMatchObject({ issuer: provider.issuer });
  });
});

describe('McpIntrospectionVerifier against oidc-provider', () => {
  let provider: OidcHarness;
  const introspection = () =>
    new McpIntrospectionVerifier({
      issuer: provider.issuer,
      audience: OPAQUE_RESOURCE,
      clientId: HARNESS_CLIENT.clientId,
      clientSecret: HARNESS_CLIENT.clientSecret,
    });

  beforeAll(async () => {
    Logger.overrideLogger(false);
    provider = await OidcHarness.start({
      resources: {
        [OPAQUE_RESOURCE]: { scope: SCOPES, format: 'opaque' },
        [OTHER_RESOURCE]: { scope: SCOPES, format: 'opaque' },
      },
    });
  });

  afterAll(() => provider?.close());

  it('verifies an active opaque token through the discovered introspection endpoint', async () => {
    const token = await provider.token({ resource: OPAQUE_RESOURCE, scope: 'notes:write' });
    await expect(introspection().verify(token)).resolves.toEqual({
      issuer: provider.issuer,
      subject: undefined,
      clientId: HARNESS_CLIENT.clientId,
      audience: [OPAQUE_RESOURCE],
      scopes: ['notes:write'],
      expiresAt: expect.any(Number),
      claims: expect.objectContaining({ active: true }),
    });
  });

  it('reuses an answer for the same token (a short cache)', async () => {
    const v = introspection();
    const token = await provider.token({ resource: OPAQUE_RESOURCE });
    const before = provider.hitsOf('/token/introspection');
    await v.verify(token);
    await v.verify(token);
    expect(provider.hitsOf('/token/introspection') - before).toBe(1);
  });

  it('refuses an inactive token and a token for another resource', async () => {
    expect(await refusal(introspection().verify('not-a-token-the-provider-issued'))).toBe(
      'The access token is not active',
    );
    const other = await provider.token({ resource: OTHER_RESOURCE });
    expect(await refusal(introspection().verify(other))).toBe('The token was not issued for this resource (aud)');
  });

  it('answers unavailable when the provider is down and the answer is not cached, and keeps cached answers', async () => {
    const v = introspection();
    const cached = await provider.token({ resource: OPAQUE_RESOURCE });
    const unknown = await provider.token({ resource: OPAQUE_RESOURCE });
    await v.verify(cached);
    await provider.down();
    try {
      await expect(v.verify(cached)).resolves.toMatchObject({ clientId: HARNESS_CLIENT.clientId });
      expect(await failure(v.verify(unknown))).toBeInstanceOf(McpAuthServerUnavailableError);
    } finally {
      await provider.up();
    }
  });

  it('treats its own rejected credentials as a server problem (unavailable), not the caller’s', async () => {
    const v = new McpIntrospectionVerifier({
      issuer: provider.issuer,
      audience: OPAQUE_RESOURCE,
      clientId: HARNESS_CLIENT.clientId,
      clientSecret: 'wrong',
    });
    const token = await provider.token({ resource: OPAQUE_RESOURCE });
    expect(await failure(v.verify(token))).toBeInstanceOf(McpAuthServerUnavailableError);
  });
});
