import type { IncomingHttpHeaders } from 'node:http';
import { createHostOriginValidator } from './host-origin.validator.js';
import type { HostOriginValidatorOptions } from './host-origin.validator.js';

type Row = [host: unknown, origin: unknown, ok: boolean];

const headersOf = (host: unknown, origin: unknown): IncomingHttpHeaders => {
  const headers: Record<string, unknown> = {};
  if (host !== undefined) headers.host = host;
  if (origin !== undefined) headers.origin = origin;
  return headers as IncomingHttpHeaders;
};

const check = (options: HostOriginValidatorOptions, host: unknown, origin: unknown) =>
  createHostOriginValidator(options)(headersOf(host, origin));

describe('createHostOriginValidator with defaults (localhost only)', () => {
  it.each<Row>([
    // Host
    ['localhost', undefined, true],
    ['localhost:3000', undefined, true],
    ['LOCALHOST:3000', undefined, true],
    ['127.0.0.1', undefined, true],
    ['127.0.0.1:65535', undefined, true],
    ['[::1]', undefined, true],
    ['[::1]:8080', undefined, true],
    [undefined, undefined, false],
    ['', undefined, false],
    ['example.com', undefined, false],
    ['localhost.example.com', undefined, false],
    ['localhost.', undefined, false],
    ['127.0.0.2', undefined, false],
    ['0.0.0.0:3000', undefined, false],
    ['[::2]', undefined, false],
    ['[0:0:0:0:0:0:0:1]', undefined, false], // only the canonical IPv6 spelling
    ['::1', undefined, false],
    ['localhost:', undefined, false],
    ['localhost:65536', undefined, false],
    ['localhost:abc', undefined, false],
    ['localhost:3000:4000', undefined, false],
    ['user@localhost', undefined, false],
    ['localhost/path', undefined, false],
    ['[::1', undefined, false],
    ['[::1]x', undefined, false],
    // Origin (with a good Host)
    ['localhost:3000', 'http://localhost:3000', true],
    ['localhost:3000', 'http://localhost', true],
    ['localhost:3000', 'https://localhost:5173', true],
    ['localhost:3000', 'HTTP://LocalHost:5173', true],
    ['localhost:3000', 'http://127.0.0.1:5173', true],
    ['localhost:3000', 'http://[::1]:5173', true],
    ['localhost:3000', 'https://evil.example', false],
    ['localhost:3000', 'http://localhost.evil.example', false],
    ['localhost:3000', 'ftp://localhost', false],
    ['localhost:3000', 'chrome-extension://abcdef', false],
    ['localhost:3000', 'null', false],
    ['localhost:3000', '', false],
    ['localhost:3000', 'localhost:3000', false],
    ['localhost:3000', 'http://localhost:3000/', false],
    ['localhost:3000', 'http://localhost:3000/path', false],
    ['localhost:3000', 'http://user@localhost', false],
    ['localhost:3000', 'http://localhost:99999', false],
    ['localhost:3000', 'http://localhost http://evil.example', false],
    ['localhost:3000', ' http://localhost', false],
  ])('Host %p, Origin %p -> %p', (host, origin, ok) => {
    expect(check({}, host, origin).ok).toBe(ok);
  });

  it('treats undefined lists exactly like no options', () => {
    const validate = createHostOriginValidator({ allowedHosts: undefined, allowedOrigins: undefined });
    expect(validate({ host: 'localhost:1' })).toEqual({ ok: true });
    expect(validate({ host: 'example.com' }).ok).toBe(false);
    expect(createHostOriginValidator()({ host: '127.0.0.1' })).toEqual({ ok: true });
  });

  it('gives one validator the same verdicts request after request, whatever came before', () => {
    const validate = createHostOriginValidator();
    for (let round = 0; round < 2; round++) {
      expect(validate({ host: 'localhost:3000' })).toEqual({ ok: true });
      expect(validate({ host: 'localhost:3000', origin: 'https://evil.example' }).ok).toBe(false);
      expect(validate({ host: 'example.com' }).ok).toBe(false);
      expect(validate({}).ok).toBe(false);
      expect(validate({ host: ['localhost:3000', 'localhost:3000'] as unknown as string }).ok).toBe(false);
      expect(validate({ host: '[::1]:8080' })).toEqual({ ok: true });
    }
  });
});

describe('createHostOriginValidator with allowedHosts', () => {
  const options = { allowedHosts: ['example.com', 'API.example.com:8443', '[2001:db8::1]:443'] };

  it.each<Row>([
    ['example.com', undefined, true],
    ['example.com:80', undefined, true],
    ['EXAMPLE.COM:1234', undefined, true],
    ['api.example.com:8443', undefined, true],
    ['api.example.com', undefined, false], // an entry with a port matches only that port
    ['api.example.com:443', undefined, false],
    ['[2001:db8::1]:443', undefined, true],
    ['[2001:db8::1]', undefined, false],
    ['www.example.com', undefined, false],
    ['example.com.evil.test', undefined, false],
    ['localhost', undefined, false], // the localhost default is replaced, not extended
    [undefined, undefined, false],
  ])('Host %p -> %p', (host, origin, ok) => {
    expect(check(options, host, origin).ok).toBe(ok);
  });

  it('keeps the localhost Origin default when only allowedHosts is set', () => {
    expect(check(options, 'example.com', 'http://localhost:5173').ok).toBe(true);
    expect(check(options, 'example.com', 'https://example.com').ok).toBe(false);
  });

  it('allows any Host, even none, with "*"', () => {
    for (const host of ['example.com', 'anything.test:1', undefined, '', ['a', 'b'], 'garbage value']) {
      expect(check({ allowedHosts: ['example.com', '*'] }, host, undefined)).toEqual({ ok: true });
    }
  });

  it('allows no Host at all with an empty list', () => {
    expect(check({ allowedHosts: [] }, 'localhost', undefined).ok).toBe(false);
  });
});

describe('createHostOriginValidator with allowedOrigins', () => {
  const options = {
    allowedOrigins: ['https://app.example.com', 'HTTP://Dev.Example.com:8080', 'https://default.example.com:443/'],
  };

  it.each<Row>([
    ['localhost', undefined, true], // no Origin: not a browser cross-site request
    ['localhost', 'https://app.example.com', true],
    ['localhost', 'https://APP.example.com:443', true],
    ['localhost', 'http://app.example.com', false],
    ['localhost', 'https://app.example.com:8443', false],
    ['localhost', 'https://evil.app.example.com', false],
    ['localhost', 'http://dev.example.com:8080', true],
    ['localhost', 'http://dev.example.com', false],
    ['localhost', 'https://default.example.com', true],
    ['localhost', 'http://localhost:5173', false], // the localhost default is replaced, not extended
    ['localhost', 'null', false],
    ['example.com', 'https://app.example.com', false], // Host is still checked against its own list
  ])('Host %p, Origin %p -> %p', (host, origin, ok) => {
    expect(check(options, host, origin).ok).toBe(ok);
  });

  it.each<Row>([
    ['localhost', 'https://anything.test', true],
    ['localhost', 'chrome-extension://abcdef', true],
    ['localhost', undefined, true],
    ['localhost', 'null', false],
    ['localhost', 'not an origin', false],
    ['localhost', 'https://a.test/path', false],
  ])('with "*": Host %p, Origin %p -> %p', (host, origin, ok) => {
    expect(check({ allowedOrigins: ['*'] }, host, origin).ok).toBe(ok);
  });

  it('allows only Origin-less requests with an empty list', () => {
    expect(check({ allowedOrigins: [] }, 'localhost', undefined).ok).toBe(true);
    expect(check({ allowedOrigins: [] }, 'localhost', 'http://localhost').ok).toBe(false);
  });
});

describe('createHostOriginValidator reasons', () => {
  it.each<[unknown, unknown, string]>([
    [undefined, undefined, 'Missing Host header'],
    [['localhost', 'evil.test'], undefined, 'Multiple Host headers'],
    ['bad host', undefined, 'Malformed Host header'],
    ['EVIL.test:80', undefined, 'Host "evil.test:80" is not allowed'],
    ['localhost', 'null', 'Origin "null" is not allowed'],
    ['localhost', 'nope', 'Malformed Origin header'],
    ['localhost', ['http://localhost', 'http://evil.test'], 'Multiple Origin headers'],
    ['localhost', 'HTTPS://Evil.Test:443', 'Origin "https://evil.test" is not allowed'],
  ])('Host %p, Origin %p -> %p', (host, origin, reason) => {
    expect(check({}, host, origin)).toEqual({ ok: false, reason });
  });
});

describe('createHostOriginValidator on hostile input', () => {
  const validate = createHostOriginValidator({});
  const wide = createHostOriginValidator({ allowedHosts: ['*'], allowedOrigins: ['*'] });
  const big = 'a'.repeat(10 * 1024);

  it.each<[string, unknown, unknown]>([
    ['a 10 KB Host', big, undefined],
    ['a 10 KB Host ending in a port', `${big}:80`, undefined],
    ['a 10 KB Origin', 'localhost', `http://${big}`],
    ['a 10 KB run of colons', ':'.repeat(10 * 1024), `http://${':'.repeat(10 * 1024)}`],
    ['a unicode Host', 'lоcalhost', undefined], // Cyrillic "о"
    ['a Host with a Kelvin sign', 'localhost\u212a', undefined],
    ['a unicode Origin', 'localhost', 'http://lоcalhost'],
    ['an emoji Origin', 'localhost', 'http://😀.test'],
    ['a NUL in the Host', 'local\u0000host', undefined],
    ['an array Host', ['localhost'], undefined],
    ['a numeric Host', 127001, undefined],
    ['an object Origin', 'localhost', { toString: () => 'http://localhost' }],
  ])('rejects %s without throwing', (_name, host, origin) => {
    expect(() => validate(headersOf(host, origin))).not.toThrow();
    expect(validate(headersOf(host, origin)).ok).toBe(false);
  });

  it('never throws for wildcards either, and still refuses null and malformed origins', () => {
    expect(wide(headersOf(big, undefined))).toEqual({ ok: true });
    expect(wide(headersOf('x', `http://${big}`)).ok).toBe(false);
    expect(wide(headersOf('x', 'null')).ok).toBe(false);
    expect(wide(headersOf('x', 'http://ok.test'))).toEqual({ ok: true });
  });

  it('survives headers objects that are not plain', () => {
    const throwing = Object.defineProperty({}, 'host', {
      get() {
        throw new Error('boom');
      },
    }) as IncomingHttpHeaders;
    expect(validate(throwing).ok).toBe(false);
    expect(validate(Object.create(null) as IncomingHttpHeaders)).toEqual({ ok: false, reason: 'Missing Host header' });
    expect(validate(undefined as unknown as IncomingHttpHeaders).ok).toBe(false);
  });

  it('keeps reasons short even for huge values', () => {
    for (const host of [`${'b'.repeat(500)}.test`, `${'b'.repeat(5000)}.test`]) {
      const result = validate(headersOf(host, undefined));
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.reason.length).toBeLessThan(600);
    }
  });
});

describe('createHostOriginValidator configuration', () => {
  it.each<[string, HostOriginValidatorOptions]>([
    ['a URL in allowedHosts', { allowedHosts: ['https://example.com'] }],
    ['an empty allowedHosts entry', { allowedHosts: [''] }],
    ['a bad port in allowedHosts', { allowedHosts: ['example.com:70000'] }],
    ['a non-string allowedHosts entry', { allowedHosts: [42 as unknown as string] }],
    ['a bare host in allowedOrigins', { allowedOrigins: ['app.example.com'] }],
    ['a path in allowedOrigins', { allowedOrigins: ['https://app.example.com/app'] }],
    ['"null" in allowedOrigins', { allowedOrigins: ['null'] }],
  ])('throws at creation for %s', (_name, options) => {
    expect(() => createHostOriginValidator(options)).toThrow(TypeError);
  });

  it('accepts padded entries and a trailing slash on origins', () => {
    const validate = createHostOriginValidator({
      allowedHosts: [' example.com '],
      allowedOrigins: [' https://app.example.com/ '],
    });
    expect(validate({ host: 'example.com', origin: 'https://app.example.com' })).toEqual({ ok: true });
  });
});
