import { describe, expect, it } from '@jest/globals';
import { performance } from 'node:perf_hooks';
import { McpInvalidParamsException } from '../errors/mcp-protocol.exceptions.js';
import { thrownBy } from '../testing/thrown.js';
import { assertUriLength, isUriTooLong, MAX_URI_LENGTH, UriTemplate } from './index.js';

const KIB_64 = 64 * 1024;

/** `head`, then `unit` repeated to at least 64 KiB, then `tail`. */
const hostile = (head: string, unit: string, tail: string): string =>
  head + unit.repeat(Math.ceil(KIB_64 / unit.length)) + tail;

/** Milliseconds one call of `fn` takes, after one warm-up call (JIT, caches). */
function timeWarm<T>(fn: () => T): { result: T; elapsed: number } {
  fn();
  const start = performance.now();
  const result = fn();
  return { result, elapsed: performance.now() - start };
}

// CVE-2026-0621: exploded variables compiled to `([^/]+(?:,[^/]+)*)` backtracked exponentially
// on input like these. The matcher here uses no regular expression on the URI, so each case is
// linear; 50 ms is a generous guard that an exponential (or quadratic) pass would blow through.
describe('UriTemplate.match on hostile 64 KiB URIs', () => {
  it.each<[template: string, uri: string, matches: boolean]>([
    ['x://users{/id*}', hostile('x://users/', 'a,', '!'), true],
    ['x://users{/id*}', hostile('x://users/', 'a,', '/?'), false],
    ['x://users{/id*}', hostile('x://users', '/a', '/!?'), false],
    ['x://q{?tags*}', hostile('x://q?tags=', 'a,', '!'), true],
    ['x://q{?tags*}', hostile('x://q?', 'tags=a&', 'other=!'), false],
    ['x://q{?a,b}', hostile('x://q?a=', '&b=', '&a'), false],
    ['x://a/{x}/{y}/{z}', hostile('x://a/', 'a/', '!'), false],
    ['x://a/{x}/{y}/{z}', hostile('x://a/', 'a', '/b/c'), true],
    ['file:///{+path}', hostile('file:///', 'a/', '!'), true],
    ['file:///{+path}', hostile('file:///', 'a/', '?'), false],
    ['x://{a}-{b}-{c}-{d}', hostile('x://', 'a-', '!'), true],
    ['x://{a}-{b}-{c}-{d}', hostile('x://', '-', ''), false],
    ['test://template/{id}/data', hostile('test://template/', 'a/data', '/x'), false],
    ['db://notes/{id}', hostile('db://notes/', '%', ''), false],
    ['x://h/{hash:2}/{hash}{?q}', hostile('x://h/ab/ab', 'c', '?q=1'), true],
  ])('%s answers within 50 ms (case %#)', (template, uri, matches) => {
    expect(uri.length).toBeGreaterThanOrEqual(KIB_64);
    const compiled = new UriTemplate(template);
    const { result, elapsed } = timeWarm(() => compiled.match(uri));
    expect(result !== undefined).toBe(matches);
    expect(elapsed).toBeLessThan(50);
    // On the wire such a URI never reaches the matcher: it is over the length cap.
    expect(isUriTooLong(uri)).toBe(true);
  });
});

describe('URI length cap', () => {
  it('allows URIs up to MAX_URI_LENGTH characters', () => {
    expect(MAX_URI_LENGTH).toBe(8192);
    expect(isUriTooLong('x://a/' + 'b'.repeat(MAX_URI_LENGTH - 6))).toBe(false);
    expect(isUriTooLong('x://a/' + 'b'.repeat(MAX_URI_LENGTH - 5))).toBe(true);
    expect(() => assertUriLength('x://' + 'b'.repeat(MAX_URI_LENGTH - 4))).not.toThrow();
  });

  it('answers a longer URI with -32602 Invalid params, without echoing it', () => {
    const error = thrownBy(() => assertUriLength(hostile('x://users/', 'a,', '!')));
    expect(error).toBeInstanceOf(McpInvalidParamsException);
    const exception = error as McpInvalidParamsException;
    expect(exception.code).toBe(-32602);
    expect(exception.toJsonRpcError()).toMatchObject({
      code: -32602,
      data: { maxLength: MAX_URI_LENGTH },
    });
    expect(JSON.stringify(exception.toJsonRpcError()).length).toBeLessThan(500);
  });
});
