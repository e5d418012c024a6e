// `prepack` / `postpack` of every package under libs/ (run by npm in the library's folder, so
// that a plain `npm pack` there, or `npm run pack:libs`, produces a complete tarball):
// - prepack checks that the library has a README.md of its own (the package's page on npm; the
//   repository's README describes the repository and stays out of every package), builds the
//   library from scratch, and copies the repository's LICENSE into the folder when the library
//   has none of its own, noting the copies in .pack-copies;
// - postpack removes exactly those copies again.
import { copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildLib, ROOT } from './libs.mjs';

const SHARED_FILES = ['LICENSE'];
const dir = process.cwd();
const record = join(dir, '.pack-copies');
const copied = () => (existsSync(record) ? JSON.parse(readFileSync(record, 'utf8')) : []);

const phase = process.argv[2];
if (phase === 'prepack') {
  if (!existsSync(join(dir, 'README.md'))) {
    console.error(`${dir} has no README.md of its own: write one (install, a first example, a link to the docs)`);
    process.exit(1);
  }
  buildLib(dir);
  // A copy left by an interrupted pack is refreshed, a file of the library's own is kept.
  const previous = copied();
  const copies = SHARED_FILES.filter((file) => previous.includes(file) || !existsSync(join(dir, file)));
  for (const file of copies) copyFileSync(join(ROOT, file), join(dir, file));
  writeFileSync(record, JSON.stringify(copies));
} else if (phase === 'postpack') {
  for (const file of copied()) rmSync(join(dir, file), { force: true });
  rmSync(record, { force: true });
} else {
  console.error('usage: node scripts/lib-pack.mjs prepack|postpack (run by npm pack in a library folder)');
  process.exit(2);
}
