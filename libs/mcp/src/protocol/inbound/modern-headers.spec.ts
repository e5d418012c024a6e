/**
 * Properties of the modern header/body cross-check, over generated requests: the headers a
 * conforming client derives from a body always pass; any single change to one of them (gone,
 * altered, repeated, or one more than the body accounts for) is always `-32020`; and a value
 * carried in the Base64 sentinel form is the value itself, whatever its characters.
 */
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import type { IncomingHttpHeaders } from 'node:http';
import { McpHeaderMismatchException } from '../../errors/mcp-modern.exceptions.js';
import type { JsonRpcRequest } from '../../model/json-rpc.js';
import type { McpModernEnvelope } from './modern-envelope.js';
import type { McpHeaderParam } from '../../registry/tool-header-params.js';
import { checkModernHeaders } from './modern-headers.js';

const VERSION = '2026-07-28';
const ENVELOPE: McpModernEnvelope = { protocolVersion: VERSION, clientCapabilities: {} };
const NAMED = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' } as const;

/** `=?base64?…?=` of a value's UTF-8 bytes. */
const sentinel = (value: string): string => `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;

/**
 * How a client writes a value into a header: as is when it is plain visible ASCII (spaces
 * inside), in the sentinel form otherwise, and also when it would read as a sentinel itself.
 */
const encode = (value: string): string =>
  /^(?:[\x21-\x7E](?:[\x20-\x7E]*[\x21-\x7E])?)?$/.test(value) && !/^=\?base64\?.*\?=$/s.test(value)
    ? value
    : sentinel(value);

/** Any string a body may hold: ASCII most of the time, any code point sometimes. */
const text = fc.oneof(
  fc.string({ unit: 'grapheme-ascii', maxLength: 24 }),
  fc.string({ unit: 'binary', maxLength: 24 }),
  fc.constantFrom('=?base64?aGk=?=', ' padded ', 'tab\there', 'ünïcödé', '🎉', ''),
);

/** One declared `Mcp-Param-*` and the argument it mirrors (absent sometimes). */
const headerParam = fc.oneof(
  fc.record({ type: fc.constant('string' as const), value: fc.option(text, { nil: undefined }) }),
  fc.record({ type: fc.constant('integer' as const), value: fc.option(fc.integer(), { nil: undefined }) }),
  fc.record({ type: fc.constant('boolean' as const), value: fc.option(fc.boolean(), { nil: undefined }) }),
);

interface Case {
  readonly request: JsonRpcRequest;
  readonly params: readonly McpHeaderParam[];
  /** The headers a conforming client sends for `request`. */
  readonly headers: Record<string, string>;
}

/** A modern request (named or not, with declared header params for tools/call) and its headers. */
const modernCase: fc.Arbitrary<Case> = fc
  .record({
    method: fc.oneof(
      fc.constantFrom('tools/call', 'prompts/get', 'resources/read', 'tools/list', 'resources/list', 'server/discover'),
      fc.stringMatching(/^[a-z]{1,8}\/[a-z]{1,8}$/),
    ),
    name: text,
    declared: fc.uniqueArray(
      fc.record({ name: fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9-]{0,11}$/), param: headerParam }),
      { maxLength: 4, selector: (entry) => entry.name.toLowerCase() },
    ),
  })
  .map(({ method, name, declared }) => {
    const headers: Record<string, string> = { 'mcp-protocol-version': VERSION, 'mcp-method': method };
    const params: Record<string, unknown> = { _meta: {} };
    const field = NAMED[method as keyof typeof NAMED];
    const headerParams: McpHeaderParam[] = [];
    if (field !== undefined) {
      params[field] = name;
      headers['mcp-name'] = encode(name);
    }
    if (method === 'tools/call') {
      const args: Record<string, unknown> = {};
      declared.forEach(({ name: headerName, param }, i) => {
        const header = `mcp-param-${headerName.toLowerCase()}`;
        // Every other one sits one level down, as `x-mcp-header` may annotate nested properties.
        const path = i % 2 === 0 ? [`arg${i}`] : ['nested', `arg${i}`];
        headerParams.push({ path, header, type: param.type });
        if (param.value === undefined) return;
        const holder = path.length === 1 ? args : ((args.nested as Record<string, unknown>) ??= {});
        holder[path.at(-1)!] = param.value;
        headers[header] = param.type === 'string' ? encode(param.value) : String(param.value);
      });
      params.arguments = args;
    }
    const request: JsonRpcRequest = { jsonrpc: '2.0', id: 1, method, params };
    return { request, params: headerParams, headers };
  });

const check = (item: Case, headers: IncomingHttpHeaders): void =>
  checkModernHeaders(headers, item.request, ENVELOPE, { get: () => ({ headerParams: item.params }) });

/** The code the check refuses with, or `undefined` when it passes. */
const refusal = (item: Case, headers: IncomingHttpHeaders): number | undefined => {
  try {
    check(item, headers);
    return undefined;
  } catch (error) {
    if (error instanceof McpHeaderMismatchException) return error.code;
    throw error;
  }
};

/** One change to one header the client sent, or one header more than the body accounts for. */
type Mutation = (headers: Record<string, string>) => IncomingHttpHeaders;

const mutationOf = (item: Case): fc.Arbitrary<Mutation> => {
  const sent = Object.keys(item.headers);
  const unsent = item.params.map((param) => param.header).filter((header) => !(header in item.headers));
  const changes: fc.Arbitrary<Mutation>[] = [
    fc
      .tuple(fc.constantFrom(...sent), fc.constantFrom('remove', 'append', 'repeat'))
      .map(([header, change]): Mutation => (headers) => {
        const copy: IncomingHttpHeaders = { ...headers };
        if (change === 'remove') delete copy[header];
        // A trailing character changes a value and breaks a sentinel: never the same value.
        else if (change === 'append') copy[header] = `${headers[header]}x`;
        else copy[header] = [headers[header], headers[header]];
        return copy;
      }),
  ];
  if (unsent.length > 0) {
    changes.push(
      fc
        .tuple(fc.constantFrom(...unsent), text)
        .map(([header, value]): Mutation => (headers) => ({ ...headers, [header]: encode(value) })),
    );
  }
  return fc.oneof(...changes);
};

describe('the modern header/body cross-check (properties)', () => {
  it('passes the headers a conforming client derives from the body', () => {
    fc.assert(
      fc.property(modernCase, (item) => {
        expect(refusal(item, item.headers)).toBeUndefined();
      }),
      { numRuns: 500 },
    );
  });

  it('refuses any single change to one of them with -32020', () => {
    fc.assert(
      fc.property(
        modernCase.chain((item) => fc.tuple(fc.constant(item), mutationOf(item))),
        ([item, mutate]) => {
          expect(refusal(item, mutate(item.headers))).toBe(-32020);
        },
      ),
      { numRuns: 1_000 },
    );
  });

  it('reads any value in the Base64 sentinel form as the value itself, in Mcp-Name and in Mcp-Param-*', () => {
    fc.assert(
      fc.property(text, text, (name, region) => {
        const item: Case = {
          request: {
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: { name, arguments: { region }, _meta: {} },
          },
          params: [{ path: ['region'], header: 'mcp-param-region', type: 'string' }],
          headers: {},
        };
        const headers = {
          'mcp-protocol-version': VERSION,
          'mcp-method': 'tools/call',
          'mcp-name': sentinel(name),
          'mcp-param-region': sentinel(region),
        };
        expect(refusal(item, headers)).toBeUndefined();
        // The same bytes, but not valid Base64 (one character short): malformed, never decoded loosely.
        const broken = Buffer.from(region, 'utf8').toString('base64');
        if (broken.length > 0) {
          const malformed = { ...headers, 'mcp-param-region': `=?base64?${broken.slice(0, -1)}?=` };
          expect(refusal(item, malformed)).toBe(-32020);
        }
      }),
      { numRuns: 500 },
    );
  });
});
