/**
 * Scopes on skills (`skills.requiredScopes`) in resource-server mode: a caller without a skill's
 * scopes does not see it in `skills/list` or `resources/list`, and `skills/get`, `resources/read`
 * of its files and `resources/directory/read` of its folders answer 403 `insufficient_scope`, as
 * for a resource with `@RequireScopes()`. Without `auth` the scopes change nothing.
 */
import { fileURLToPath } from 'node:url';
import { McpSkills } from '@app/mcp';
import { startFixtureApp, type FixtureApp } from '../fixtures/fixture-app.js';
import { modernRequest } from '../support/modern-tasks-client.js';
import { authedSession, bearer, call, challengeOf } from '../support/oauth/auth-http.js';
import { STUB_ISSUER, StubTokenVerifier } from '../support/oauth/stub-verifier.js';

const SKILLS = fileURLToPath(new URL('../fixtures/skills', import.meta.url));
const WEEKLY = 'skill://weekly-report/SKILL.md';
const ONBOARDING = 'skill://acme/onboarding/SKILL.md';
const requiredScopes = { 'weekly-report': ['reports:read'] };

describe('skills with required scopes, authorization on', () => {
  const verifier = new StubTokenVerifier();
  let fixture: FixtureApp;
  const send = (token: string, method: string, params: Record<string, unknown> = {}) =>
    modernRequest(fixture.endpoint, method, params, { capabilities: {}, headers: bearer(token) });

  beforeAll(async () => {
    fixture = await startFixtureApp({
      mcp: {
        skills: { directories: [SKILLS], requiredScopes },
        auth: { resource: 'http://127.0.0.1/mcp', authorizationServers: [STUB_ISSUER], verifier },
      },
    });
  });
  afterAll(() => fixture?.close());

  it('a caller without the scopes sees neither the skill nor its SKILL.md; one with them sees both', async () => {
    const reader = verifier.mint({ subject: 'reader', scopes: ['reports:read'] });
    const other = verifier.mint({ subject: 'other' });

    const hidden = await send(other, 'skills/list');
    expect(hidden.message.result.skills.map((skill: { uri: string }) => skill.uri)).toEqual([ONBOARDING]);
    expect(hidden.message.result.cacheScope).toBe('private');
    const hiddenResources = await send(other, 'resources/list');
    expect(hiddenResources.message.result.resources.map((resource: { uri: string }) => resource.uri)).toEqual([
      ONBOARDING,
    ]);
    const hiddenPrefix = await send(other, 'resources/directory/read', { uri: 'skill://acme' });
    expect(hiddenPrefix.message.result.resources.map((entry: { uri: string }) => entry.uri)).toEqual([
      'skill://acme/onboarding',
    ]);

    const shown = await send(reader, 'skills/list');
    expect(shown.message.result.skills.map((skill: { uri: string }) => skill.uri)).toEqual([ONBOARDING, WEEKLY]);
    const shownResources = await send(reader, 'resources/list');
    expect(shownResources.message.result.resources.map((resource: { uri: string }) => resource.uri)).toEqual([
      ONBOARDING,
      WEEKLY,
    ]);
  });

  it.each([
    ['skills/get', { uri: WEEKLY }],
    ['resources/read', { uri: WEEKLY }],
    ['resources/read', { uri: 'skill://weekly-report/templates/summary.md' }],
    ['resources/directory/read', { uri: 'skill://weekly-report' }],
    ['resources/directory/read', { uri: 'skill://weekly-report/templates' }],
  ])('%s %p without the scopes answers 403 insufficient_scope, as a scoped resource does', async (method, params) => {
    const other = verifier.mint({ subject: 'other' });
    const reader = verifier.mint({ subject: 'reader', scopes: ['reports:read'] });

    const refused = await send(other, method, params);

    expect(refused.status).toBe(403);
    expect(challengeOf(refused.headers.get('www-authenticate'))).toMatchObject({
      error: 'insufficient_scope',
      scope: 'reports:read',
    });
    expect(refused.message.error).toMatchObject({
      code: -32003,
      message: 'Insufficient scope',
      data: { requiredScopes: ['reports:read'] },
    });
    const allowed = await send(reader, method, params);
    expect(allowed.status).toBe(200);
    expect(allowed.message.result).toBeDefined();
  });

  it('2025-11-25: skills/list is filtered in a session too, and subscribing to a scoped skill file needs its scopes', async () => {
    const other = verifier.mint({ subject: 'other' });
    const reader = verifier.mint({ subject: 'reader', scopes: ['reports:read'] });
    const otherSession = await authedSession(fixture.endpoint, other);
    const readerSession = await authedSession(fixture.endpoint, reader);
    const file = { uri: 'skill://weekly-report/templates/summary.md' };

    const listed = await call(fixture.endpoint, other, otherSession, 'skills/list');
    expect(listed.json.result.skills.map((skill: { uri: string }) => skill.uri)).toEqual([ONBOARDING]);
    const refused = await call(fixture.endpoint, other, otherSession, 'resources/subscribe', file);
    expect(refused.status).toBe(403);
    expect(refused.json.error).toMatchObject({ code: -32003, data: { requiredScopes: ['reports:read'] } });
    const subscribed = await call(fixture.endpoint, reader, readerSession, 'resources/subscribe', file);
    expect(subscribed.status).toBe(200);
    expect(subscribed.json.result).toBeDefined();
  });

  it('an open skill stays open to every authenticated caller', async () => {
    const other = verifier.mint({ subject: 'other' });

    const got = await send(other, 'skills/get', { uri: ONBOARDING });
    expect(got.message.result.skill.uri).toBe(ONBOARDING);
    const read = await send(other, 'resources/read', { uri: ONBOARDING });
    expect(read.message.result.contents[0].uri).toBe(ONBOARDING);
  });
  it('a skill registered at runtime with scopes is hidden from a caller without them and refused to it', async () => {
    const skills = fixture.app.get(McpSkills);
    await skills.register(
      'billing/refunds',
      {
        'SKILL.md': '---\nname: refunds\ndescription: How to refund an order\n---\n',
        'policy.md': 'Within 30 days.\n',
      },
      { requiredScopes: ['billing:read'] },
    );
    try {
      const billing = verifier.mint({ subject: 'billing', scopes: ['billing:read'] });
      const other = verifier.mint({ subject: 'other', scopes: ['reports:read'] });
      const uris = async (token: string) =>
        (await send(token, 'skills/list')).message.result.skills.map((skill: { uri: string }) => skill.uri);

      expect(await uris(other)).not.toContain('skill://billing/refunds/SKILL.md');
      expect(await uris(billing)).toContain('skill://billing/refunds/SKILL.md');
      const refused = await send(other, 'resources/read', { uri: 'skill://billing/refunds/policy.md' });
      expect(refused.status).toBe(403);
      // The step-up challenge asks for the skill's scope beside those the caller holds.
      expect(challengeOf(refused.headers.get('www-authenticate')).scope.split(' ')).toContain('billing:read');
      const read = await send(billing, 'resources/read', { uri: 'skill://billing/refunds/policy.md' });
      expect(read.message.result.contents[0].text).toBe('Within 30 days.\n');
    } finally {
      await skills.remove('billing/refunds');
    }
  });
});

describe('skills with required scopes, authorization off', () => {
  let fixture: FixtureApp;

  beforeAll(async () => {
    fixture = await startFixtureApp({ mcp: { skills: { directories: [SKILLS], requiredScopes } } });
  });
  afterAll(() => fixture?.close());

  it('lists, gets and reads the scoped skill as any other', async () => {
    const send = (method: string, params: Record<string, unknown> = {}) =>
      modernRequest(fixture.endpoint, method, params, { capabilities: {} });

    const listed = await send('skills/list');
    expect(listed.message.result.skills.map((skill: { uri: string }) => skill.uri)).toEqual([ONBOARDING, WEEKLY]);
    expect(listed.message.result.cacheScope).toBe('public');
    expect((await send('skills/get', { uri: WEEKLY })).message.result.skill.uri).toBe(WEEKLY);
    expect((await send('resources/read', { uri: WEEKLY })).message.result.contents[0].uri).toBe(WEEKLY);
    expect((await send('resources/directory/read', { uri: 'skill://weekly-report' })).status).toBe(200);
  });
});
