import 'reflect-metadata';
import { Allow, IsOptional, IsString } from 'class-validator';
import { z } from 'zod';
import { compileOutputSchema, compileSchema, type McpSchemaInput } from './index.js';

class EchoDto {
  @IsOptional() @IsString() text?: string;
  @IsOptional() @Allow() payload?: unknown;
}

const zodEcho = z.object({ text: z.string().optional(), payload: z.unknown().optional() });
const jsonEcho = { type: 'object', properties: { text: { type: 'string' }, payload: {} } };

/** `{ a: { a: ... 'leaf' } }` with `levels` objects. */
function nested(levels: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
}

const models: [string, McpSchemaInput][] = [
  ['a class-validator DTO', EchoDto],
  ['a zod schema', zodEcho],
  ['a raw JSON Schema', jsonEcho],
];

describe.each(models)('argument depth with %s', (_kind, model) => {
  it('refuses values nested 2,000 levels deep as invalid arguments, naming the argument and the limit', async () => {
    const { validate } = await compileSchema(model, 'Echo.echo');

    expect(await validate({ payload: nested(2_000) })).toEqual({
      ok: false,
      errors: ['payload is nested deeper than 64 levels (the maxArgumentDepth limit)'],
    });
  });

  it('counts the arguments object as level 1: 63 levels below it pass, 64 do not', async () => {
    const { validate } = await compileSchema(model, 'Echo.echo');

    expect(await validate({ payload: nested(63) })).toMatchObject({ ok: true });
    expect(await validate({ payload: nested(64) })).toMatchObject({ ok: false });
  });

  it('counts arrays as levels too, and honours another limit', async () => {
    const { validate } = await compileSchema(model, 'Echo.echo', { maxDepth: 3 });

    expect(await validate({ payload: [[1]] })).toMatchObject({ ok: true });
    expect(await validate({ payload: [[[1]]] })).toEqual({
      ok: false,
      errors: ['payload is nested deeper than 3 levels (the maxArgumentDepth limit)'],
    });
  });
});

describe('argument depth of tool results', () => {
  it('does not apply: a result is the server speaking, not the client', async () => {
    const { validate } = await compileOutputSchema(jsonEcho, 'Echo.echo');

    expect(await validate({ payload: nested(100) })).toMatchObject({ ok: true });
  });
});

describe('DTO arguments class-transformer cannot convert', () => {
  it("answers an object with its own 'constructor' property as invalid arguments, not a crash", async () => {
    const { validate } = await compileSchema(EchoDto, 'Echo.echo');

    expect(await validate({ text: { constructor: 1 } })).toEqual({
      ok: false,
      errors: ["text.constructor: an object with a 'constructor' property cannot be converted to EchoDto"],
    });
    expect(await validate({ payload: [{ deep: { constructor: {} } }] })).toEqual({
      ok: false,
      errors: ["payload.0.deep.constructor: an object with a 'constructor' property cannot be converted to EchoDto"],
    });
  });
});
