/**
 * The skills extension (`io.modelcontextprotocol/skills`) over Streamable HTTP, in both eras, as
 * raw JSON-RPC: the declaration (`initialize`, `server/discover`), `skills/list` pages,
 * `skills/get`, each `SKILL.md` in `resources/list`, every file readable with the bytes its
 * digest covers, `resources/directory/read`; then the official SDK client's skills API, which
 * verifies every file it reads against the entry.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { McpDefinitionError } from '@app/mcp';
import { bootstrapFixtureApp, startFixtureApp, type FixtureApp } from '../fixtures/fixture-app.js';
import { startGateway, type RunningGateway } from '../support/gateway-app.js';
import { openSession, rawPost } from '../support/raw-http.js';
import { modernRequest } from '../support/modern-tasks-client.js';

const SKILLS = fileURLToPath(new URL('../fixtures/skills', import.meta.url));
const EXTENSION = 'io.modelcontextprotocol/skills';
const WEEKLY = 'skill://weekly-report/SKILL.md';
const ONBOARDING = 'skill://acme/onboarding/SKILL.md';

const digestOf = (bytes: Uint8Array | string): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
const fileBytes = (path: string): Buffer => readFileSync(`${SKILLS}/${path}`);

/** The entry of weekly-report, as the extension describes it: every file with its digest and size. */
const weeklyEntry = {
  uri: WEEKLY,
  frontmatter: {
    name: 'weekly-report',
    description: 'Assemble the weekly report from the templates in templates/',
    license: 'MIT',
    metadata: { version: '2.1' },
  },
  resources: ['SKILL.md', 'logo.png', 'templates/regional/eu.md', 'templates/summary.md'].map((path) => ({
    uri: `skill://weekly-report/${path}`,
    digest: digestOf(fileBytes(`weekly-report/${path}`)),
    size: fileBytes(`weekly-report/${path}`).length,
  })),
};

/** One era's way of sending a request: the JSON-RPC message that answers it. */
type Send = (method: string, params?: Record<string, unknown>) => Promise<any>;

/** The same checks in both eras; `modern` adds what only 2026-07-28 results carry. */
function describeTheWire(era: 'legacy' | 'modern', send: () => Send) {
  const cacheFields = era === 'modern' ? { resultType: 'complete', ttlMs: 0, cacheScope: 'public' } : {};
  /** Every item of a paginated method (the app serves one item per page), each page checked. */
  const walk = async (method: string, params: Record<string, unknown>, key: string): Promise<any[]> => {
    const items: any[] = [];
    let cursor: string | undefined;
    do {
      const page = await send()(method, cursor === undefined ? params : { ...params, cursor });
      expect(page.result).toMatchObject(cacheFields);
      items.push(...page.result[key]);
      cursor = page.result.nextCursor;
    } while (cursor !== undefined);
    return items;
  };

  it('lists every skill, one whole entry per item, across pages', async () => {
    const first = await send()('skills/list', {});
    expect(first.result).toMatchObject({ skills: [{ uri: ONBOARDING }], ...cacheFields });
    expect(first.result.nextCursor).toEqual(expect.any(String));

    const second = await send()('skills/list', { cursor: first.result.nextCursor });
    expect(second.result).toMatchObject({ skills: [weeklyEntry], ...cacheFields });
    expect(second.result.nextCursor).toBeUndefined();
    expect(second.result.skills[0].resources).toEqual(weeklyEntry.resources);

    const forged = await send()('skills/list', { cursor: 'not a cursor' });
    expect(forged.error).toMatchObject({ code: -32602 });
  });

  it('gets one skill by its SKILL.md URI, and answers -32602 for one it does not serve', async () => {
    const found = await send()('skills/get', { uri: WEEKLY });
    expect(found.result).toMatchObject({ skill: weeklyEntry, ...cacheFields });
    expect(found.result.nextCursor).toBeUndefined();

    const unknown = await send()('skills/get', { uri: 'skill://weekly-report/templates/summary.md' });
    expect(unknown.error).toMatchObject({ code: -32602 });
    expect(JSON.stringify(unknown.error)).toContain('No skill is served at skill://weekly-report/templates/summary.md');
    const missing = await send()('skills/get', {});
    expect(missing.error).toMatchObject({ code: -32602 });
    const tooLong = await send()('skills/get', { uri: `skill://${'a'.repeat(9_000)}/SKILL.md` });
    expect(tooLong.error).toMatchObject({ code: -32602 });
    expect(JSON.stringify(tooLong.error)).toContain('URI too long');
    expect(JSON.stringify(tooLong.error).length).toBeLessThan(1_000);
  });

  it("lists each SKILL.md as a resource with its frontmatter's name and description, and no other file", async () => {
    const listed = await walk('resources/list', {}, 'resources');

    const skillResources = listed.filter((resource: any) => resource.uri.startsWith('skill://'));
    expect(skillResources).toEqual([
      {
        uri: ONBOARDING,
        name: 'onboarding',
        description: 'Welcome a new team member, one step a day',
        mimeType: 'text/markdown',
        size: fileBytes('acme/onboarding/SKILL.md').length,
      },
      {
        uri: WEEKLY,
        name: 'weekly-report',
        description: 'Assemble the weekly report from the templates in templates/',
        mimeType: 'text/markdown',
        size: fileBytes('weekly-report/SKILL.md').length,
      },
    ]);
  });

  it('reads every file as the bytes its digest covers: markdown as text, the logo as a blob', async () => {
    const manifest = await send()('resources/read', { uri: WEEKLY });
    expect(manifest.result.contents).toEqual([
      { uri: WEEKLY, mimeType: 'text/markdown', text: fileBytes('weekly-report/SKILL.md').toString('utf8') },
    ]);
    const logo = await send()('resources/read', { uri: 'skill://weekly-report/logo.png' });
    expect(logo.result.contents[0]).toMatchObject({ mimeType: 'image/png' });
    expect(digestOf(Buffer.from(logo.result.contents[0].blob, 'base64'))).toBe(weeklyEntry.resources[1].digest);
    const template = await send()('resources/read', { uri: 'skill://weekly-report/templates/summary.md' });
    expect(digestOf(template.result.contents[0].text)).toBe(weeklyEntry.resources[3].digest);
  });

  it('reads directories: direct children, folders as inode/directory, -32602 for a file', async () => {
    const root = await walk('resources/directory/read', { uri: 'skill://weekly-report' }, 'resources');
    expect(root).toEqual([
      expect.objectContaining({ uri: WEEKLY, name: 'weekly-report', mimeType: 'text/markdown' }),
      expect.objectContaining({ uri: 'skill://weekly-report/logo.png', name: 'logo.png', mimeType: 'image/png' }),
      { uri: 'skill://weekly-report/templates', name: 'templates', mimeType: 'inode/directory' },
    ]);
    const prefix = await walk('resources/directory/read', { uri: 'skill://acme' }, 'resources');
    expect(prefix).toEqual([{ uri: 'skill://acme/onboarding', name: 'onboarding', mimeType: 'inode/directory' }]);

    const notDirectory = await send()('resources/directory/read', { uri: WEEKLY });
    expect(notDirectory.error).toMatchObject({ code: -32602 });
    expect(JSON.stringify(notDirectory.error)).toContain(`${WEEKLY} is not a directory resource`);
    const unknown = await send()('resources/directory/read', { uri: 'skill://nowhere' });
    expect(unknown.error).toMatchObject({ code: -32602 });
  });
}

describe('skills', () => {
  let fixture: FixtureApp;

  beforeAll(async () => {
    fixture = await startFixtureApp({ mcp: { pageSize: 1, skills: { directories: [SKILLS] } } });
  });
  afterAll(() => fixture?.close());

  describe('2025-11-25 (initialize, sessions)', () => {
    let headers: Record<string, string>;
    let nextId = 1;
    const send: Send = async (method, params) => {
      const answer = await rawPost(fixture.endpoint, { jsonrpc: '2.0', id: nextId++, method, params }, headers);
      expect(answer.status).toBe(200);
      return answer.json;
    };

    beforeAll(async () => {
      ({ headers } = await openSession(fixture.endpoint));
    });

    it('declares the extension inline in the initialize capabilities, beside resources', async () => {
      const answer = await rawPost(fixture.endpoint, {
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'skills', version: '1' } },
      });

      expect(answer.json.result.capabilities.extensions).toEqual({ [EXTENSION]: { directoryRead: true } });
      expect(answer.json.result.capabilities.resources).toBeDefined();
    });

    describeTheWire('legacy', () => send);
  });

  describe('2026-07-28 (server/discover, stateless)', () => {
    const send: Send = async (method, params) =>
      (await modernRequest(fixture.endpoint, method, params, { capabilities: {} })).message;

    it('declares the extension inline in server/discover, beside resources', async () => {
      const discovered = await send('server/discover', {});

      expect(discovered.result.capabilities.extensions).toEqual({ [EXTENSION]: { directoryRead: true } });
      expect(discovered.result.capabilities.resources).toBeDefined();
    });

    describeTheWire('modern', () => send);
  });

  describe.each([
    ['2025-11-25', { mode: 'legacy' as const }],
    ['2026-07-28', { mode: 'pin' as const, version: '2026-07-28' }],
  ])('the official SDK client (%s)', (_era, negotiation) => {
    let client: Client;

    beforeAll(async () => {
      client = new Client(
        { name: 'skills-e2e', version: '1.0.0' },
        { versionNegotiation: { mode: negotiation.mode === 'legacy' ? 'legacy' : { pin: negotiation.version } } },
      );
      await client.connect(new StreamableHTTPClientTransport(new URL(fixture.endpoint)));
    });
    afterAll(() => client?.close());

    it('lists the skills, and reads and verifies every file of each', async () => {
      const skills = new SkillsClient(client);
      expect(skills.supported).toBe(true);
      expect(skills.directoryRead).toBe(true);

      const { skills: entries, invalid } = await skills.list();

      expect(invalid).toEqual([]);
      expect(entries.map((entry) => entry.uri)).toEqual([ONBOARDING, WEEKLY]);
      for (const entry of entries) {
        const manifest = await skills.read(entry);
        expect(manifest).toMatchObject({ verified: true, frontmatter: entry.frontmatter });
        for (const file of entry.resources as { uri: string }[]) {
          await expect(skills.read(entry, file.uri)).resolves.toMatchObject({ verified: true });
        }
      }
      const { skill } = await skills.get(WEEKLY);
      expect(skill).toEqual(weeklyEntry);
      const { resources } = await skills.readDirectory('skill://weekly-report/templates');
      expect(resources.map((resource) => resource.uri)).toEqual([
        'skill://weekly-report/templates/regional',
        'skill://weekly-report/templates/summary.md',
      ]);
    });
  });
});

describe('skills without directory reads', () => {
  let fixture: FixtureApp;

  beforeAll(async () => {
    fixture = await startFixtureApp({ mcp: { skills: { directories: [SKILLS], directoryRead: false } } });
  });
  afterAll(() => fixture?.close());

  it('declares the extension with no setting and does not serve resources/directory/read, in both eras', async () => {
    const { headers } = await openSession(fixture.endpoint);
    const legacy = await rawPost(
      fixture.endpoint,
      { jsonrpc: '2.0', id: 1, method: 'resources/directory/read', params: { uri: 'skill://weekly-report' } },
      headers,
    );
    const discover = await modernRequest(fixture.endpoint, 'server/discover', {}, { capabilities: {} });
    const modern = await modernRequest(
      fixture.endpoint,
      'resources/directory/read',
      { uri: 'skill://weekly-report' },
      { capabilities: {} },
    );

    expect(discover.message.result.capabilities.extensions).toEqual({ [EXTENSION]: {} });
    expect(legacy.json.error).toMatchObject({ code: -32601 });
    expect(modern.message.error).toMatchObject({ code: -32601 });
    const listed = await modernRequest(fixture.endpoint, 'skills/list', {}, { capabilities: {} });
    expect(listed.message.result.skills).toHaveLength(2);
  });
});

describe('a server without skills', () => {
  it('declares no extension and does not know the skills methods', async () => {
    const fixture = await startFixtureApp({});
    try {
      const discover = await modernRequest(fixture.endpoint, 'server/discover', {}, { capabilities: {} });
      const listed = await modernRequest(fixture.endpoint, 'skills/list', {}, { capabilities: {} });

      expect(discover.message.result.capabilities.extensions).toBeUndefined();
      expect(listed.message.error).toMatchObject({ code: -32601 });
    } finally {
      await fixture.close();
    }
  });

  it('fails to start when a skills folder is wrong, naming it', async () => {
    const missing = `${SKILLS}/missing`;

    const failure = await bootstrapFixtureApp({ mcp: { skills: { directories: [missing] } } }).then(
      () => undefined,
      (error: unknown) => error,
    );

    expect(failure).toBeInstanceOf(McpDefinitionError);
    expect((failure as Error).message).toContain(`Skills folder '${missing}' does not exist`);
  });
});

describe("the reference gateway's notes skill", () => {
  let gateway: RunningGateway;
  let client: Client;

  beforeAll(async () => {
    gateway = await startGateway();
    client = new Client({ name: 'skills-e2e', version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' } });
    await client.connect(new StreamableHTTPClientTransport(new URL(gateway.endpoint)));
  });
  afterAll(async () => {
    await client?.close();
    await gateway?.close();
  });

  it('is published with its references, each linked from SKILL.md, and every file verifies', async () => {
    const skills = new SkillsClient(client);

    const { skills: entries } = await skills.list();

    expect(entries.map((entry) => entry.uri)).toEqual(['skill://notes/SKILL.md']);
    const [notes] = entries;
    expect(notes.frontmatter.name).toBe('notes');
    const files = (notes.resources as { uri: string }[]).map((file) => file.uri);
    expect(files).toEqual([
      'skill://notes/SKILL.md',
      'skill://notes/references/export.md',
      'skill://notes/references/search.md',
    ]);
    const manifest = await skills.read(notes);
    // Every relative link of SKILL.md names a file of the skill (a host resolves it against the skill root).
    const links = [...manifest.body!.matchAll(/\]\(([^)]+)\)/g)].map((match) => match[1]);
    expect(links).toEqual(['references/search.md', 'references/export.md']);
    for (const link of links) await expect(skills.read(notes, link)).resolves.toMatchObject({ verified: true });
    expect(client.getInstructions()).toContain('skill://notes/SKILL.md');
  });
});
