// `npm run build` (after nest build): type-checks and bundles every MCP App of the reference
// gateway into dist-apps/ (see scripts/apps.mjs). `--if-stale` bundles only the stale ones,
// without type-checking (what `npm start` and the tests need).
import { APPS, bundleApp, bundleStaleApps, checkApp } from './apps.mjs';

if (process.argv.includes('--if-stale')) {
  for (const file of await bundleStaleApps()) console.error(`Bundled ${file}`);
} else {
  for (const app of APPS) {
    console.error(`Checking and bundling the ${app.name} app (${app.dir})...`);
    checkApp(app);
    await bundleApp(app);
  }
}
