// Builds with `nest build` when dist/ is missing or older than any source file, so that
// `npm start` works on a fresh clone and stays fast afterwards.
import { execSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const entry = 'dist/src/main.js';
const newestIn = (dir) => {
  let newest = 0;
  for (const name of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, name.name);
    const time = name.isDirectory() ? newestIn(path) : statSync(path).mtimeMs;
    if (time > newest) newest = time;
  }
  return newest;
};
const sourceTime = Math.max(newestIn('src'), newestIn('libs'), statSync('tsconfig.json').mtimeMs);
if (!existsSync(entry) || statSync(entry).mtimeMs < sourceTime) {
  console.error('Building the gateway (nest build)...');
  // The build's output goes to stderr: in stdio mode stdout carries JSON-RPC only.
  execSync('npx nest build', { stdio: ['ignore', process.stderr, 'inherit'] });
}
