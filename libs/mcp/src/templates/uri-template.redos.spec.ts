import { describe, expect, it } from '@jest/globals';
import { performance } from 'node:perf_hooks';
import { McpInvalidParamsException } from '../errors/mcp-protocol.exceptions.js';
import { thrownBy } from '../testing/thrown.js';
import { assertUriLength, isUriTooLong, MAX_URI_LENGTH, UriTemplate } from './index.js';

const KIB_64 = 64 * 1024;

/** `head`, then `unit` repeated to at least `size` characters (64 KiB), then `tail`. */
const hostile = (head: string, unit: string, tail: string, size = KIB_64): string =>
  head + unit.repeat(Math.ceil(size / unit.length)) + tail;

/** The fastest of five calls of `fn`, in milliseconds, after one warm-up call (JIT, caches). */
function fastest(fn: () => unknown): number {
  fn();
  let best = Infinity;
  for (let run = 0; run < 5; run++) {
    const start = performance.now();
    fn();
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

// CVE-2026-0621: exploded variables compiled to `([^/]+(?:,[^/]+)*)` backtracked exponentially
// on input like these. The matcher here uses no regular expression on the URI, so each case is
// linear: four times the input takes about four times as long. The check compares two sizes
// measured at the same moment (not a wall-clock bound, which a busy machine breaks): a quadratic
// pass would take sixteen times as long, an exponential one never finish.
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
  ])('%s answers in time linear in the URI (case %#)', (template, uri, matches) => {
    expect(uri.length).toBeGreaterThanOrEqual(KIB_64);
    const compiled = new UriTemplate(template);
    expect(compiled.match(uri) !== undefined).toBe(matches);
    // The same shape at a quarter of the size: the whole of `uri` but its repeated middle.
    const quarter = uri.slice(0, uri.length / 4) + uri.slice(-8);
    const small = fastest(() => compiled.match(quarter));
    const large = fastest(() => compiled.match(uri));
    // Linear is about 4x; the 1 ms absorbs timer resolution at small figures.
    expect(large).toBeLessThan(10 * small + 1);
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
