import 'reflect-metadata';
import { Exclude, Expose, Type } from 'class-transformer';
import {
  Allow,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsDate,
  IsEnum,
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  MaxLength,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { compileSchema } from './index.js';

enum Visibility {
  Private = 'private',
  Public = 'public',
}

enum Priority {
  Low,
  High,
}

class AuthorDto {
  @IsString() name!: string;
  @IsOptional() @IsUrl() homepage?: string;
}

class TagDto {
  @IsString() @MinLength(1) label!: string;
}

class CreateNoteDto {
  @IsString() @MinLength(1) @MaxLength(200) @Matches(/^[^<>]*$/) title!: string;
  @IsOptional() @IsString() body?: string;
  @IsInt() revision: number = 1;
  @IsBoolean() pinned = false;
  @IsEnum(Visibility) visibility!: Visibility;
  @IsEnum(Priority) priority!: Priority;
  @IsIn(['draft', 'final']) stage!: string;
  @IsNumber() weight!: number;
  @ValidateNested() @Type(() => AuthorDto) author!: AuthorDto;
  @IsArray() @ArrayMinSize(1) @ValidateNested({ each: true }) @Type(() => TagDto) tags!: TagDto[];
  @IsString({ each: true }) keywords: string[] = [];
}

const valid = {
  title: 'Groceries',
  visibility: 'private',
  priority: 1,
  stage: 'draft',
  weight: 0.5,
  author: { name: 'Ada' },
  tags: [{ label: 'home' }],
};

describe('compileSchema with a class-validator DTO', () => {
  it('generates a self-contained 2020-12 object schema', async () => {
    const { jsonSchema } = await compileSchema(CreateNoteDto, 'NotesTools.create');

    expect(jsonSchema).toEqual({
      type: 'object',
      properties: {
        title: { type: 'string', minLength: 1, maxLength: 200, pattern: '^[^<>]*$' },
        body: { type: ['string', 'null'] },
        revision: { type: 'integer', default: 1 },
        pinned: { type: 'boolean', default: false },
        visibility: { type: 'string', enum: ['private', 'public'] },
        priority: { type: 'number', enum: [0, 1] },
        stage: { type: 'string', enum: ['draft', 'final'] },
        weight: { type: 'number' },
        author: {
          type: 'object',
          properties: {
            name: { type: 'string' },
            homepage: { type: ['string', 'null'], format: 'url' },
          },
          required: ['name'],
          additionalProperties: false,
        },
        tags: {
          type: 'array',
          minItems: 1,
          items: {
            type: 'object',
            properties: { label: { type: 'string', minLength: 1 } },
            required: ['label'],
            additionalProperties: false,
          },
        },
        keywords: { type: 'array', items: { type: 'string' }, default: [] },
      },
      required: ['title', 'visibility', 'priority', 'stage', 'weight', 'author', 'tags'],
      additionalProperties: false,
    });
    const text = JSON.stringify(jsonSchema);
    expect(text).not.toContain('$schema');
    expect(text).not.toContain('nullable');
    expect(text).not.toContain('definitions');
    expect(text).not.toContain('$ref');
  });

  it('returns a DTO instance with its defaults on success', async () => {
    const result = await (await compileSchema(CreateNoteDto, 'NotesTools.create')).validate(valid);

    expect(result.ok).toBe(true);
    const value = (result as { value: CreateNoteDto }).value;
    expect(value).toBeInstanceOf(CreateNoteDto);
    expect(value.author).toBeInstanceOf(AuthorDto);
    expect(value.tags[0]).toBeInstanceOf(TagDto);
    expect(value).toMatchObject({ revision: 1, pinned: false, keywords: [], title: 'Groceries' });
  });

  it('accepts null for an @IsOptional() property', async () => {
    const { validate } = await compileSchema(CreateNoteDto, 'NotesTools.create');

    expect(await validate({ ...valid, body: null, author: { name: 'Ada', homepage: null } })).toMatchObject({
      ok: true,
    });
  });

  it('reports readable messages with nested paths', async () => {
    const { validate } = await compileSchema(CreateNoteDto, 'NotesTools.create');

    const result = await validate({
      ...valid,
      title: 42,
      author: { name: 7 },
      tags: [{ label: 'ok' }, { label: 3 }],
      keywords: ['a', 1],
    });

    expect(result.ok).toBe(false);
    const errors = (result as { errors: string[] }).errors;
    expect(errors).toContain('title must be a string');
    expect(errors).toContain('author.name must be a string');
    expect(errors).toContain('tags.1.label must be a string');
    expect(errors).toContain('each value in keywords must be a string');
    expect(errors.some((error) => error.startsWith('tags.0'))).toBe(false);
  });

  it('rejects unknown properties, top-level and nested', async () => {
    const { validate } = await compileSchema(CreateNoteDto, 'NotesTools.create');

    expect(await validate({ ...valid, colour: 'red', author: { name: 'Ada', age: 3 } })).toEqual({
      ok: false,
      errors: ['property colour should not exist', 'property author.age should not exist'],
    });
  });

  it('reports a missing required nested object, which class-validator alone lets through', async () => {
    const { validate } = await compileSchema(CreateNoteDto, 'NotesTools.create');
    const { author: _author, ...withoutAuthor } = valid;

    expect(await validate(withoutAuthor)).toEqual({ ok: false, errors: ['author is required'] });
  });

  it('says a missing number is required, top-level and nested, and a wrong one what it must be', async () => {
    class SumDto {
      @IsNumber() a!: number;
      @IsNumber() b!: number;
    }
    class NestedSumDto {
      @ValidateNested() @Type(() => SumDto) sum!: SumDto;
    }
    const sum = await compileSchema(SumDto, 'Math.add');
    const nested = await compileSchema(NestedSumDto, 'Math.nested');

    expect(await sum.validate({ b: 1 })).toEqual({ ok: false, errors: ['a is required'] });
    expect(await sum.validate({ a: 'one', b: 1 })).toEqual({
      ok: false,
      errors: ['a must be a number conforming to the specified constraints'],
    });
    expect(await nested.validate({ sum: { a: 1 } })).toEqual({ ok: false, errors: ['sum.b is required'] });
  });

  it('reports missing required properties once, as missing (not as of the wrong type)', async () => {
    const { validate } = await compileSchema(AuthorDto, 'Authors.add');

    expect(await validate({})).toEqual({ ok: false, errors: ['name is required'] });
  });

  it.each([[null], [[]], ['text'], [42]])('rejects the non-object %p', async (value) => {
    const { validate } = await compileSchema(CreateNoteDto, 'NotesTools.create');

    expect(await validate(value)).toEqual({ ok: false, errors: ['must be an object'] });
  });

  it('puts a recursive DTO under $defs, and a recursive root at #', async () => {
    class TreeNodeDto {
      @IsString() id!: string;
      @IsOptional() @ValidateNested({ each: true }) @Type(() => TreeNodeDto) children?: TreeNodeDto[];
    }
    class ForestDto {
      @ValidateNested() @Type(() => TreeNodeDto) root!: TreeNodeDto;
    }

    const forest = await compileSchema(ForestDto, 'Trees.plant');
    const tree = await compileSchema(TreeNodeDto, 'Trees.grow');

    expect(forest.jsonSchema).toEqual({
      type: 'object',
      properties: { root: { $ref: '#/$defs/TreeNodeDto' } },
      required: ['root'],
      additionalProperties: false,
      $defs: {
        TreeNodeDto: {
          type: 'object',
          properties: {
            id: { type: 'string' },
            children: { type: ['array', 'null'], items: { $ref: '#/$defs/TreeNodeDto' } },
          },
          required: ['id'],
          additionalProperties: false,
        },
      },
    });
    expect(tree.jsonSchema.properties).toEqual({
      id: { type: 'string' },
      children: { type: ['array', 'null'], items: { $ref: '#' } },
    });
    expect(await forest.validate({ root: { id: 'a', children: [{ id: 'b', children: [{ id: 7 }] }] } })).toEqual({
      ok: false,
      errors: ['root.children.0.children.0.id must be a string'],
    });
  });

  it('keeps two nested classes with the same name apart', async () => {
    const makeItem = (kind: 'text' | 'count') => {
      if (kind === 'text') {
        class ItemDto {
          @IsString() text!: string;
        }
        return ItemDto;
      }
      class ItemDto {
        @IsInt() count!: number;
      }
      return ItemDto;
    };
    const TextItem = makeItem('text');
    const CountItem = makeItem('count');
    class BasketDto {
      @ValidateNested() @Type(() => TextItem) note!: object;
      @ValidateNested() @Type(() => CountItem) amount!: object;
    }

    const { jsonSchema } = await compileSchema(BasketDto, 'Basket.fill');

    expect(jsonSchema.properties).toEqual({
      note: {
        type: 'object',
        properties: { text: { type: 'string' } },
        required: ['text'],
        additionalProperties: false,
      },
      amount: {
        type: 'object',
        properties: { count: { type: 'integer' } },
        required: ['count'],
        additionalProperties: false,
      },
    });
  });

  it('includes inherited properties and honours @Expose names', async () => {
    class BaseDto {
      @IsString() id!: string;
    }
    class RenameDto extends BaseDto {
      @Expose({ name: 'new_name' }) @IsString() newName!: string;
      @IsOptional() @IsString() note?: string;
    }

    const { jsonSchema, validate } = await compileSchema(RenameDto, 'Files.rename');

    expect(jsonSchema.properties).toEqual({
      id: { type: 'string' },
      new_name: { type: 'string' },
      note: { type: ['string', 'null'] },
    });
    expect(jsonSchema.required).toEqual(['new_name', 'id']);
    expect(await validate({ id: 'f1', new_name: 'b.txt' })).toMatchObject({
      ok: true,
      value: { id: 'f1', newName: 'b.txt' },
    });
  });

  it('describes dates with anyOf and turns them into Date objects', async () => {
    class RemindDto {
      @IsDate() @Type(() => Date) at!: Date;
      @Allow() payload!: unknown;
    }

    const { jsonSchema, validate } = await compileSchema(RemindDto, 'Reminders.add');

    expect(jsonSchema.properties).toEqual({
      at: {
        anyOf: [
          { type: 'string', format: 'date' },
          { type: 'string', format: 'date-time' },
        ],
      },
      payload: {},
    });
    const result = await validate({ at: '2030-01-02T03:04:05Z', payload: 1 });
    expect((result as { value: RemindDto }).value.at).toEqual(new Date('2030-01-02T03:04:05Z'));
    expect(await validate({ at: '2030-01-02T03:04:05Z' })).toEqual({ ok: false, errors: ['payload is required'] });
  });

  it('accepts {} for a DTO without properties and rejects anything in it', async () => {
    class NoArgsDto {}

    const { jsonSchema, validate } = await compileSchema(NoArgsDto, 'Clock.now');

    expect(jsonSchema).toEqual({ type: 'object', properties: {}, additionalProperties: false });
    expect(await validate({})).toMatchObject({ ok: true });
    expect(await validate({ zone: 'UTC' })).toEqual({ ok: false, errors: ['property zone should not exist'] });
  });
});

describe('compileSchema with undecorated DTO properties that have an initializer', () => {
  class ForecastInput {
    @IsString() city!: string;
    @IsOptional() @IsIn(['metric', 'imperial']) units?: 'metric' | 'imperial';
    days = 3;
  }

  it('lists them as optional properties with their default, typed by the default', async () => {
    const { jsonSchema } = await compileSchema(ForecastInput, 'Weather.forecast');

    expect(jsonSchema).toEqual({
      type: 'object',
      properties: {
        city: { type: 'string' },
        units: { type: ['string', 'null'], enum: ['metric', 'imperial', null] },
        days: { type: 'number', default: 3 },
      },
      required: ['city'],
      additionalProperties: false,
    });
  });

  it('accepts them, absent (the default) or given (the value)', async () => {
    const { validate } = await compileSchema(ForecastInput, 'Weather.forecast');

    const without = await validate({ city: 'Oslo' });
    const given = await validate({ city: 'Oslo', days: 5 });

    expect(without).toMatchObject({ ok: true, value: { city: 'Oslo', days: 3 } });
    expect((without as { value: unknown }).value).toBeInstanceOf(ForecastInput);
    expect(given).toMatchObject({ ok: true, value: { city: 'Oslo', days: 5 } });
  });

  it('checks the value against the inferred type, and still refuses unknown properties', async () => {
    const { validate } = await compileSchema(ForecastInput, 'Weather.forecast');

    expect(await validate({ city: 'Oslo', days: 'many', hours: 1 })).toEqual({
      ok: false,
      errors: ['days must be a number', 'property hours should not exist'],
    });
  });

  it('types them by design:type when a decorator made TypeScript emit it, else by the default', async () => {
    class RenamedDto {
      // @Expose is class-transformer's: class-validator still knows nothing of the property.
      @Expose({ name: 'max_items' }) maxItems: number = 10;
      label: string | null = null;
      // What tsc emits for `@Expose() title: string | null = null` (ts-jest's isolated modules say Object).
      @Reflect.metadata('design:type', String) title: string | null = null;
      tags = ['a'];
      flags = { loud: false };
      enabled = true;
    }

    const { jsonSchema, validate } = await compileSchema(RenamedDto, 'Lists.show');

    expect(jsonSchema).toEqual({
      type: 'object',
      properties: {
        max_items: { type: 'number', default: 10 },
        label: { default: null },
        title: { type: ['string', 'null'], default: null },
        tags: { type: 'array', default: ['a'] },
        flags: { type: 'object', default: { loud: false } },
        enabled: { type: 'boolean', default: true },
      },
      additionalProperties: false,
    });
    expect(await validate({ max_items: 3, label: 'x', tags: [], flags: {}, enabled: false })).toMatchObject({
      ok: true,
      value: { maxItems: 3, label: 'x', tags: [], flags: {}, enabled: false },
    });
    expect(await validate({ title: 'T' })).toMatchObject({ ok: true, value: { title: 'T' } });
    expect(await validate({ tags: {}, flags: [], enabled: 'yes', max_items: '3', title: 7 })).toEqual({
      ok: false,
      errors: [
        // class-validator names properties as on the instance; so does this check.
        'maxItems must be a number',
        'title must be a string',
        'tags must be an array',
        'flags must be an object',
        'enabled must be a boolean value',
      ],
    });
  });

  it('keeps an @Exclude() property with an initializer off the schema, and out of reach of clients', async () => {
    class TokenDto {
      @IsString() user!: string;
      @Exclude() issuer = 'mcp';
    }

    const { jsonSchema, validate } = await compileSchema(TokenDto, 'Tokens.issue');

    expect(jsonSchema.properties).toEqual({ user: { type: 'string' } });
    expect(await validate({ user: 'u', issuer: 'someone else' })).toMatchObject({
      ok: true,
      value: { user: 'u', issuer: 'mcp' },
    });
  });

  it('accepts them in nested DTOs too, and reports a wrong type with its path', async () => {
    class PageDto {
      size = 20;
    }
    class SearchDto {
      @IsString() query!: string;
      @IsOptional() @ValidateNested() @Type(() => PageDto) page?: PageDto;
    }

    const { jsonSchema, validate } = await compileSchema(SearchDto, 'Search.run');

    expect((jsonSchema.properties as Record<string, unknown>).page).toEqual({
      anyOf: [
        { type: 'object', properties: { size: { type: 'number', default: 20 } }, additionalProperties: false },
        { type: 'null' },
      ],
    });
    expect(await validate({ query: 'q', page: {} })).toMatchObject({ ok: true, value: { page: { size: 20 } } });
    expect(await validate({ query: 'q', page: { size: 'big' } })).toEqual({
      ok: false,
      errors: ['page.size must be a number'],
    });
  });

  it('fails at startup, naming the class, when the DTO cannot be built without arguments', async () => {
    class NeedsArgumentDto {
      readonly label: string;
      constructor(source: { label: string }) {
        this.label = source.label;
      }
    }

    await expect(compileSchema(NeedsArgumentDto, 'Labels.add')).rejects.toThrow(
      /Labels\.add.*NeedsArgumentDto.*without arguments/,
    );
  });

  it('uses a constructor whose parameters are optional', async () => {
    class OptionsDto {
      @IsOptional() @IsString() name?: string;
      retries = 2;
      constructor(init?: Partial<OptionsDto>) {
        Object.assign(this, init);
      }
    }

    const { jsonSchema, validate } = await compileSchema(OptionsDto, 'Jobs.start');

    expect(jsonSchema.properties).toEqual({
      name: { type: ['string', 'null'] },
      retries: { type: 'number', default: 2 },
    });
    expect(await validate({ retries: 4 })).toMatchObject({ ok: true, value: { retries: 4 } });
  });
});
