import { isJsonContentType, negotiateAccept, parseMediaType } from './media-type.js';

describe('parseMediaType', () => {
  it.each<[string | undefined, { type: string; params: Record<string, string> } | undefined]>([
    ['application/json', { type: 'application/json', params: {} }],
    ['  Application/JSON  ', { type: 'application/json', params: {} }],
    ['application/json; charset=utf-8', { type: 'application/json', params: { charset: 'utf-8' } }],
    ['application/json;CHARSET=UTF-8', { type: 'application/json', params: { charset: 'UTF-8' } }],
    ['text/plain ; a=1 ; b = 2', { type: 'text/plain', params: { a: '1', b: '2' } }],
    ['text/plain; a="x; y, z"', { type: 'text/plain', params: { a: 'x; y, z' } }],
    ['text/plain; a="say \\"hi\\""; b=2', { type: 'text/plain', params: { a: 'say "hi"', b: '2' } }],
    ['text/plain; a=""', { type: 'text/plain', params: { a: '' } }],
    ['text/plain; a=1; a=2', { type: 'text/plain', params: { a: '1' } }],
    ['text/plain; a=1;', { type: 'text/plain', params: { a: '1' } }],
    ['text/plain; broken; a="unterminated; b=2', { type: 'text/plain', params: {} }],
    ['text/plain; a="x"y; b=2', { type: 'text/plain', params: { b: '2' } }],
    ['text/plain; a="x\\"; b=2', { type: 'text/plain', params: {} }],
    ['text/plain; application/json', { type: 'text/plain', params: {} }],
    [undefined, undefined],
    ['', undefined],
    ['   ', undefined],
    ['application', undefined],
    ['application/', undefined],
    ['/json', undefined],
    ['application/json/x', undefined],
    ['appli cation/json', undefined],
    ['application/json, text/plain', undefined],
    ['application/jsön', undefined],
  ])('parses %p', (header, expected) => {
    const parsed = parseMediaType(header);
    expect(parsed).toEqual(expected);
  });

  it('returns parameters without an inherited prototype', () => {
    const parsed = parseMediaType('text/plain; __proto__=x; constructor=y');
    expect(Object.getPrototypeOf(parsed?.params)).toBeNull();
    expect(parsed?.params['__proto__']).toBe('x');
    expect(parsed?.params['constructor']).toBe('y');
  });

  it('never throws on odd input', () => {
    for (const header of [
      '"',
      '\\',
      ';;;',
      '=',
      'a/b;=;=',
      '"a/b"',
      'a/b; x="\\',
      'x'.repeat(20_000),
      '\u0000/\u0000',
    ]) {
      expect(() => parseMediaType(header)).not.toThrow();
    }
    expect(parseMediaType(['application/json'] as unknown as string)).toBeUndefined();
  });
});

describe('isJsonContentType', () => {
  it.each<[string | undefined, boolean]>([
    ['application/json', true],
    ['APPLICATION/JSON', true],
    ['application/json; charset=utf-8', true],
    ['application/json;charset="UTF-8"', true],
    ['application/json; charset=iso-8859-1', true], // not judged here: the body decoder insists on UTF-8
    ['application/json ; foo=bar', true],
    ['application/jsonx', false],
    ['application/json-seq', false],
    ['xapplication/json', false],
    ['text/plain; application/json', false],
    ['text/plain; type=application/json', false],
    ['application/merge-patch+json', false],
    ['application/vnd.api+json', false],
    ['text/json', false],
    ['application/*', false],
    ['application/json, text/plain', false],
    ['', false],
    [undefined, false],
  ])('%p -> %p', (header, expected) => {
    expect(isJsonContentType(header)).toBe(expected);
  });
});

describe('negotiateAccept', () => {
  it.each<[string | undefined, { json: boolean; sse: boolean; html?: boolean }]>([
    // Absent or blank: everything is acceptable.
    [undefined, { json: true, sse: true }],
    ['', { json: true, sse: true }],
    ['   ', { json: true, sse: true }],
    // What MCP clients send.
    ['application/json, text/event-stream', { json: true, sse: true }],
    ['text/event-stream', { json: false, sse: true }],
    ['application/json', { json: true, sse: false }],
    ['Application/Json;charset=utf-8', { json: true, sse: false }],
    // Wildcards.
    ['*/*', { json: true, sse: true }],
    ['application/*', { json: true, sse: false }],
    ['text/*', { json: false, sse: true }],
    ['text/html, image/*', { json: false, sse: false, html: true }],
    // q values.
    ['application/json;q=0, text/event-stream', { json: false, sse: true }],
    ['application/json;q=0.000, text/event-stream;q=0.001', { json: false, sse: true }],
    ['application/json; q=0.5, text/event-stream; q=1.0', { json: true, sse: true }],
    ['application/json;Q=0', { json: false, sse: false }],
    // A more specific range overrides a wildcard, in either direction.
    ['*/*, text/event-stream;q=0', { json: true, sse: false }],
    ['*/*;q=0, application/json', { json: true, sse: false }],
    ['application/*;q=0, */*', { json: false, sse: true }],
    ['text/*;q=0, text/event-stream;q=0.1', { json: false, sse: true }],
    // Equally specific duplicates: the highest weight wins.
    ['application/json;q=0, application/json;q=0.5', { json: true, sse: false }],
    // Non-q parameters do not change matching.
    ['text/event-stream;charset=utf-8', { json: false, sse: true }],
    ['text/event-stream;x="a,b", application/json', { json: true, sse: true }],
    // Malformed elements are skipped.
    ['application/json;q=2, text/event-stream', { json: false, sse: true }],
    ['application/json;q=abc, text/event-stream', { json: false, sse: true }],
    ['application/json;q=0.5000, text/event-stream', { json: false, sse: true }],
    ['*/json, text/event-stream', { json: false, sse: true }],
    ['garbage, text/event-stream', { json: false, sse: true }],
    [',,, application/json ,', { json: true, sse: false }],
    ['garbage', { json: false, sse: false }],
    ['application/jsonx, text/event-streams', { json: false, sse: false }],
  ])('%p -> %p', (header, expected) => {
    expect(negotiateAccept(header)).toEqual(expected);
  });

  it('never throws on odd input', () => {
    for (const header of ['"', ',"', '*/*;q="', 'a/b;q=', 'x'.repeat(20_000), ';'.repeat(5_000), '€/€']) {
      expect(() => negotiateAccept(header)).not.toThrow();
    }
  });
});

describe('Accept policy', () => {
  // The handler's policy: POST needs JSON or SSE, GET needs SSE; a named text/html is a browser.
  it.each<[string | undefined, boolean, boolean, boolean]>([
    // header, POST acceptable, GET acceptable, browser
    [undefined, true, true, false],
    ['application/json, text/event-stream', true, true, false],
    ['application/json', true, false, false],
    ['text/event-stream', true, true, false],
    ['*/*', true, true, false],
    ['text/html', false, false, true],
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', true, true, true],
    ['application/json;q=0, text/event-stream;q=0', false, false, false],
  ])('Accept %p: POST %p, GET %p, browser %p', (header, post, get, browser) => {
    const accept = negotiateAccept(header);
    expect(accept.json || accept.sse).toBe(post);
    expect(accept.sse).toBe(get);
    expect(accept.html === true).toBe(browser);
  });
});
