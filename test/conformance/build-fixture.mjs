// Builds the conformance fixture app with plain tsc (tsconfig.build.json next to this file) when
// its output is missing or older than any source it depends on, so that
// `npm run start:conformance` works on a fresh clone and stays fast afterwards.
//
//   node test/conformance/build-fixture.mjs     # build if needed
//
// The compiler's output goes to stderr; stdout stays for the fixture's own ready line.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..', '..');
const TSCONFIG = join(HERE, 'tsconfig.build.json');

/** Where tsc writes (outDir of tsconfig.build.json). */
export const FIXTURE_OUT_DIR = join(ROOT, 'dist-conformance');
/** The built entry point of the fixture app. */
export const FIXTURE_ENTRY = join(FIXTURE_OUT_DIR, 'test', 'conformance', 'fixture', 'main.js');

const newestIn = (path) => {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestIn(join(path, entry)));
  return newest;
};

/** Builds unless the output is newer than every input. Throws when tsc fails. */
export function buildFixtureIfNeeded({ force = false } = {}) {
  const inputs = [
    join(HERE, 'fixture'),
    join(ROOT, 'libs', 'mcp', 'src'),
    TSCONFIG,
    join(ROOT, 'tsconfig.json'),
    join(ROOT, 'package-lock.json'),
  ];
  const sourceTime = Math.max(...inputs.map(newestIn));
  if (!force && existsSync(FIXTURE_ENTRY) && statSync(FIXTURE_ENTRY).mtimeMs >= sourceTime) return false;
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  console.error(`Building the conformance fixture (tsc -p ${relative(ROOT, TSCONFIG)})...`);
  const result = spawnSync(process.execPath, [tsc, '-p', TSCONFIG], {
    cwd: ROOT,
    stdio: ['ignore', process.stderr, process.stderr],
  });
  // Build output: keep git from listing it, whatever the root .gitignore says.
  mkdirSync(FIXTURE_OUT_DIR, { recursive: true });
  writeFileSync(join(FIXTURE_OUT_DIR, '.gitignore'), '*\n');
  if (result.status !== 0) {
    throw new Error(`building the conformance fixture failed (tsc exit code ${result.status ?? result.signal})`);
  }
  return true;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    buildFixtureIfNeeded({ force: process.argv.includes('--force') });
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
