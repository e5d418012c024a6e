// `npm run pack:libs [-- <folder>]`: packs every package under libs/ with `npm pack` (whose
// prepack builds it) into dist-packages/ (or the folder given), and prints each tarball's
// absolute path on stdout, one per line. Install one into your application with
// `npm install /path/to/dist-packages/nest-mcp-server-<version>.tgz`.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { listLibs, ROOT } from './libs.mjs';

const destination = process.argv[2] ? resolve(process.argv[2]) : join(ROOT, 'dist-packages');
mkdirSync(destination, { recursive: true });
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
for (const lib of listLibs()) {
  const output = execFileSync(npm, ['pack', '--json', '--pack-destination', destination], {
    cwd: lib.dir,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [{ filename }] = JSON.parse(output);
  console.log(join(destination, filename));
}
