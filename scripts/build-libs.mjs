// `npm run build:libs` (and the second half of `npm run build`): builds every package under libs/
// into its own dist/, the folder its package.json publishes.
import { buildLib, listLibs } from './libs.mjs';

for (const lib of listLibs()) {
  console.error(`Building ${lib.name} (${lib.dir})...`);
  buildLib(lib.dir);
}
