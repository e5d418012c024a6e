// The publishable packages under libs/ (each folder with a package.json), and how one is built.
// Shared by build-libs.mjs (npm run build), lib-pack.mjs (npm pack in a library folder) and
// pack-libs.mjs (npm run pack:libs).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file is scripts/libs.mjs). */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Every package under libs/: `{ dir, name, version }`, in folder order.
 * @returns {{ dir: string, name: string, version: string }[]}
 */
export function listLibs() {
  const libs = join(ROOT, 'libs');
  return readdirSync(libs, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(libs, entry.name, 'package.json')))
    .map((entry) => {
      const dir = join(libs, entry.name);
      const { name, version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
      return { dir, name, version };
    });
}

/**
 * Builds one library from scratch: removes its dist/ (so no file of a deleted source is ever
 * packed) and compiles its tsconfig.lib.json. Compiler output goes to stderr.
 * @param {string} dir the library folder
 */
export function buildLib(dir) {
  rmSync(join(dir, 'dist'), { recursive: true, force: true });
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  execFileSync(process.execPath, [tsc, '-p', join(dir, 'tsconfig.lib.json')], {
    cwd: dir,
    stdio: ['ignore', process.stderr, 'inherit'],
  });
}
