// Builds the benchmark (test/bench/**/*.ts plus the library sources it imports by relative path)
// with plain `tsc -p test/bench/tsconfig.json` into test/bench/results/.build/ (gitignored, and
// outside dist/, which `nest build` deletes), only when the output is missing or older than any
// source. `npm run bench` and `npm run start:bench-fixture` run it first.
//
// The Redis backend (libs/mcp-redis) imports the library as `@nest-mcp/server` and
// `@nest-mcp/server/backend`: tsc resolves them through the bench tsconfig's `paths`, and after
// compiling, those imports in the output are rewritten to the relative paths of the library's
// compiled entries, so the backend and the fixture share one copy of the library's classes.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The package's entries, as the compiled Redis backend imports them -> the compiled library files. */
const LIBRARY_ENTRIES = { '@nest-mcp/server': 'index.js', '@nest-mcp/server/backend': join('backend', 'index.js') };
const stamp = join(root, 'test', 'bench', 'results', '.build', 'test', 'bench', 'run.js');
const newestIn = (dir) => {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'results' || entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    const time = entry.isDirectory() ? newestIn(path) : statSync(path).mtimeMs;
    if (time > newest) newest = time;
  }
  return newest;
};
const sourceTime = Math.max(
  newestIn(join(root, 'test', 'bench')),
  newestIn(join(root, 'libs', 'mcp', 'src')),
  newestIn(join(root, 'libs', 'mcp-redis', 'src')),
  statSync(join(root, 'tsconfig.json')).mtimeMs,
);
if (process.argv.includes('--force') || !existsSync(stamp) || statSync(stamp).mtimeMs < sourceTime) {
  console.error('Building the benchmark (tsc -p test/bench/tsconfig.json -> test/bench/results/.build)...');
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  execFileSync(process.execPath, [tsc, '-p', join(root, 'test', 'bench', 'tsconfig.json')], {
    cwd: root,
    stdio: ['ignore', process.stderr, 'inherit'],
  });
  rewriteLibraryImports(join(root, 'test', 'bench', 'results', '.build', 'libs'));
}

/** `from '@nest-mcp/server…'` in the compiled Redis backend -> the relative path of the compiled entry. */
function rewriteLibraryImports(out) {
  const visit = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (entry.name.endsWith('.js')) {
        const text = readFileSync(path, 'utf8');
        let next = text;
        for (const [specifier, file] of Object.entries(LIBRARY_ENTRIES)) {
          const target = relative(dir, join(out, 'mcp', 'src', file))
            .split('\\')
            .join('/');
          next = next.replaceAll(`from '${specifier}'`, `from '${target.startsWith('.') ? target : `./${target}`}'`);
        }
        if (next !== text) writeFileSync(path, next);
      }
    }
  };
  visit(join(out, 'mcp-redis', 'src'));
}
