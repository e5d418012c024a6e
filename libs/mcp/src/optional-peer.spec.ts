import { describe, expect, it } from '@jest/globals';
import { McpDefinitionError } from './errors/mcp-bootstrap.errors.js';
import { loadOptionalPeer } from './optional-peer.js';

// A variable specifier: the package must not exist, for the compiler either.
const NOT_INSTALLED = '@nest-mcp/not-installed';

describe('loadOptionalPeer', () => {
  it('resolves to the module when the package is installed', async () => {
    const ws = await loadOptionalPeer({ name: 'ws', feature: 'A test' }, () => import('ws'));
    expect(typeof ws.WebSocketServer).toBe('function');
  });

  it('names the feature and what to install when the package is missing', async () => {
    const loading = loadOptionalPeer(
      { name: NOT_INSTALLED, feature: 'The X transport (x: true)', install: [NOT_INSTALLED, 'other-peer'] },
      () => import(NOT_INSTALLED),
    );
    await expect(loading).rejects.toThrow(McpDefinitionError);
    await expect(loading).rejects.toThrow(
      `The X transport (x: true) needs ${NOT_INSTALLED}, which is not installed: npm install ${NOT_INSTALLED} other-peer`,
    );
  });

  it('passes on any other failure, a missing dependency of the package itself included', async () => {
    const inner = Object.assign(new Error("Cannot find package 'tslib' imported from /x/index.js"), {
      code: 'ERR_MODULE_NOT_FOUND',
    });
    await expect(loadOptionalPeer({ name: 'ws', feature: 'A test' }, () => Promise.reject(inner))).rejects.toBe(inner);
    const broken = new SyntaxError('Unexpected token');
    await expect(loadOptionalPeer({ name: 'ws', feature: 'A test' }, () => Promise.reject(broken))).rejects.toBe(
      broken,
    );
  });
});
