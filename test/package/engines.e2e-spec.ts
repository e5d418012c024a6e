/**
 * The Node.js version the README names installs this repository without an engine warning:
 * every package in package-lock.json (dependencies and dev dependencies) accepts the lowest
 * version of each range in the root package.json's `engines.node`, as judged by npm's own
 * engine check (npm-install-checks, the code that prints EBADENGINE).
 */
import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const readJson = (path: string) => JSON.parse(readFileSync(join(ROOT, path), 'utf8'));

/** npm's folder: the npm running the tests when there is one, else the global npm. */
function npmFolder(): string {
  const cli = process.env.npm_execpath;
  if (cli && /npm-cli\.js$/.test(cli)) return dirname(dirname(cli));
  return join(execFileSync('npm', ['root', '-g'], { encoding: 'utf8' }).trim(), 'npm');
}
const npmRequire = createRequire(join(npmFolder(), 'package.json'));
const { checkEngine } = npmRequire('npm-install-checks') as {
  checkEngine(pkg: { name: string; version: string; engines: unknown }, npmVersion: string, nodeVersion: string): void;
};
const semver = npmRequire('semver') as {
  Range: new (range: string) => { set: { value: string }[][] };
  minVersion(range: string): { version: string } | null;
};
const npmVersion = (npmRequire('./package.json') as { version: string }).version;

const documented: string = readJson('package.json').engines.node;
/** The lowest Node.js version of each `||` alternative of the documented range. */
const floors = new semver.Range(documented).set.map(
  (comparators) => semver.minVersion(comparators.map((c) => c.value).join(' '))!.version,
);

describe(`the documented Node.js versions (${documented})`, () => {
  it('are the ones the README names', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const requirement = readme.split('\n').find((line) => line.startsWith('Requires Node.js'));
    expect(requirement).toBeDefined();
    for (const floor of floors) expect(requirement).toContain(floor.replace(/(\.0)+$/, ''));
  });

  it.each(floors)('Node.js %s satisfies the engines of every package in the lock file', (node) => {
    const packages: Record<string, { version?: string; engines?: unknown }> = readJson('package-lock.json').packages;
    const refused = Object.entries(packages).flatMap(([path, pkg]) => {
      if (!path || !pkg.engines || !pkg.version) return [];
      try {
        checkEngine(
          { name: path.replace(/^.*node_modules\//, ''), version: pkg.version, engines: pkg.engines },
          npmVersion,
          node,
        );
        return [];
      } catch {
        return [`${path}@${pkg.version} wants node ${JSON.stringify(pkg.engines)}`];
      }
    });
    expect(refused).toEqual([]);
  });
});
