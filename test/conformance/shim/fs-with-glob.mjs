// node:fs plus a globSync for Node < 22 (where fs.globSync does not exist). It supports what the
// conformance CLI asks of it (`globSync('**/checks.json', { cwd })`) and, generally, patterns
// made of `**`, `*` and `?` with '/' separators; results are paths relative to `cwd`, like
// Node 22's fs.globSync. Symbolic links to directories are not followed.
import fs from 'node:fs';
import path from 'node:path';

export * from 'node:fs';
export default fs;

const escapeRegExp = (text) => text.replace(/[.+^${}()|[\]\\]/g, '\\$&');

/** One glob segment (no '/') as a regular expression source. */
const segmentSource = (segment) => escapeRegExp(segment).replaceAll('*', '[^/]*').replaceAll('?', '[^/]');

/** The whole pattern as an anchored regular expression over '/'-separated relative paths. */
function patternToRegExp(pattern) {
  const parts = pattern.replaceAll('\\', '/').replace(/^\.\//, '').split('/');
  let source = '';
  parts.forEach((part, index) => {
    const last = index === parts.length - 1;
    if (part === '**') source += last ? '.*' : '(?:[^/]+/)*';
    else source += segmentSource(part) + (last ? '' : '/');
  });
  return new RegExp(`^${source}$`);
}

export function globSync(pattern, options = {}) {
  const cwd = options.cwd === undefined ? process.cwd() : String(options.cwd);
  const patterns = Array.isArray(pattern) ? pattern : [pattern];
  const matchers = patterns.map((one) => patternToRegExp(String(one)));
  const found = [];
  const walk = (relativeDir) => {
    let entries;
    try {
      entries = fs.readdirSync(path.join(cwd, relativeDir), { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const relativePath = relativeDir ? `${relativeDir}/${entry.name}` : entry.name;
      if (matchers.some((matcher) => matcher.test(relativePath))) found.push(relativePath.split('/').join(path.sep));
      if (entry.isDirectory()) walk(relativePath);
    }
  };
  walk('');
  return found;
}
