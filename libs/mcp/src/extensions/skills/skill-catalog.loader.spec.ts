import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { McpDefinitionError } from '../../errors/mcp-bootstrap.errors.js';
import { resolveSkillOptions } from './skill-options.js';
import { loadSkillCatalog } from './skill-catalog.loader.js';

const manifest = (name: string, description = `What ${name} does`, extra = ''): string =>
  `---\nname: ${name}\ndescription: ${description}\n${extra}---\n\n# ${name}\n`;

const sha256 = (text: string | Uint8Array): string => `sha256:${createHash('sha256').update(text).digest('hex')}`;

describe('loadSkillCatalog', () => {
  let root: string;
  let outside: string;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'skills-'));
    outside = await mkdtemp(join(tmpdir(), 'outside-'));
  });

  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
  });

  const put = async (path: string, content: string | Uint8Array, base = root): Promise<string> => {
    const file = join(base, path);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, content);
    return file;
  };

  const load = (
    overrides: {
      maxFilesPerSkill?: number;
      maxBytesPerSkill?: number;
      directories?: string[];
      requiredScopes?: Record<string, string[]>;
    } = {},
  ) => loadSkillCatalog(resolveSkillOptions({ directories: [root], ...overrides })!);

  /** The definition error loading fails with (the test fails when loading succeeds). */
  const failure = async (overrides = {}): Promise<McpDefinitionError> => {
    const error = await load(overrides).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(McpDefinitionError);
    return error as McpDefinitionError;
  };

  it('makes a skill of every folder with a SKILL.md, with a digest and a size for each file', async () => {
    const body = manifest('notes', 'Search notes', 'license: MIT\nmetadata:\n  version: "1.0"\n');
    await put('notes/SKILL.md', body);
    await put('notes/references/search.md', '# Search\n');
    await put('notes/.DS_Store', 'ignored');
    await put('acme/billing/refunds/SKILL.md', manifest('refunds'));

    const catalog = await load();

    expect(catalog.size).toBe(2);
    const notes = catalog.skill('skill://notes/SKILL.md')!;
    expect(notes.frontmatter).toEqual({
      name: 'notes',
      description: 'Search notes',
      license: 'MIT',
      metadata: { version: '1.0' },
    });
    expect(notes.files.map((file) => [file.uri, file.digest, file.bytes.length])).toEqual([
      ['skill://notes/SKILL.md', sha256(body), Buffer.byteLength(body)],
      ['skill://notes/references/search.md', sha256('# Search\n'), 9],
    ]);
    expect(catalog.skill('skill://acme/billing/refunds/SKILL.md')?.frontmatter.name).toBe('refunds');
    expect(catalog.page(undefined, 1).items.map((skill) => skill.uri)).toEqual([
      'skill://acme/billing/refunds/SKILL.md',
    ]);
  });

  it('lists a nested skill on its own, and among the files of the skill around it', async () => {
    await put('outer/SKILL.md', manifest('outer'));
    await put('outer/inner/SKILL.md', manifest('inner'));

    const catalog = await load();

    expect(catalog.skill('skill://outer/SKILL.md')!.files.map((file) => file.uri)).toEqual([
      'skill://outer/SKILL.md',
      'skill://outer/inner/SKILL.md',
    ]);
    expect(catalog.skill('skill://outer/inner/SKILL.md')!.files.map((file) => file.uri)).toEqual([
      'skill://outer/inner/SKILL.md',
    ]);
    const inner = catalog.files().find((file) => file.uri === 'skill://outer/inner/SKILL.md')!;
    expect(inner.manifest).toBe(true);
    expect(inner.descriptor).toMatchObject({
      name: 'inner',
      description: 'What inner does',
      mimeType: 'text/markdown',
    });
  });

  it('knows every directory and its direct children, folders as inode/directory', async () => {
    await put('acme/billing/refunds/SKILL.md', manifest('refunds'));
    await put('acme/billing/refunds/templates/regional/eu.md', 'eu');
    await put('acme/billing/refunds/templates/invoice.md', 'invoice');

    const catalog = await load();

    expect(catalog.directory('skill://acme', undefined, 10)?.items.map((child) => child.descriptor)).toEqual([
      { uri: 'skill://acme/billing', name: 'billing', mimeType: 'inode/directory' },
    ]);
    expect(
      catalog.directory('skill://acme/billing/refunds/templates', undefined, 10)?.items.map((child) => child.uri),
    ).toEqual(['skill://acme/billing/refunds/templates/invoice.md', 'skill://acme/billing/refunds/templates/regional']);
    expect(catalog.directory('skill://acme/billing/refunds/SKILL.md', undefined, 10)).toBeUndefined();
  });

  it('serves UTF-8 as text (a byte order mark kept) and other bytes as a blob', async () => {
    await put('notes/SKILL.md', manifest('notes'));
    await put('notes/bom.txt', '\uFEFFwith a mark');
    await put('notes/logo.bin', new Uint8Array([0xff, 0xfe, 0x00, 0x81]));
    await put('notes/my notes.md', 'spaced');

    const files = new Map((await load()).files().map((file) => [file.uri, file]));

    expect(Buffer.from(files.get('skill://notes/bom.txt')!.text!, 'utf8')).toEqual(
      Buffer.from('\uFEFFwith a mark', 'utf8'),
    );
    expect(files.get('skill://notes/logo.bin')).toMatchObject({
      text: undefined,
      mimeType: 'application/octet-stream',
    });
    expect(files.get('skill://notes/my%20notes.md')?.descriptor).toMatchObject({ name: 'my notes.md' });
  });

  it.each([
    ['no frontmatter', '# notes\n', 'does not begin with a YAML frontmatter block'],
    ['no name', '---\ndescription: d\n---\n', "has no 'name'"],
    ['no description', '---\nname: notes\n---\n', "has no 'description'"],
    ['an empty description', '---\nname: notes\ndescription: ""\n---\n', "has no 'description'"],
    ['a name that is a number', '---\nname: 7\ndescription: d\n---\n', "'name' that is not a string"],
    ['a description too long', `---\nname: notes\ndescription: ${'d'.repeat(1_025)}\n---\n`, 'more than 1024'],
    ['YAML that does not parse', '---\nname: [notes\ndescription: d\n---\n', 'is not valid YAML'],
    ['a duplicate key', '---\nname: notes\nname: notes\ndescription: d\n---\n', 'is not valid YAML'],
    ['a list', '---\n- notes\n---\n', 'is not a YAML mapping'],
    ['a value JSON cannot carry', '---\nname: notes\ndescription: d\nweight: .inf\n---\n', 'JSON cannot carry'],
  ])('refuses a SKILL.md with %s, naming the file', async (_case, body, message) => {
    const file = await put('notes/SKILL.md', body);

    const error = await failure();

    expect(error.message).toContain(file);
    expect(error.message).toContain(message);
  });

  it.each(['Notes', 'my--notes', '-notes', 'notes-', 'a'.repeat(65), 'notes_2'])(
    'refuses the skill name %s',
    async (name) => {
      const file = await put(`${name}/SKILL.md`, manifest(name));

      const error = await failure();

      expect(error.message).toContain(file);
      expect(error.message).toContain('breaks the Agent Skills naming rules');
    },
  );

  it('refuses a skill whose folder is not named after it', async () => {
    const file = await put('notebook/SKILL.md', manifest('notes'));

    const error = await failure();

    expect(error.message).toContain(file);
    expect(error.message).toContain("names the skill 'notes', but its folder is 'notebook'");
  });

  it('refuses a SKILL.md at the top of the folder, and a folder without any skill', async () => {
    await put('README.md', 'no skill here');
    expect((await failure()).message).toContain('holds no skill');

    const file = await put('SKILL.md', manifest('notes'));
    const error = await failure();
    expect(error.message).toContain(file);
    expect(error.message).toContain('is at the top of the skills folder');
  });

  it('refuses a folder that does not exist', async () => {
    const missing = join(root, 'missing');

    expect((await failure({ directories: [missing] })).message).toContain(`'${missing}' does not exist`);
  });

  it('refuses a symbolic link out of the folder, and follows one that stays inside', async () => {
    await put('notes/SKILL.md', manifest('notes'));
    await put('shared/glossary.md', 'terms');
    await symlink(join(root, 'shared', 'glossary.md'), join(root, 'notes', 'glossary.md'));
    expect((await load()).skill('skill://notes/SKILL.md')!.files.map((file) => file.uri)).toContain(
      'skill://notes/glossary.md',
    );

    const secret = await put('secret.txt', 'do not serve', outside);
    await symlink(secret, join(root, 'notes', 'secret.txt'));
    const error = await failure();
    expect(error.message).toContain(join(root, 'notes', 'secret.txt'));
    expect(error.message).toContain('is a symbolic link out of the skills folder');
  });

  it('refuses a symbolic folder link out of the folder and one that loops', async () => {
    await put('notes/SKILL.md', manifest('notes'));
    await symlink(join(root, 'notes'), join(root, 'notes', 'again'));
    expect((await failure()).message).toContain('a loop');

    await rm(join(root, 'notes', 'again'));
    await put('guides/a.md', 'a', outside);
    await symlink(join(outside, 'guides'), join(root, 'notes', 'guides'));
    expect((await failure()).message).toContain('is a symbolic link out of the skills folder');
  });

  it('refuses a skill over the file limit or the byte limit, and takes one at them', async () => {
    const file = await put('notes/SKILL.md', manifest('notes'));
    await put('notes/a.md', '12345');
    await put('notes/b.md', '12345');
    const bytes = Buffer.byteLength(manifest('notes')) + 10;

    await expect(load({ maxFilesPerSkill: 3, maxBytesPerSkill: bytes })).resolves.toBeDefined();
    const tooMany = await failure({ maxFilesPerSkill: 2 });
    expect(tooMany.message).toContain(file);
    expect(tooMany.message).toContain('has 3 files, more than skills.maxFilesPerSkill (2)');
    const tooBig = await failure({ maxBytesPerSkill: bytes - 1 });
    expect(tooBig.message).toContain(`holds ${bytes} bytes, more than skills.maxBytesPerSkill (${bytes - 1})`);
  });

  it('refuses two folders that serve the same skill path', async () => {
    const second = await mkdtemp(join(tmpdir(), 'skills-second-'));
    try {
      await put('notes/SKILL.md', manifest('notes'));
      await put('notes/SKILL.md', manifest('notes'), second);

      const error = await failure({ directories: [root, second] });

      expect(error.message).toContain('overlap at skill://notes');
    } finally {
      await rm(second, { recursive: true, force: true });
    }
  });

  describe('requiredScopes', () => {
    /** A caller holding `granted`, as the access policy checks it. */
    const holding =
      (...granted: string[]) =>
      (required: readonly string[] | undefined) =>
        (required ?? []).every((scope) => granted.includes(scope));

    beforeEach(async () => {
      await put('notes/SKILL.md', manifest('notes'));
      await put('notes/references/search.md', '# Search\n');
      await put('notes/drafts/SKILL.md', manifest('drafts'));
      await put('acme/billing/refunds/SKILL.md', manifest('refunds'));
      await put('acme/billing/refunds/email.md', '# Email\n');
      await put('acme/open/SKILL.md', manifest('open'));
    });

    it("gives a skill's files and folders its scopes, and a nested skill those of the skill around it too", async () => {
      const catalog = await load({
        requiredScopes: { notes: ['notes:read'], 'notes/drafts': ['drafts:read'], 'acme/billing/refunds': ['billing'] },
      });

      expect(catalog.requiredScopesAt('skill://notes/SKILL.md')).toEqual(['notes:read']);
      expect(catalog.requiredScopesAt('skill://notes/references/search.md')).toEqual(['notes:read']);
      expect(catalog.requiredScopesAt('skill://notes/references')).toEqual(['notes:read']);
      expect(catalog.requiredScopesAt('skill://notes/drafts/SKILL.md')).toEqual(['notes:read', 'drafts:read']);
      expect(catalog.requiredScopesAt('skill://acme/billing/refunds/email.md')).toEqual(['billing']);
      expect(catalog.requiredScopesAt('skill://acme/open/SKILL.md')).toBeUndefined();
      expect(catalog.requiredScopesAt('skill://acme')).toBeUndefined();
      // A sibling whose name starts like a scoped skill's is not inside it.
      expect(catalog.requiredScopesAt('skill://notes-archive/SKILL.md')).toBeUndefined();
    });

    it('lists only the skills and folders the caller may use; a prefix folder while some skill below it is', async () => {
      const catalog = await load({ requiredScopes: { notes: ['notes:read'], 'acme/billing/refunds': ['billing'] } });
      const uris = (items: readonly { uri: string }[]) => items.map((item) => item.uri);

      expect(uris(catalog.page(undefined, 10, holding()).items)).toEqual(['skill://acme/open/SKILL.md']);
      expect(uris(catalog.page(undefined, 10, holding('notes:read')).items)).toEqual([
        'skill://acme/open/SKILL.md',
        'skill://notes/SKILL.md',
        'skill://notes/drafts/SKILL.md',
      ]);
      expect(uris(catalog.page(undefined, 10).items)).toHaveLength(4);
      expect(uris(catalog.directory('skill://acme', undefined, 10, holding())!.items)).toEqual(['skill://acme/open']);
      expect(uris(catalog.directory('skill://acme', undefined, 10, holding('billing'))!.items)).toEqual([
        'skill://acme/billing',
        'skill://acme/open',
      ]);
    });

    it('on a reload, takes a path whose skill is gone and keeps its scopes for when it comes back', async () => {
      const options = resolveSkillOptions({ directories: [root], requiredScopes: { 'acme/gone': ['gone:read'] } })!;

      const catalog = await loadSkillCatalog(options, { reload: true });

      expect(catalog.size).toBe(4);
      expect(catalog.requiredScopesAt('skill://acme/gone/SKILL.md')).toEqual(['gone:read']);
      await expect(loadSkillCatalog(options)).rejects.toThrow("names 'acme/gone', which is no skill");
    });

    it('refuses a path that names no skill, naming it and the skills served', async () => {
      const error = await failure({ requiredScopes: { 'acme/billing': ['billing'] } });
      expect(error.message).toContain("'skills.requiredScopes' names 'acme/billing', which is no skill");
      expect(error.message).toContain('acme/billing/refunds');
    });
  });
});
