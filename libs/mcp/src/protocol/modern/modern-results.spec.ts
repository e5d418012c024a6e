import { describe, expect, it } from '@jest/globals';
import { resolveMcpOptions } from '../../mcp-options.resolver.js';
import { cacheableResult } from '../../model/cache-hints.js';
import { McpModernResults } from './modern-results.js';

const results = new McpModernResults(
  resolveMcpOptions({ serverInfo: { name: 's', version: '1' }, modern: { cacheHints: { ttlMs: 5_000 } } }),
);

describe('McpModernResults', () => {
  it('gives an extension result marked cacheable ttlMs and cacheScope, and an unmarked one none', () => {
    const marked = results.complete('skills/list', cacheableResult({ skills: [] }), false);
    const unmarked = results.complete('skills/list', { skills: [] }, false);

    expect(marked).toMatchObject({ skills: [], resultType: 'complete', ttlMs: 5_000, cacheScope: 'public' });
    expect(unmarked.ttlMs).toBeUndefined();
    expect(unmarked.cacheScope).toBeUndefined();
  });

  it("takes a marked result's own hints over the module's", () => {
    const shaped = results.complete(
      'skills/get',
      cacheableResult({ skill: {} }, { ttlMs: 1, scope: 'private' }),
      false,
    );

    expect(shaped).toMatchObject({ ttlMs: 1, cacheScope: 'private' });
  });
});
