// The reference gateway's MCP Apps: each is a folder of browser TypeScript (the ext-apps `App`
// class, no framework) with an index.html, bundled by esbuild into one self-contained HTML file
// under dist-apps/, which the gateway serves as a UI resource. Shared by build-apps.mjs (`npm run
// build`), build-if-needed.mjs (`npm start`) and the tests that start the gateway.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file is scripts/apps.mjs). */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Where the bundles go: outside dist/, which `nest build` empties. */
export const APPS_OUT_DIR = 'dist-apps';

/** The apps: a folder holding `index.html` (with an `<!-- app-script -->` line) and `main.ts`. */
export const APPS = [{ name: 'notes-board', dir: join('src', 'notes', 'board', 'ui') }];

const PLACEHOLDER = '<!-- app-script -->';

/** What else a bundle is made of: the packages it bundles. */
const SHARED_INPUTS = ['package-lock.json'];

/** The bundle of an app, relative to `root`. */
export const appOutput = (app) => join(APPS_OUT_DIR, `${app.name}.html`);

const newestIn = (path) => {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestIn(join(path, entry)));
  return newest;
};

/**
 * The apps of `root` whose bundle is missing or older than one of its sources (its folder, the
 * lock file). Apps whose folder `root` does not have are skipped.
 */
export function staleApps(root = process.cwd()) {
  return APPS.filter((app) => {
    if (!existsSync(join(root, app.dir))) return false;
    const output = join(root, appOutput(app));
    if (!existsSync(output)) return true;
    const inputs = [join(root, app.dir), ...SHARED_INPUTS.map((file) => join(root, file))];
    return statSync(output).mtimeMs < Math.max(...inputs.map(newestIn));
  });
}

/** Type-checks an app with its own tsconfig.json (DOM types, no Node). Throws when tsc fails. */
export function checkApp(app, root = ROOT) {
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  execFileSync(process.execPath, [tsc, '-p', join(root, app.dir, 'tsconfig.json')], {
    cwd: root,
    stdio: ['ignore', process.stderr, 'inherit'],
  });
}

/**
 * Bundles an app into one HTML file: its `main.ts` and everything it imports, minified, inlined
 * as a module script where index.html says. Written to a temporary file then renamed, so a
 * reader (another test worker, a starting gateway) never sees half a file.
 */
export async function bundleApp(app, root = ROOT) {
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [join(root, app.dir, 'main.ts')],
    absWorkingDir: root,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    legalComments: 'none',
    write: false,
    logLevel: 'silent',
  });
  const template = readFileSync(join(root, app.dir, 'index.html'), 'utf8');
  if (template.split(PLACEHOLDER).length !== 2) {
    throw new Error(`${join(app.dir, 'index.html')} needs exactly one ${PLACEHOLDER} line`);
  }
  // `</script` inside the code would end the inline script early.
  const code = result.outputFiles[0].text.replace(/<\/script/gi, '<\\/script');
  // A function as the replacement: the code may hold `$&` or `$'`, which a string would expand.
  const html = template.replace(PLACEHOLDER, () => `<script type="module">${code}</script>`);
  const output = join(root, appOutput(app));
  mkdirSync(dirname(output), { recursive: true });
  const partial = `${output}.${process.pid}.tmp`;
  writeFileSync(partial, html);
  renameSync(partial, output);
  return output;
}

/** Bundles the apps whose bundle is stale; returns the files written. */
export async function bundleStaleApps(root = ROOT) {
  const written = [];
  for (const app of staleApps(root)) written.push(await bundleApp(app, root));
  return written;
}
