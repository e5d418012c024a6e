import { McpDefinitionError } from '../errors/mcp-bootstrap.errors.js';
import { compileSchema } from './index.js';

const noteSchema = {
  type: 'object',
  properties: {
    title: { type: 'string', minLength: 1 },
    visibility: { enum: ['private', 'public'] },
    author: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  },
  required: ['title'],
  additionalProperties: false,
};

describe('compileSchema with a raw JSON Schema', () => {
  it('serves a copy of the schema, unchanged', async () => {
    const { jsonSchema } = await compileSchema(noteSchema, 'NotesTools.create');

    expect(jsonSchema).toEqual(noteSchema);
    expect(jsonSchema).not.toBe(noteSchema);
  });

  it('returns a valid value as is', async () => {
    const { validate } = await compileSchema(noteSchema, 'NotesTools.create');
    const value = { title: 'Groceries', author: { name: 'Ada' } };

    const result = await validate(value);

    expect(result).toEqual({ ok: true, value });
    expect((result as { value: unknown }).value).toBe(value);
  });

  it('reports every error with its instance path', async () => {
    const { validate } = await compileSchema(noteSchema, 'NotesTools.create');

    expect(await validate({ title: 5, visibility: 'secret', author: {}, extra: true })).toEqual({
      ok: false,
      errors: [
        "must NOT have additional properties: 'extra'",
        '/title must be string',
        '/visibility must be equal to one of the allowed values: "private", "public"',
        "/author must have required property 'name'",
      ],
    });
    expect(await validate({})).toEqual({ ok: false, errors: ["must have required property 'title'"] });
    expect(await validate([])).toEqual({ ok: false, errors: ['must be object'] });
  });

  it('uses draft-07 when $schema says so', async () => {
    const tuple = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { point: { type: 'array', items: [{ type: 'number' }, { type: 'number' }], additionalItems: false } },
      definitions: { unused: { type: 'string' } },
    };

    const { jsonSchema, validate } = await compileSchema(tuple, 'Geo.locate');

    expect(jsonSchema).toEqual(tuple);
    expect(await validate({ point: [1, 2] })).toMatchObject({ ok: true });
    expect(await validate({ point: [1, 2, 3] })).toEqual({
      ok: false,
      errors: ['/point must NOT have more than 2 items'],
    });
  });

  it('lets two schemas share an $id', async () => {
    const first = await compileSchema(
      { $id: 'https://example.com/note.json', type: 'object', required: ['a'] },
      'Notes.a',
    );
    const second = await compileSchema(
      { $id: 'https://example.com/note.json', type: 'object', required: ['b'] },
      'Notes.b',
    );

    expect(await first.validate({ a: 1 })).toMatchObject({ ok: true });
    expect(await second.validate({ b: 1 })).toMatchObject({ ok: true });
    expect(await second.validate({ a: 1 })).toMatchObject({ ok: false });
  });

  it.each([
    ['a root that is not an object', { type: 'array', items: {} }, 'the root of a JSON Schema must have type "object"'],
    ['a root without type', { properties: {} }, 'the root of a JSON Schema must have type "object"'],
    ['an invalid keyword value', { type: 'object', properties: { a: { type: 'strin' } } }, 'schema is invalid'],
    [
      'a 2020-12 schema with draft-07 tuple items',
      { type: 'object', properties: { p: { items: [{}] } } },
      'schema is invalid',
    ],
    [
      'an unresolvable $ref',
      { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } },
      "can't resolve reference",
    ],
    [
      'an unsupported dialect',
      { $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' },
      'unsupported $schema',
    ],
  ])('throws McpDefinitionError naming the tool for %s', async (_case, schema, reason) => {
    const compiling = compileSchema(schema, 'NotesTools.create');

    await expect(compiling).rejects.toThrow(McpDefinitionError);
    await expect(compiling).rejects.toThrow(`Invalid MCP schema on NotesTools.create: `);
    await expect(compiling).rejects.toThrow(reason);
  });
});
