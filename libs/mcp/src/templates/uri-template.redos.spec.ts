import { describe, expect, it } from '@jest/globals';
import { McpInvalidParamsException } from '../errors/mcp-protocol.exceptions.js';
import { thrownBy } from '../testing/thrown.js';
import { assertUriLength, isUriTooLong, MAX_URI_LENGTH, UriTemplate } from './index.js';

const KIB_64 = 64 * 1024;

/** `head`, then `unit` repeated to at least `size` characters (64 KiB by default), then `tail`. */
const hostile = (head: string, unit: string, tail: string, size = KIB_64): string =>
  head + unit.repeat(Math.ceil(size / unit.length)) + tail;

// CVE-2026-0621: exploded variables compiled to `([^/]+(?:,[^/]+)*)` backtracked exponentially
// on input like these. The matcher here uses no regular expression on the URI and looks at each
// character a fixed number of times, so it answers even a 1 MiB URI in milliseconds. No clock
// is read (a busy machine makes timings lie): a quadratic pass over 1 MiB is about 10^12 steps
// and an exponential one never ends, so either fails the case by its timeout.
const MIB = 1024 * 1024;
const LINEAR_CASE_TIMEOUT_MS = 20_000;

describe('UriTemplate.match on hostile URIs', () => {
  it.each<[template: string, head: string, unit: string, tail: string, matches: boolean]>([
    ['x://users{/id*}', 'x://users/', 'a,', '!', true],
    ['x://users{/id*}', 'x://users/', 'a,', '/?', false],
    ['x://users{/id*}', 'x://users', '/a', '/!?', false],
    ['x://q{?tags*}', 'x://q?tags=', 'a,', '!', true],
    ['x://q{?tags*}', 'x://q?', 'tags=a&', 'other=!', false],
    ['x://q{?a,b}', 'x://q?a=', '&b=', '&a', false],
    ['x://a/{x}/{y}/{z}', 'x://a/', 'a/', '!', false],
    ['x://a/{x}/{y}/{z}', 'x://a/', 'a', '/b/c', true],
    ['file:///{+path}', 'file:///', 'a/', '!', true],
    ['file:///{+path}', 'file:///', 'a/', '?', false],
    ['x://{a}-{b}-{c}-{d}', 'x://', 'a-', '!', true],
    ['x://{a}-{b}-{c}-{d}', 'x://', '-', '', false],
    ['test://template/{id}/data', 'test://template/', 'a/data', '/x', false],
    ['db://notes/{id}', 'db://notes/', '%', '', false],
    ['x://h/{hash:2}/{hash}{?q}', 'x://h/ab/ab', 'c', '?q=1', true],
  ])(
    '%s answers a hostile URI without backtracking (case %#)',
    (template, head, unit, tail, matches) => {
      const compiled = new UriTemplate(template);
      const uri = hostile(head, unit, tail);
      expect(compiled.match(uri) !== undefined).toBe(matches);
      expect(compiled.match(hostile(head, unit, tail, MIB)) !== undefined).toBe(matches);
      // On the wire such a URI never reaches the matcher: it is over the length cap.
      expect(isUriTooLong(uri)).toBe(true);
    },
    LINEAR_CASE_TIMEOUT_MS,
  );
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
