// Adds lock entries for the platform-only optional bindings of unrs-resolver (used by Jest)
// that this workplace's npm registry mirror does not serve. Without an entry npm ci calls the
// lock file out of sync; with one carrying the package's os/cpu it skips the package on every
// other platform, exactly as it would with the full entry from the public registry.
// Run after any `npm install` that rewrites package-lock.json.
import { readFileSync, writeFileSync } from 'node:fs';

const PLATFORMS = {
  'android-arm-eabi': [['android'], ['arm']],
  'android-arm64': [['android'], ['arm64']],
  'darwin-arm64': [['darwin'], ['arm64']],
  'darwin-x64': [['darwin'], ['x64']],
  'freebsd-x64': [['freebsd'], ['x64']],
  'linux-arm-gnueabihf': [['linux'], ['arm']],
  'linux-arm-musleabihf': [['linux'], ['arm']],
  'linux-loong64-gnu': [['linux'], ['loong64']],
  'linux-loong64-musl': [['linux'], ['loong64']],
  'linux-ppc64-gnu': [['linux'], ['ppc64']],
  'linux-riscv64-gnu': [['linux'], ['riscv64']],
  'linux-riscv64-musl': [['linux'], ['riscv64']],
  'linux-s390x-gnu': [['linux'], ['s390x']],
  'openharmony-arm64': [['openharmony'], ['arm64']],
  'win32-arm64-msvc': [['win32'], ['arm64']],
  'win32-ia32-msvc': [['win32'], ['ia32']],
  'win32-x64-msvc': [['win32'], ['x64']],
};

const lock = JSON.parse(readFileSync('package-lock.json', 'utf8'));
const resolver = lock.packages['node_modules/unrs-resolver'];
let added = 0;
for (const [name, version] of Object.entries(resolver?.optionalDependencies ?? {})) {
  const key = `node_modules/${name}`;
  const platform = PLATFORMS[name.replace('@unrs/resolver-binding-', '')];
  if (lock.packages[key] || !platform) continue;
  lock.packages[key] = { version, cpu: platform[1], dev: true, license: 'MIT', optional: true, os: platform[0] };
  added++;
}
const sorted = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : 1)));
lock.packages = sorted;
writeFileSync('package-lock.json', `${JSON.stringify(lock, null, 2)}\n`);
console.error(`complete-lockfile: added ${added} platform-only entries`);
