import { describe, expect, it } from '@jest/globals';
import { RawJson, stringifyJson } from './raw-json.js';

describe('stringifyJson', () => {
  it('writes plain values exactly as JSON.stringify does', () => {
    const value = { a: [1, 'two', { three: null }], b: 'line\nbreak', c: undefined };
    expect(stringifyJson(value)).toBe(JSON.stringify(value));
  });

  it('splices each raw value where it stands, in order, nested or not', () => {
    const value = {
      first: new RawJson('{"x":1}'),
      list: [new RawJson('[true]'), 2, { deep: new RawJson('"text"') }],
      last: new RawJson('null'),
    };
    const text = stringifyJson(value);
    expect(text).toBe('{"first":{"x":1},"list":[[true],2,{"deep":"text"}],"last":null}');
    expect(JSON.parse(text)).toEqual({ first: { x: 1 }, list: [[true], 2, { deep: 'text' }], last: null });
  });

  it('reads the raw text alone: the value it stands for is not serialized again', () => {
    let reads = 0;
    const result = {
      get content() {
        reads += 1;
        return [{ type: 'text', text: 'large' }];
      },
    };
    const raw = new RawJson(JSON.stringify(result));
    expect(reads).toBe(1);
    for (let poll = 0; poll < 3; poll++)
      expect(JSON.parse(stringifyJson({ result: raw })).result.content).toHaveLength(1);
    expect(reads).toBe(1);
  });

  it('leaves a client string that looks like a placeholder alone', () => {
    const value = { forged: '\u0000raw-json:000000000000000000000000:0', real: new RawJson('7') };
    expect(JSON.parse(stringifyJson(value))).toEqual({ forged: value.forged, real: 7 });
  });

  it('is the value its text holds where a plain JSON.stringify meets it', () => {
    expect(JSON.stringify({ raw: new RawJson('{"a":[1]}') })).toBe('{"raw":{"a":[1]}}');
  });

  it('splices within a toJSON that serializes on its own, and in the outer value after it', () => {
    const inner = { toJSON: () => stringifyJson({ nested: new RawJson('1') }) };
    expect(JSON.parse(stringifyJson({ inner, after: new RawJson('2') }))).toEqual({
      inner: '{"nested":1}',
      after: 2,
    });
  });

  it('ends its splice when serializing throws, so the next call is unaffected', () => {
    expect(() => stringifyJson({ raw: new RawJson('1'), big: 1n })).toThrow(TypeError);
    expect(JSON.stringify({ raw: new RawJson('3') })).toBe('{"raw":3}');
  });
});
