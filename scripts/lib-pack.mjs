// `prepack` / `postpack` of every package under libs/ (run by npm in the library's folder, so
// that a plain `npm pack` there, or `npm run pack:libs`, produces a complete tarball):
// - prepack builds the library from scratch and copies the repository's README.md and LICENSE
//   into the folder when the library has none of its own, noting the copies in .pack-copies;
// - postpack removes exactly those copies again.
import { copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildLib, ROOT } from './libs.mjs';

const SHARED_FILES = ['README.md', 'LICENSE'];
const dir = process.cwd();
const record = join(dir, '.pack-copies');
const copied = () => (existsSync(record) ? JSON.parse(readFileSync(record, 'utf8')) : []);

const phase = process.argv[2];
if (phase === 'prepack') {
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
