// Module resolve hook (registered by register.mjs on Node < 22): 'fs' / 'node:fs' imported from
// inside @modelcontextprotocol/conformance resolves to fs-with-glob.mjs.
const FS_WITH_GLOB = new URL('./fs-with-glob.mjs', import.meta.url).href;
const SUITE_PATH = '/node_modules/@modelcontextprotocol/conformance/';

export async function resolve(specifier, context, nextResolve) {
  const fromSuite = context.parentURL?.replaceAll('\\', '/').includes(SUITE_PATH) ?? false;
  if (fromSuite && (specifier === 'fs' || specifier === 'node:fs')) {
    return { url: FS_WITH_GLOB, shortCircuit: true };
  }
  return nextResolve(specifier, context);
}
