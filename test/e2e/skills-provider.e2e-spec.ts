/**
 * Skills from a provider (`McpSkills`): registered, replaced and removed while the application
 * runs, beside the skills of a folder, served in both eras exactly as folder skills are (entries
 * with digests, files readable), checked as folder skills are, bounded, and announced: a 2025
 * session hears `list_changed` on its stream (and `updated` for a file it subscribed to), a
 * 2026-07-28 client through `subscriptions/listen`.
 */
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { McpDefinitionError, McpSkills } from '@app/mcp';
import { startFixtureApp, type FixtureApp } from '../fixtures/fixture-app.js';
import { openSession } from '../support/raw-http.js';
import { modernRequest } from '../support/modern-tasks-client.js';
import { connectSdkV2, PINNED, type SdkV2Connection } from '../support/sdk-v2-clients.js';
import { isListChanged, isUpdated, rawSession, type RawSession, type SseClient } from '../support/sse-client.js';

const FOLDER = fileURLToPath(new URL('../fixtures/skills', import.meta.url));
const REFUNDS = 'skill://billing/refunds/SKILL.md';
const WAIT_MS = 10_000;

const digestOf = (bytes: Uint8Array | string): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
const manifest = (name: string, description: string): string =>
  `---\nname: ${name}\ndescription: ${description}\n---\n\n# ${name}\n`;
const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 1, 2, 255]);

describe('skills registered at runtime (McpSkills)', () => {
  let fixture: FixtureApp;
  let skills: McpSkills;
  let session: RawSession;
  let stream: SseClient;
  let modern: SdkV2Connection | undefined;

  beforeEach(async () => {
    fixture = await startFixtureApp({
      mcp: {
        skills: { directories: [FOLDER], maxRuntimeSkills: 2, maxFilesPerSkill: 4 },
        delivery: { listChangedDebounceMs: 10 },
      },
    });
    skills = fixture.app.get(McpSkills);
    session = rawSession(fixture.endpoint, await openSession(fixture.endpoint));
    stream = await session.openStream();
    expect(stream.status).toBe(200);
  });

  afterEach(async () => {
    stream?.close();
    await modern?.close();
    modern = undefined;
    await fixture?.close();
  });

  const listed = async (): Promise<string[]> =>
    (await session.rpc('skills/list')).result.skills.map((skill: { uri: string }) => skill.uri);

  it('serves a registered skill in both eras beside the folder skills: entry, digests, files, resources/list', async () => {
    const guide = 'Refund within 30 days.\n';
    const refundsManifest = manifest('refunds', 'How to refund an order');
    await skills.register('billing/refunds', {
      'SKILL.md': manifest('refunds', 'How to refund an order'),
      'references/policy.md': guide,
      'assets/stamp.png': PNG,
    });

    await stream.waitFor(isListChanged, WAIT_MS);
    expect(await listed()).toEqual(['skill://acme/onboarding/SKILL.md', REFUNDS, 'skill://weekly-report/SKILL.md']);
    const expected = {
      uri: REFUNDS,
      frontmatter: { name: 'refunds', description: 'How to refund an order' },
      resources: [
        { uri: REFUNDS, digest: digestOf(refundsManifest), size: Buffer.byteLength(refundsManifest) },
        { uri: 'skill://billing/refunds/assets/stamp.png', digest: digestOf(PNG), size: PNG.length },
        { uri: 'skill://billing/refunds/references/policy.md', digest: digestOf(guide), size: guide.length },
      ],
    };
    expect((await session.rpc('skills/get', { uri: REFUNDS })).result.skill).toEqual(expected);
    const modernGet = await modernRequest(fixture.endpoint, 'skills/get', { uri: REFUNDS });
    expect(modernGet.json.result.skill).toEqual(expected);

    const read = await session.rpc('resources/read', { uri: 'skill://billing/refunds/references/policy.md' });
    expect(read.result.contents[0]).toMatchObject({ text: guide, mimeType: 'text/markdown' });
    const blob = await session.rpc('resources/read', { uri: 'skill://billing/refunds/assets/stamp.png' });
    expect(Buffer.from(blob.result.contents[0].blob, 'base64')).toEqual(Buffer.from(PNG));
    const resources = (await session.rpc('resources/list')).result.resources.map((r: { uri: string }) => r.uri);
    expect(resources).toContain(REFUNDS);
    expect(resources).not.toContain('skill://billing/refunds/references/policy.md');
    const folder = await session.rpc('resources/directory/read', { uri: 'skill://billing/refunds' });
    expect(folder.result.resources.map((r: { uri: string }) => r.uri)).toEqual([
      REFUNDS,
      'skill://billing/refunds/assets',
      'skill://billing/refunds/references',
    ]);
    expect(skills.paths()).toEqual(['billing/refunds']);
  });

  it('a 2026-07-28 client listening for resource list changes hears each registration and removal', async () => {
    modern = await connectSdkV2('http', { mode: PINNED, endpoint: fixture.endpoint, elicitation: false });
    const heard: string[] = [];
    let wake: () => void = () => undefined;
    modern.client.setNotificationHandler('notifications/resources/list_changed', (notification) => {
      heard.push(notification.method);
      wake();
    });
    const next = (count: number) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`heard ${heard.length} list changes, not ${count}`)), WAIT_MS);
        wake = () => {
          if (heard.length < count) return;
          clearTimeout(timer);
          resolve();
        };
        wake();
      });
    const subscription = await modern.client.listen({ resourcesListChanged: true });

    await skills.register('refunds', {
      'SKILL.md': manifest('refunds', 'How to refund an order'),
      'stamp.png': PNG,
    });
    await next(1);
    // The official client's skills API verifies each file against the entry's digest and size.
    const client = new SkillsClient(modern.client);
    const { skills: entries, invalid } = await client.list();
    expect(invalid).toEqual([]);
    const refunds = entries.find((entry) => entry.uri === 'skill://refunds/SKILL.md')!;
    await expect(client.read(refunds)).resolves.toMatchObject({ verified: true });
    await expect(client.read(refunds, 'skill://refunds/stamp.png')).resolves.toMatchObject({ verified: true });
    expect(await skills.remove('refunds')).toBe(true);
    await next(2);
    await subscription.close();
  });

  it('a replacement tells the subscribers of a changed file; a removal answers -32002 for its files after', async () => {
    await skills.register('billing/refunds', { 'SKILL.md': manifest('refunds', 'How to refund an order') });
    await stream.waitFor(isListChanged, WAIT_MS);
    expect((await session.subscribe(REFUNDS)).result).toBeDefined();

    const from = stream.events.length;
    await skills.register('billing/refunds', { 'SKILL.md': manifest('refunds', 'How to refund an order, fast') });
    await stream.waitFor(isUpdated(REFUNDS), WAIT_MS, from);
    const got = await session.rpc('skills/get', { uri: REFUNDS });
    expect(got.result.skill.frontmatter.description).toBe('How to refund an order, fast');

    const before = stream.events.length;
    expect(await skills.remove('billing/refunds')).toBe(true);
    expect(await skills.remove('billing/refunds')).toBe(false);
    await stream.waitFor(isUpdated(REFUNDS), WAIT_MS, before);
    expect((await session.rpc('resources/read', { uri: REFUNDS })).error.code).toBe(-32002);
    expect((await session.rpc('skills/get', { uri: REFUNDS })).error.code).toBe(-32602);
    expect(await listed()).not.toContain(REFUNDS);
  });

  it('registers a folder as a skill, read and checked as the folders of skills.directories are', async () => {
    await skills.registerFolder('docs/weekly-report', `${FOLDER}/weekly-report`);
    const got = await session.rpc('skills/get', { uri: 'skill://docs/weekly-report/SKILL.md' });
    expect(got.result.skill.resources.map((file: { uri: string }) => file.uri)).toEqual([
      'skill://docs/weekly-report/SKILL.md',
      'skill://docs/weekly-report/logo.png',
      'skill://docs/weekly-report/templates/regional/eu.md',
      'skill://docs/weekly-report/templates/summary.md',
    ]);
    await expect(skills.registerFolder('docs/onboarding', `${FOLDER}/acme`)).rejects.toThrow(/no SKILL\.md at its top/);
    await expect(skills.registerFolder('docs/none', `${FOLDER}/none`)).rejects.toThrow(/does not exist/);
  });

  it.each([
    [
      'a path that leaves the namespace',
      '../escape',
      { 'SKILL.md': manifest('escape', 'x') },
      /empty segment, or one starting with a dot/,
    ],
    ['no SKILL.md', 'refunds', { 'guide.md': 'x' }, /a skill has a SKILL\.md at its top/],
    [
      'frontmatter without a description',
      'refunds',
      { 'SKILL.md': '---\nname: refunds\n---\n' },
      /has no 'description'/,
    ],
    [
      'a name other than the folder',
      'refunds',
      { 'SKILL.md': manifest('returns', 'x') },
      /names the skill 'returns', but its folder is 'refunds'/,
    ],
    [
      'a name that breaks the rules',
      'Refunds',
      { 'SKILL.md': manifest('Refunds', 'x') },
      /breaks the Agent Skills naming rules/,
    ],
    [
      'a file path with ..',
      'refunds',
      { 'SKILL.md': manifest('refunds', 'x'), 'a/../../b.md': 'x' },
      /the file path 'a\/\.\.\/\.\.\/b\.md'/,
    ],
    [
      'a nested SKILL.md',
      'refunds',
      { 'SKILL.md': manifest('refunds', 'x'), 'inner/SKILL.md': manifest('inner', 'x') },
      /register a skill inside it on its own/,
    ],
    [
      'too many files',
      'refunds',
      { 'SKILL.md': manifest('refunds', 'x'), a: 'a', b: 'b', c: 'c', d: 'd' },
      /more than skills\.maxFilesPerSkill \(4\)/,
    ],
    [
      "a folder skill's path",
      'weekly-report',
      { 'SKILL.md': manifest('weekly-report', 'x') },
      /overlaps the skill at skill:\/\/weekly-report/,
    ],
    [
      'a path inside a folder skill',
      'acme/onboarding/extra',
      { 'SKILL.md': manifest('extra', 'x') },
      /overlaps the skill at skill:\/\/acme\/onboarding/,
    ],
  ])('refuses %s, naming the problem, and serves nothing new', async (_case, path, files, message) => {
    const rejection = skills.register(path, files);
    await expect(rejection).rejects.toThrow(McpDefinitionError);
    await expect(rejection).rejects.toThrow(message);
    expect(skills.paths()).toEqual([]);
    expect(await listed()).toHaveLength(2);
  });

  it('holds at most skills.maxRuntimeSkills; a replacement still goes, a removal makes room', async () => {
    await skills.register('one', { 'SKILL.md': manifest('one', 'x') });
    await skills.register('two', { 'SKILL.md': manifest('two', 'x') });
    await expect(skills.register('three', { 'SKILL.md': manifest('three', 'x') })).rejects.toThrow(
      /2 skills are registered, as many as skills\.maxRuntimeSkills allows/,
    );
    await skills.register('two', { 'SKILL.md': manifest('two', 'y') });
    await skills.remove('one');
    await skills.register('three', { 'SKILL.md': manifest('three', 'x') });
    expect(skills.paths()).toEqual(['three', 'two']);
  });

  it('scopes given at registration apply without auth as none (every caller sees the skill)', async () => {
    await skills.register('refunds', { 'SKILL.md': manifest('refunds', 'x') }, { requiredScopes: ['billing'] });
    expect(await listed()).toContain('skill://refunds/SKILL.md');
    await expect(
      skills.register('bad', { 'SKILL.md': manifest('bad', 'x') }, { requiredScopes: ['a b'] }),
    ).rejects.toThrow(/Invalid scope "a b"/);
  });
});

describe('McpSkills without the skills option', () => {
  it('refuses to register, saying which option turns skills on', async () => {
    const fixture = await startFixtureApp();
    try {
      await expect(fixture.app.get(McpSkills).register('x', { 'SKILL.md': manifest('x', 'x') })).rejects.toThrow(
        /the skills extension is off; set the 'skills' option/,
      );
    } finally {
      await fixture.close();
    }
  });
});
