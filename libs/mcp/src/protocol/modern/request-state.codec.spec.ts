/**
 * The MRTR requestState codec: what it seals opens for the same request only, what it refuses is
 * refused with the documented -32602 whatever the input, the signature is checked before the
 * request is walked, the walk is bounded, and nothing is sealed that opening would refuse.
 */
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { McpInvalidRequestStateException } from '../../errors/mcp-modern.exceptions.js';
import { McpInvalidParamsException } from '../../errors/mcp-protocol.exceptions.js';
import { thrownBy } from '../../testing/thrown.js';
import {
  digestParams,
  MAX_REQUEST_STATE_CHARS,
  RequestStateCodec,
  RequestStateTooLargeError,
  type RequestStatePayload,
} from './request-state.codec.js';

const KEY = 'a-request-state-key-of-32-bytes!';
const codec = new RequestStateCodec([KEY]);
const NOW = 1_000_000;
const params = { name: 'notes.clear', arguments: { all: true } };

const payload = (overrides: Partial<RequestStatePayload> = {}): RequestStatePayload => ({
  method: 'tools/call',
  digest: digestParams(params),
  expiresAt: NOW + 60_000,
  asked: ['confirm'],
  nonce: 'n0nce',
  answers: {},
  state: { step: 1 },
  ...overrides,
});

const expectation = { method: 'tools/call', params, now: NOW };

/** `depth` arrays nested in each other, built without recursion. */
function nested(depth: number): unknown {
  let value: unknown = [];
  for (let i = 1; i < depth; i++) value = [value];
  return value;
}

/** What `open` does with `token`: the payload, or what it threw. */
function outcome(token: unknown): { opened: RequestStatePayload } | { refused: unknown } {
  try {
    return { opened: codec.open(token, expectation) };
  } catch (error) {
    return { refused: error };
  }
}

describe('RequestStateCodec', () => {
  it('opens what it sealed for the same request, whatever the order of its params and the round params', () => {
    const token = codec.seal(payload());
    const reordered = { arguments: { all: true }, name: 'notes.clear', _meta: { x: 1 }, inputResponses: {} };
    expect(codec.open(token, { ...expectation, params: reordered })).toEqual(payload());
    expect(new RequestStateCodec(['another-key-of-at-least-16', KEY]).open(token, expectation)).toEqual(payload());
  });

  it.each<[string, Partial<typeof expectation> & { principal?: string }, string]>([
    ['another method', { method: 'prompts/get' }, 'another request'],
    ['other params', { params: { ...params, arguments: { all: false } } }, 'another request'],
    ['another principal', { principal: 'mallory' }, 'another caller'],
    ['after its expiry', { now: NOW + 60_001 }, 'expired'],
  ])('refuses it for %s with -32602', (_what, change, detail) => {
    const error = thrownBy(() => codec.open(codec.seal(payload()), { ...expectation, ...change }));
    expect(error).toBeInstanceOf(McpInvalidRequestStateException);
    expect((error as McpInvalidRequestStateException).toJsonRpcError()).toMatchObject({ code: -32602 });
    expect(String((error as McpInvalidRequestStateException).detail)).toContain(detail);
  });

  it('checks the signature before it walks the params: a forged state with 200,000 nested arrays is refused for the state', () => {
    const deep = { ...params, deep: nested(200_000) };
    const error = thrownBy(() => codec.open('v1.x.y', { ...expectation, params: deep }));
    expect(error).toBeInstanceOf(McpInvalidRequestStateException);
    expect((error as McpInvalidRequestStateException).detail).toBe(
      'Invalid requestState: its signature does not verify',
    );
  });

  it('bounds the walk of the params: a genuine state meeting params nested too deep is -32602, without recursing', () => {
    const token = codec.seal(payload());
    const error = thrownBy(() => codec.open(token, { ...expectation, params: { ...params, deep: nested(200_000) } }));
    expect(error).toBeInstanceOf(McpInvalidParamsException);
    expect((error as McpInvalidParamsException).detail).toContain('nested deeper than 65 levels');
    expect(thrownBy(() => digestParams({ deep: nested(200_000) }))).toBeInstanceOf(McpInvalidParamsException);
  });

  it('walks params up to its limit: the params object is level 1', () => {
    const limited = new RequestStateCodec([KEY], 3);
    expect(limited.digest({ a: [[1]] })).toBe(digestParams({ a: [[1]] }));
    expect(thrownBy(() => limited.digest({ a: [[[1]]] }))).toBeInstanceOf(McpInvalidParamsException);
  });

  it('never seals a state larger than it opens, and opens any state it sealed', () => {
    const tooLarge = payload({ state: { blob: 'x'.repeat(MAX_REQUEST_STATE_CHARS) } });
    const error = thrownBy(() => codec.seal(tooLarge));
    expect(error).toBeInstanceOf(RequestStateTooLargeError);
    expect((error as RequestStateTooLargeError).chars).toBeGreaterThan(MAX_REQUEST_STATE_CHARS);

    // The largest blob that still fits: the token is exactly at the limit, and opens.
    const overhead = codec.seal(payload({ state: { blob: '' } })).length;
    const fits = Math.floor((MAX_REQUEST_STATE_CHARS - overhead) / 4) * 3;
    const token = codec.seal(payload({ state: { blob: 'x'.repeat(fits) } }));
    expect(token.length).toBeLessThanOrEqual(MAX_REQUEST_STATE_CHARS);
    expect(codec.open(token, expectation).state).toEqual({ blob: 'x'.repeat(fits) });
  });

  describe('properties', () => {
    const expectRefused = (token: unknown) => {
      const result = outcome(token);
      expect(result).toHaveProperty('refused');
      const error = (result as { refused: unknown }).refused;
      expect(error).toBeInstanceOf(McpInvalidRequestStateException);
      expect((error as McpInvalidRequestStateException).toJsonRpcError().code).toBe(-32602);
    };

    it('refuses any value that is not a state it sealed, with -32602 and nothing else', () => {
      fc.assert(fc.property(fc.anything(), expectRefused), { numRuns: 500 });
      fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 300 }), expectRefused), { numRuns: 500 });
    });

    it('refuses strings shaped like states: three dot-separated parts, random or base64url', () => {
      const part = fc.oneof(fc.string({ maxLength: 60 }), fc.base64String({ maxLength: 80 }));
      fc.assert(
        fc.property(fc.constantFrom('v1', 'v2', ''), part, part, (version, body, signature) =>
          expectRefused(`${version}.${body}.${signature}`),
        ),
        { numRuns: 500 },
      );
    });

    it('refuses every edit of a genuine state: a character replaced, inserted or removed, or a cut', () => {
      const token = codec.seal(payload());
      const edit = fc.oneof(
        fc.record({
          kind: fc.constant('replace' as const),
          at: fc.nat(token.length - 1),
          text: fc.string({ minLength: 1, maxLength: 3 }),
        }),
        fc.record({
          kind: fc.constant('insert' as const),
          at: fc.nat(token.length),
          text: fc.string({ minLength: 1, maxLength: 3 }),
        }),
        fc.record({ kind: fc.constant('remove' as const), at: fc.nat(token.length - 1), text: fc.constant('') }),
        fc.record({ kind: fc.constant('cut' as const), at: fc.nat(token.length - 1), text: fc.constant('') }),
      );
      fc.assert(
        fc.property(edit, ({ kind, at, text }) => {
          const edited =
            kind === 'replace'
              ? token.slice(0, at) + text + token.slice(at + 1)
              : kind === 'insert'
                ? token.slice(0, at) + text + token.slice(at)
                : kind === 'remove'
                  ? token.slice(0, at) + token.slice(at + 1)
                  : token.slice(0, at);
          fc.pre(edited !== token);
          expectRefused(edited);
        }),
        { numRuns: 1_000 },
      );
    });

    it('refuses any payload signed with another key, however well it matches the request', () => {
      const forger = new RequestStateCodec(['a-key-this-server-never-had!!']);
      fc.assert(
        fc.property(fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 3 }), fc.string(), (state, nonce) =>
          expectRefused(forger.seal(payload({ state, nonce }))),
        ),
        { numRuns: 200 },
      );
    });

    it('refuses a genuine signature over a body of another shape (a state of an older format)', () => {
      // Signed with the server's key: only the payload's shape is wrong.
      fc.assert(
        fc.property(fc.jsonValue(), (body) => expectRefused(codec.seal(body as unknown as RequestStatePayload))),
        { numRuns: 300 },
      );
      expectRefused(codec.seal({ ...payload(), nonce: undefined } as unknown as RequestStatePayload));
      expectRefused(codec.seal({ ...payload(), asked: [1] } as unknown as RequestStatePayload));
    });
  });
});
