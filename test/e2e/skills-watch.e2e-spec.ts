/**
 * `skills.watch`: a change in a skills folder reloads the skills (every check again) and sends
 * `notifications/resources/list_changed`, and `notifications/resources/updated` to a file's
 * subscribers; a change that breaks a skill is logged naming the file, and the previous skills
 * stay served.
 */
import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpResourceService } from '@app/mcp';
import { ListChangedCoalescer } from '@app/mcp/notifications/list-changed.coalescer.js';
import { startFixtureApp, type FixtureApp } from '../fixtures/fixture-app.js';
import { openSession } from '../support/raw-http.js';
import { isListChanged, isUpdated, rawSession, type RawSession, type SseClient } from '../support/sse-client.js';

const NOTES = 'skill://notes/SKILL.md';
const manifest = (name: string, description: string): string =>
  `---\nname: ${name}\ndescription: ${description}\n---\n\n# ${name}\n`;
const WAIT_MS = 10_000;

describe('skills.watch', () => {
  let root: string;
  let fixture: FixtureApp | undefined;
  let stream: SseClient | undefined;
  let session: RawSession;
  /** File system watchers open before the application started (none of its own). */
  let watchersBefore: number;
  const watchers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'FSEventWrap').length;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'skills-watch-'));
    await mkdir(join(root, 'notes'));
    await writeFile(join(root, 'notes/SKILL.md'), manifest('notes', 'Search the notes'));
    watchersBefore = watchers();
    fixture = await startFixtureApp({ mcp: { skills: { directories: [root], watch: true } } });
    session = rawSession(fixture.endpoint, await openSession(fixture.endpoint));
    expect((await session.subscribe(NOTES)).result).toBeDefined();
    stream = await session.openStream();
    expect(stream.status).toBe(200);
  });

  afterEach(async () => {
    stream?.close();
    await fixture?.close();
    await rm(root, { recursive: true, force: true });
    jest.restoreAllMocks();
  });

  /**
   * Waits for list_changed after event `from` until the skills show `done`: an editor's writes
   * may fall in two reloads, each announced.
   */
  const untilListed = async (done: (skills: Awaited<ReturnType<typeof skillsListed>>) => boolean, from = 0) => {
    for (;;) {
      const changed = await stream!.waitFor(isListChanged, WAIT_MS, from);
      const skills = await skillsListed();
      if (done(skills)) return skills;
      from = changed.index + 1;
    }
  };

  const skillsListed = async (): Promise<{ uri: string; frontmatter: any; resources: { uri: string }[] }[]> =>
    (await session.rpc('skills/list')).result.skills;

  it('an edited, an added and a new skill file reload the catalog and announce list_changed', async () => {
    await writeFile(join(root, 'notes/SKILL.md'), manifest('notes', 'Search and export the notes'));
    await writeFile(join(root, 'notes/export.md'), '# Export\n');

    const [notes] = await untilListed(([skill]) => skill.resources.length === 2);
    await stream!.waitFor(isUpdated(NOTES), WAIT_MS);
    expect(notes.frontmatter.description).toBe('Search and export the notes');
    expect(notes.resources.map((file) => file.uri)).toEqual([NOTES, 'skill://notes/export.md']);
    const read = await session.rpc('resources/read', { uri: 'skill://notes/export.md' });
    expect(read.result.contents[0].text).toBe('# Export\n');

    const from = stream!.events.length;
    await mkdir(join(root, 'drafts'));
    await writeFile(join(root, 'drafts/SKILL.md'), manifest('drafts', 'Keep drafts'));
    const skills = await untilListed((listed) => listed.length === 2, from);
    expect(skills.map((skill) => skill.uri)).toEqual(['skill://drafts/SKILL.md', NOTES]);
    const resources = (await session.rpc('resources/list')).result.resources.map((item: { uri: string }) => item.uri);
    expect(resources).toEqual(['skill://drafts/SKILL.md', NOTES]);
  });

  it('closes its watchers when the application closes (no handle left open)', async () => {
    expect(watchers()).toBeGreaterThan(watchersBefore);

    stream!.close();
    await fixture!.close();
    fixture = undefined;
    // A closed handle is released in the event loop's close phase, which follows the check
    // phase of the turn it was closed in: two setImmediate turns are past it (no timing involved).
    await new Promise((resolve) => setImmediate(() => setImmediate(resolve)));

    expect(watchers()).toBe(watchersBefore);
  });

  it('a change that breaks a skill is logged naming the file, and the previous skills stay served', async () => {
    const before = await skillsListed();
    const logged = new Promise<string>((resolve) => {
      jest.spyOn(Logger.prototype, 'error').mockImplementation((message: unknown) => {
        if (String(message).includes('Skills not reloaded')) resolve(String(message));
      });
    });
    const announced = jest.spyOn(fixture!.app.get(ListChangedCoalescer), 'schedule');
    const from = stream!.events.length;

    await writeFile(join(root, 'notes/SKILL.md'), manifest('other-name', 'Renamed in the file only'));

    // The error is logged at the end of the failed reload: nothing was announced before it.
    const message = await logged;
    expect(announced).not.toHaveBeenCalled();
    expect(message).toContain(join(root, 'notes/SKILL.md'));
    expect(message).toContain("names the skill 'other-name'");
    expect(await skillsListed()).toEqual(before);
    const read = await session.rpc('resources/read', { uri: NOTES });
    expect(read.result.contents[0].text).toBe(manifest('notes', 'Search the notes'));

    // Fixed again: the watch goes on.
    await writeFile(join(root, 'notes/SKILL.md'), manifest('notes', 'Fixed'));
    await untilListed(([skill]) => skill.frontmatter.description === 'Fixed', from);
    expect(announced).toHaveBeenCalledWith('resources');
  });

  it('a new skill file whose URI another resource has is refused, and the previous skill files stay served', async () => {
    fixture!.app.get(McpResourceService).register('skill://drafts/SKILL.md', () => 'taken', { name: 'taken' });
    const logged = new Promise<string>((resolve) => {
      jest.spyOn(Logger.prototype, 'error').mockImplementation((message: unknown) => {
        if (String(message).includes('Skills not reloaded')) resolve(String(message));
      });
    });

    await mkdir(join(root, 'drafts'));
    await writeFile(join(root, 'drafts/SKILL.md'), manifest('drafts', 'Keep drafts'));

    expect(await logged).toContain('skill://drafts/SKILL.md');
    expect((await skillsListed()).map((skill) => skill.uri)).toEqual([NOTES]);
    const notes = await session.rpc('resources/read', { uri: NOTES });
    expect(notes.result.contents[0].text).toBe(manifest('notes', 'Search the notes'));
    const taken = await session.rpc('resources/read', { uri: 'skill://drafts/SKILL.md' });
    expect(taken.result.contents[0].text).toBe('taken');
  });
});
