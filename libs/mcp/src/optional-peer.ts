import { McpDefinitionError } from './errors/mcp-bootstrap.errors.js';

/** An optional peer dependency and the feature that needs it. */
export interface OptionalPeer {
  /** The package `load` imports, e.g. `@nestjs/websockets`. */
  name: string;
  /** What needs it, as the user turned it on, e.g. `the WebSocket transport (ws: { ... })`. */
  feature: string;
  /** What to tell the user to install (default: `name` alone). */
  install?: readonly string[];
}

/**
 * Loads an optional peer dependency when a feature first needs it, so that an application that
 * does not use the feature does not need the package installed. `load` should be an arrow
 * returning a literal dynamic `import()` of the package, which bundlers can follow.
 * @throws McpDefinitionError saying what to install when the package itself is not installed
 */
export async function loadOptionalPeer<T>(peer: OptionalPeer, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (!isMissing(error, peer.name)) throw error;
    const install = (peer.install ?? [peer.name]).join(' ');
    throw new McpDefinitionError(`${peer.feature} needs ${peer.name}, which is not installed: npm install ${install}`);
  }
}

/** Whether `error` says that `name` itself (not one of its own imports) cannot be found. */
function isMissing(error: unknown, name: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  const notFound = code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
  return notFound && typeof message === 'string' && (message.includes(`'${name}'`) || message.includes(`"${name}"`));
}
