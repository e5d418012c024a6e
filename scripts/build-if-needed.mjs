// Builds the reference gateway when dist/src/main.js is missing or older than one of its
// sources, so that `npm start` works on a fresh clone and stays fast afterwards. The build is
// `nest build`, or the command given as arguments (the tests pass a stand-in). Then bundles its
// MCP Apps whose bundle (dist-apps/) is missing or stale (see scripts/apps.mjs).
//
// Sources are the files under src/ and libs/*/src/ plus the build's configuration; build output
// (dist/, libs/*/dist/ written by `npm run build`) is not, so a start right after
// `npm run build` does not build again. Concurrent runs (two `npm start`s, test files in
// parallel) take a lock: one builds, the others wait for it, then find the build fresh.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { APPS, bundleStaleApps } from './apps.mjs';

const ENTRY = join('dist', 'src', 'main.js');
const CONFIG_FILES = ['tsconfig.json', 'tsconfig.build.json', 'nest-cli.json'];
const LOCK = join('node_modules', '.cache', 'build-if-needed.lock');
const POLL_MS = 100;

const [command, ...args] =
  process.argv.length > 2
    ? process.argv.slice(2)
    : [process.execPath, join('node_modules', '@nestjs', 'cli', 'bin', 'nest.js'), 'build'];

// The apps' browser sources are bundled on their own (below), not compiled by nest build.
const APP_DIRS = new Set(APPS.map((app) => app.dir));

const newestIn = (dir) => {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (APP_DIRS.has(path)) continue;
    const time = entry.isDirectory() ? newestIn(path) : statSync(path).mtimeMs;
    if (time > newest) newest = time;
  }
  return newest;
};

const sourceDirs = () => [
  'src',
  ...(existsSync('libs') ? readdirSync('libs').map((lib) => join('libs', lib, 'src')) : []),
];

function isStale() {
  if (!existsSync(ENTRY)) return true;
  const sources = [
    ...sourceDirs().filter(existsSync).map(newestIn),
    ...CONFIG_FILES.filter(existsSync).map((file) => statSync(file).mtimeMs),
  ];
  return statSync(ENTRY).mtimeMs < Math.max(0, ...sources);
}

const isAlive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
};

/** Takes the lock, waiting while another live process holds it; a dead holder's lock is taken over. */
function lock() {
  mkdirSync(join(LOCK, '..'), { recursive: true });
  let announced = false;
  for (;;) {
    try {
      mkdirSync(LOCK);
      writeFileSync(join(LOCK, 'pid'), String(process.pid));
      return;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
    let holder = NaN;
    try {
      holder = Number(readFileSync(join(LOCK, 'pid'), 'utf8'));
    } catch {
      // The holder has just created the lock and not yet written its pid, or just released it.
    }
    if (Number.isInteger(holder) && !isAlive(holder)) {
      rmSync(LOCK, { recursive: true, force: true });
      continue;
    }
    if (!announced) console.error(`Waiting for the build of another process${holder ? ` (pid ${holder})` : ''}...`);
    announced = true;
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, POLL_MS);
  }
}

lock();
try {
  if (isStale()) {
    console.error('Building the gateway (nest build)...');
    // The build's output goes to stderr: in stdio mode stdout carries JSON-RPC only.
    execFileSync(command, args, { stdio: ['ignore', process.stderr, 'inherit'] });
  }
  for (const file of await bundleStaleApps(process.cwd())) console.error(`Bundled ${file}`);
} finally {
  rmSync(LOCK, { recursive: true, force: true });
}
