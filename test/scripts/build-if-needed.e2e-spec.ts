/**
 * scripts/build-if-needed.mjs (the `prestart` of `npm start`) in a scratch project, with a
 * stand-in build command that records each run: it builds when the output is missing or older
 * than a source, ignores build output (libs/x/dist), and two runs at once build once. It also
 * bundles the gateway's MCP Apps (scripts/apps.mjs) when their bundle is missing or stale.
 */
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('../../scripts/build-if-needed.mjs', import.meta.url));

// The stand-in build: logs one line per run, waits for ./gate when asked to, writes the entry.
const FAKE_BUILD = `
import { appendFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
appendFileSync('builds.log', 'build\\n');
console.error('fake build started');
const finish = () => {
  mkdirSync('dist/src', { recursive: true });
  writeFileSync('dist/src/main.js', '');
};
if (process.env.WAIT_FOR_GATE) {
  const timer = setInterval(() => existsSync('gate') && (clearInterval(timer), finish()), 10);
} else finish();
`;

let project: string;
const file = (path: string, text = '') => {
  mkdirSync(dirname(join(project, path)), { recursive: true });
  writeFileSync(join(project, path), text);
};
/** Sets a file's modification time to `offsetSeconds` from now. */
const touch = (path: string, offsetSeconds: number) => {
  const time = new Date(Date.now() + offsetSeconds * 1000);
  utimesSync(join(project, path), time, time);
};
const builds = () =>
  (existsSync(join(project, 'builds.log')) ? readFileSync(join(project, 'builds.log'), 'utf8') : '')
    .split('\n')
    .filter(Boolean).length;

interface Run {
  child: ChildProcessWithoutNullStreams;
  exited: Promise<number | null>;
  /** Resolves when stderr has printed `text`. */
  printed(text: string): Promise<void>;
}

function run(env: Record<string, string> = {}): Run {
  const child = spawn(process.execPath, [SCRIPT, process.execPath, 'fake-build.mjs'], {
    cwd: project,
    env: { ...process.env, ...env },
  });
  let stderr = '';
  const waiters: [string, () => void][] = [];
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    for (const [text, resolve] of waiters) if (stderr.includes(text)) resolve();
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const printed = (text: string) =>
    new Promise<void>((resolve, reject) => {
      if (stderr.includes(text)) return resolve();
      waiters.push([text, resolve]);
      void exited.then(() => reject(new Error(`exited without printing '${text}'; stderr: ${stderr}`)));
    });
  return { child, exited, printed };
}

describe('scripts/build-if-needed.mjs', () => {
  beforeEach(() => {
    project = mkdtempSync(join(tmpdir(), 'build-if-needed-'));
    file('fake-build.mjs', FAKE_BUILD);
    file('package.json', '{ "type": "module" }');
    file('tsconfig.json', '{}');
    file('src/main.ts');
    file('libs/x/src/index.ts');
    for (const path of ['tsconfig.json', 'src/main.ts', 'libs/x/src/index.ts']) touch(path, -60);
  });

  afterEach(() => rmSync(project, { recursive: true, force: true }));

  it('builds when the output is missing, then not again', async () => {
    expect(await run().exited).toBe(0);
    expect(builds()).toBe(1);
    expect(await run().exited).toBe(0);
    expect(builds()).toBe(1);
  });

  it('does not count build output as a source (npm run build writes libs/*/dist after dist/)', async () => {
    expect(await run().exited).toBe(0);
    file('libs/x/dist/index.js');
    touch('libs/x/dist/index.js', 60);
    expect(await run().exited).toBe(0);
    expect(builds()).toBe(1);
  });

  it.each(['src/main.ts', 'libs/x/src/index.ts', 'tsconfig.json'])(
    'rebuilds when %s is newer than the output',
    async (source) => {
      expect(await run().exited).toBe(0);
      touch(source, 60);
      expect(await run().exited).toBe(0);
      expect(builds()).toBe(2);
    },
  );

  it('builds once when two runs start together: the second waits, then finds the build fresh', async () => {
    const first = run({ WAIT_FOR_GATE: '1' });
    await first.printed('fake build started');
    const second = run({ WAIT_FOR_GATE: '1' });
    await second.printed('Waiting for the build of another process');
    file('gate');
    expect(await first.exited).toBe(0);
    expect(await second.exited).toBe(0);
    expect(builds()).toBe(1);
  });

  it('bundles an MCP App when its bundle is missing or older than its sources, without building the gateway for it', async () => {
    file('src/notes/board/ui/index.html', '<!DOCTYPE html><html><body><!-- app-script --></body></html>');
    file('src/notes/board/ui/main.ts', "document.title = 'first';");
    for (const path of ['src/notes/board/ui/index.html', 'src/notes/board/ui/main.ts']) touch(path, -60);
    const bundle = () => readFileSync(join(project, 'dist-apps', 'notes-board.html'), 'utf8');

    expect(await run().exited).toBe(0);
    expect(builds()).toBe(1);
    expect(bundle()).toContain('<script type="module">document.title="first";');

    file('src/notes/board/ui/main.ts', "document.title = 'second';");
    touch('src/notes/board/ui/main.ts', 60);
    expect(await run().exited).toBe(0);
    expect(builds()).toBe(1);
    expect(bundle()).toContain('document.title="second";');
  });

  it('takes over the lock of a process that died while building', async () => {
    file('node_modules/.cache/build-if-needed.lock/pid', '2147483646');
    expect(await run().exited).toBe(0);
    expect(builds()).toBe(1);
  });
});
