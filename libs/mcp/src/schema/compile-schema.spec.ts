import 'reflect-metadata';
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { Type } from 'class-transformer';
import { IsEnum, IsInt, IsOptional, IsString, IsUrl, ValidateNested } from 'class-validator';
import { z } from 'zod';
import { McpDefinitionError } from '../errors/mcp-bootstrap.errors.js';
import { compileSchema, isDtoClass, type McpSchemaInput } from './index.js';

enum Kind {
  Page = 'page',
  Link = 'link',
}

class LinkDto {
  @IsUrl() href!: string;
  @IsOptional() @IsString() title?: string;
}

class EntryDto {
  @IsString() name!: string;
  @IsEnum(Kind) kind: Kind = Kind.Page;
  @IsInt() weight!: number;
  @IsOptional() @ValidateNested() @Type(() => LinkDto) link?: LinkDto;
  @IsOptional() @ValidateNested({ each: true }) @Type(() => EntryDto) children?: EntryDto[];
}

class CatalogDto {
  @ValidateNested() @Type(() => EntryDto) root!: EntryDto;
}

const entry = {
  name: 'root',
  weight: 1,
  link: { href: 'https://example.com', title: null },
  children: [{ name: 'leaf', weight: 2 }],
};

const zodEntry = z.object({
  name: z.string(),
  kind: z.enum(['page', 'link']).default('page'),
  weight: z.number().int(),
  link: z.object({ href: z.url(), title: z.string().nullable().optional() }).optional(),
  get children() {
    return z.array(zodEntry).optional();
  },
});

describe('compileSchema', () => {
  it('compiles a missing schema to an empty object that accepts only {}', async () => {
    const { jsonSchema, validate } = await compileSchema(undefined, 'Clock.now');

    expect(jsonSchema).toEqual({ type: 'object', properties: {}, additionalProperties: false });
    expect(await validate({})).toEqual({ ok: true, value: {} });
    expect(await validate({ zone: 'UTC' })).toEqual({ ok: false, errors: ['property zone should not exist'] });
    expect(await validate(null)).toEqual({ ok: false, errors: ['must be an object'] });
    expect(await validate(['a'])).toEqual({ ok: false, errors: ['must be an object'] });
  });

  it('tells DTO classes from other functions', () => {
    expect(isDtoClass(EntryDto)).toBe(true);
    expect(isDtoClass(() => ({}))).toBe(false);
    expect(isDtoClass({ type: 'object' })).toBe(false);
  });

  it.each<[string, unknown]>([
    ['an arrow function', () => ({})],
    ['null', null],
    ['a string', 'object'],
    ['an array', [{ type: 'object' }]],
    ['a class instance', new Date()],
    ['a zod 3 schema', { _def: { typeName: 'ZodObject' } }],
  ])('throws McpDefinitionError naming the tool for %s', async (_case, input) => {
    const compiling = compileSchema(input as McpSchemaInput, 'Tools.odd');

    await expect(compiling).rejects.toThrow(McpDefinitionError);
    await expect(compiling).rejects.toThrow(/^Invalid MCP schema on Tools\.odd: /);
  });

  describe.each<[string, McpSchemaInput, (value: object) => object]>([
    ['a recursive DTO (#)', EntryDto, (value) => value],
    ['a DTO nesting a recursive DTO ($defs)', CatalogDto, (value) => ({ root: value })],
    ['a recursive zod schema', zodEntry, (value) => value],
  ])('the JSON Schema generated for %s', (_case, input, wrap) => {
    // Clients validate with either dialect: MCP says 2020-12, many still run draft-07 Ajv.
    it.each([
      ['Ajv 2020-12', () => new Ajv2020({ strict: false, logger: false })],
      ['Ajv draft-07', () => new Ajv({ strict: false, logger: false })],
    ])('compiles with %s and agrees with the validator', async (_dialect, createAjv) => {
      const { jsonSchema, validate } = await compileSchema(input, 'Entries.add');
      const ajvValidate = createAjv().compile(jsonSchema);

      expect(ajvValidate(wrap(entry))).toBe(true);
      expect(await validate(wrap(entry))).toMatchObject({ ok: true });
      const wrong = wrap({ ...entry, children: [{ name: 'leaf', weight: 'heavy' }] });
      expect(ajvValidate(wrong)).toBe(false);
      expect(await validate(wrong)).toMatchObject({ ok: false });
    });
  });
});
