import { z } from 'zod';
import { McpDefinitionError } from '../errors/mcp-bootstrap.errors.js';
import { compileOutputSchema, compileSchema, isZodSchema } from './index.js';

const CreateNote = z.object({
  title: z.string().min(1),
  count: z.coerce.number().int(),
  visibility: z.enum(['private', 'public']).default('private'),
  tags: z.array(z.string()).optional(),
  author: z.object({ name: z.string() }),
});

describe('compileSchema with a zod schema', () => {
  it('recognises zod 4 schemas', () => {
    expect(isZodSchema(CreateNote)).toBe(true);
    expect(isZodSchema({ type: 'object' })).toBe(false);
  });

  it('generates the input-side JSON Schema without $schema', async () => {
    const { jsonSchema } = await compileSchema(CreateNote, 'NotesTools.create');

    expect(jsonSchema).toEqual({
      type: 'object',
      properties: {
        title: { type: 'string', minLength: 1 },
        count: { type: 'integer', minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
        visibility: { type: 'string', enum: ['private', 'public'], default: 'private' },
        tags: { type: 'array', items: { type: 'string' } },
        author: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      },
      required: ['title', 'count', 'author'],
    });
  });

  it('returns the parsed output: coerced, with defaults', async () => {
    const { validate } = await compileSchema(CreateNote, 'NotesTools.create');

    expect(await validate({ title: 'Groceries', count: '3', author: { name: 'Ada' } })).toEqual({
      ok: true,
      value: { title: 'Groceries', count: 3, visibility: 'private', author: { name: 'Ada' } },
    });
  });

  it('runs transforms and async refinements', async () => {
    const schema = z.object({
      slug: z.string().transform((text) => text.toLowerCase()),
      code: z.string().refine(async (code) => code !== 'taken', 'code is taken'),
    });
    const { validate } = await compileSchema(schema, 'Pages.create');

    expect(await validate({ slug: 'Hello', code: 'free' })).toEqual({
      ok: true,
      value: { slug: 'hello', code: 'free' },
    });
    expect(await validate({ slug: 'Hello', code: 'taken' })).toEqual({ ok: false, errors: ['code: code is taken'] });
  });

  it('reports messages prefixed with the dotted path', async () => {
    const { validate } = await compileSchema(CreateNote, 'NotesTools.create');

    expect(await validate({ title: 5, count: 1, tags: ['a', 2], author: { name: false } })).toEqual({
      ok: false,
      errors: [
        'title: Invalid input: expected string, received number',
        'tags.1: Invalid input: expected string, received number',
        'author.name: Invalid input: expected string, received boolean',
      ],
    });
    expect(await validate('text')).toEqual({ ok: false, errors: ['Invalid input: expected object, received string'] });
  });

  it('describes the output side for an output schema', async () => {
    const input = await compileSchema(CreateNote, 'NotesTools.create (output)');
    const output = await compileOutputSchema(CreateNote, 'NotesTools.create (output)');

    expect(input.jsonSchema.required).toEqual(['title', 'count', 'author']);
    expect(output.jsonSchema.required).toEqual(['title', 'count', 'visibility', 'author']);
  });

  it('keeps recursive schemas self-contained', async () => {
    const Category = z.object({
      name: z.string(),
      get children() {
        return z.array(Category);
      },
    });

    const { jsonSchema } = await compileSchema(Category, 'Categories.add');

    expect(jsonSchema).toEqual({
      type: 'object',
      properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#' } } },
      required: ['name', 'children'],
    });
  });

  it.each([
    ['a non-object root', z.string(), /Invalid MCP schema on Tools.bad: the root of a zod schema must be an object/],
    [
      'an unrepresentable type',
      z.object({ at: z.date() }),
      /Invalid MCP schema on Tools.bad: the zod schema has no JSON Schema equivalent/,
    ],
  ])('throws McpDefinitionError for %s', async (_case, schema, message) => {
    const compiling = compileSchema(schema, 'Tools.bad');

    await expect(compiling).rejects.toThrow(McpDefinitionError);
    await expect(compiling).rejects.toThrow(message);
  });

  it('throws McpDefinitionError for an output side that is a transform', async () => {
    const schema = z.object({ size: z.string().transform((text) => text.length) });

    await expect(compileOutputSchema(schema, 'Files.stat (output)')).rejects.toThrow(McpDefinitionError);
    await expect(compileSchema(schema, 'Files.stat')).resolves.toBeDefined();
  });
});
