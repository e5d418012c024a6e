import {
  hasMalformedParams,
  type JsonRpcRequest,
  classifyMessage,
  errorResponse,
  isErrorResponse,
  isValidId,
  successResponse,
  type ClassifiedMessage,
} from './json-rpc.js';

const expectInvalid = (classified: ClassifiedMessage, id: string | number | null): void => {
  expect(classified).toEqual({ kind: 'invalid', id, detail: expect.any(String) });
  expect((classified as { detail: string }).detail.length).toBeGreaterThan(10);
};

describe('classifyMessage', () => {
  describe('valid messages', () => {
    it.each([
      ['a numeric id', { jsonrpc: '2.0', id: 1, method: 'ping' }],
      ['a string id', { jsonrpc: '2.0', id: 'abc-1', method: 'tools/list', params: { cursor: 'x' } }],
      ['id 0', { jsonrpc: '2.0', id: 0, method: 'ping' }],
      ['a negative id', { jsonrpc: '2.0', id: -7, method: 'ping' }],
      ['the largest safe integer id', { jsonrpc: '2.0', id: Number.MAX_SAFE_INTEGER, method: 'ping' }],
      ['an empty string id', { jsonrpc: '2.0', id: '', method: 'ping' }],
      ['params omitted', { jsonrpc: '2.0', id: 2, method: 'ping' }],
      ['empty params', { jsonrpc: '2.0', id: 3, method: 'ping', params: {} }],
    ])('classifies a request with %s, keeping the message as sent', (_label, message) => {
      const classified = classifyMessage(message);

      expect(classified).toEqual({ kind: 'request', message });
      expect((classified as { message: unknown }).message).toBe(message);
    });

    it('keeps the id type as sent ("1" is not 1)', () => {
      const classified = classifyMessage({ jsonrpc: '2.0', id: '1', method: 'ping' });

      expect(classified.kind).toBe('request');
      expect((classified as { message: { id: unknown } }).message.id).toBe('1');
    });

    it.each([
      ['without params', { jsonrpc: '2.0', method: 'notifications/initialized' }],
      ['with params', { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }],
    ])('classifies a notification %s', (_label, message) => {
      expect(classifyMessage(message)).toEqual({ kind: 'notification', message });
    });

    it.each([
      ['a result', { jsonrpc: '2.0', id: 5, result: {} }],
      ['an error', { jsonrpc: '2.0', id: 'x', error: { code: -32601, message: 'Method not found' } }],
    ])('classifies a response with %s', (_label, message) => {
      expect(classifyMessage(message)).toEqual({ kind: 'response', message });
    });

    it('classifies "__proto__" as an ordinary request method (routing decides)', () => {
      const message = JSON.parse('{"jsonrpc":"2.0","id":1,"method":"__proto__","params":{}}');

      expect(classifyMessage(message)).toEqual({ kind: 'request', message });
    });

    it('classifies a message whose params carry an own "__proto__" key as a request', () => {
      const message = JSON.parse('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"__proto__":{"x":1}}}');

      expect(classifyMessage(message).kind).toBe('request');
    });
  });

  describe('a wrong or missing "jsonrpc" member (-32600, id echoed when readable)', () => {
    it.each([
      ['"1.0"', { jsonrpc: '1.0', id: 9, method: 'ping' }, 9],
      ['missing', { id: 'req-1', method: 'ping' }, 'req-1'],
      ['the number 2', { jsonrpc: 2, id: 3, method: 'ping' }, 3],
      ['"2.0 " with a space', { jsonrpc: '2.0 ', id: 4, method: 'ping' }, 4],
      ['"1.0" with an unreadable id', { jsonrpc: '1.0', id: null, method: 'ping' }, null],
      ['"1.0" with a fractional id', { jsonrpc: '1.0', id: 1.5, method: 'ping' }, null],
      ['missing on a notification', { method: 'notifications/initialized' }, null],
    ])('is invalid when it is %s', (_label, message, id) => {
      const classified = classifyMessage(message);

      expectInvalid(classified, id);
      expect((classified as { detail: string }).detail).toContain('jsonrpc');
    });
  });

  describe('ids that MCP does not allow (-32600, id null)', () => {
    it.each([
      ['null', null],
      ['a fraction', 1.5],
      ['an object', {}],
      ['an array', [1]],
      ['a boolean', true],
      ['Infinity', Infinity],
      ['NaN', NaN],
      ['an unsafe integer', Number('9007199254740993')],
      ['an unsafe integer from JSON', JSON.parse('{"id":9007199254740993}').id],
    ])('is invalid when the id is %s', (_label, id) => {
      const classified = classifyMessage({ jsonrpc: '2.0', id, method: 'tools/list' });

      expectInvalid(classified, null);
      expect((classified as { detail: string }).detail).toContain('id');
    });
  });

  describe('a malformed method (-32600, id echoed) or params (a request the dispatcher answers -32602)', () => {
    it.each([
      ['a number', 42],
      ['null', null],
      ['an object', { name: 'ping' }],
      ['an array', ['ping']],
      ['a boolean', false],
    ])('is invalid when the method is %s', (_label, method) => {
      const classified = classifyMessage({ jsonrpc: '2.0', id: 11, method });

      expectInvalid(classified, 11);
      expect((classified as { detail: string }).detail).toContain('method');
    });

    it.each([
      ['an array', [1, 2]],
      ['a string', 'cursor'],
      ['a number', 1],
      ['null', null],
      ['a boolean', true],
    ])('is a request with malformed params when params is %s (-32602)', (_label, params) => {
      const classified = classifyMessage({ jsonrpc: '2.0', id: 'p', method: 'tools/list', params });

      expect(classified.kind).toBe('request');
      expect(hasMalformedParams((classified as { message: JsonRpcRequest }).message)).toBe(true);
    });

    it('keeps object params well-formed', () => {
      const classified = classifyMessage({ jsonrpc: '2.0', id: 'p', method: 'tools/list', params: {} });
      expect(hasMalformedParams((classified as { message: JsonRpcRequest }).message)).toBe(false);
    });

    it('is a notification (ignored, never answered) with array params', () => {
      expect(classifyMessage({ jsonrpc: '2.0', method: 'notifications/x', params: [] }).kind).toBe('notification');
    });
  });

  describe('values that are not messages (-32600, id null)', () => {
    it.each([
      ['null', null],
      ['a string', '{"jsonrpc":"2.0"}'],
      ['a number', 1],
      ['an array', [{ jsonrpc: '2.0', id: 1, method: 'ping' }]],
      ['undefined', undefined],
    ])('is invalid for %s', (_label, value) => {
      expectInvalid(classifyMessage(value), null);
    });

    it.each([
      ['an empty object with jsonrpc', { jsonrpc: '2.0' }, null],
      ['an id but no method, result or error', { jsonrpc: '2.0', id: 12 }, 12],
      ['an error that is not an object', { jsonrpc: '2.0', id: 13, error: 'failed' }, 13],
    ])('is invalid for %s', (_label, value, id) => {
      expectInvalid(classifyMessage(value), id);
    });
  });

  // JSON-RPC 2.0 section 5: an error response to a request whose id could not be read carries
  // `id: null` (MCP 2025-11-25 lets it omit the id). It is a response, so it must never be
  // answered; classified as `invalid`, the dispatcher answers it with a -32600 error.
  it.each([
    ['with id null', { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }],
    ['without an id', { jsonrpc: '2.0', error: { code: -32600, message: 'Invalid Request' } }],
  ])('classifies an error response %s as a response (never answered)', (_label, message) => {
    expect(classifyMessage(message).kind).toBe('response');
  });
});

describe('response builders', () => {
  it('builds success and error responses that isErrorResponse tells apart', () => {
    const ok = successResponse('a', { tools: [] });
    const failed = errorResponse(null, { code: -32600, message: 'Invalid Request' });

    expect(ok).toStrictEqual({ jsonrpc: '2.0', id: 'a', result: { tools: [] } });
    expect(failed).toStrictEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } });
    expect(isErrorResponse(ok)).toBe(false);
    expect(isErrorResponse(failed)).toBe(true);
  });

  it('accepts strings and safe integers as ids, nothing else', () => {
    expect([1, 0, -1, 'x', ''].every(isValidId)).toBe(true);
    expect([null, undefined, 1.5, 2 ** 53, NaN, {}, true].some(isValidId)).toBe(false);
  });
});
