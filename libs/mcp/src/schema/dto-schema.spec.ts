import 'reflect-metadata';
import { Expose, Type } from 'class-transformer';
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

  it('reports missing required properties once', async () => {
    const { validate } = await compileSchema(AuthorDto, 'Authors.add');

    expect(await validate({})).toEqual({ ok: false, errors: ['name must be a string'] });
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
