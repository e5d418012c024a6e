import { allowNull, openApiToJsonSchema } from './openapi-keywords.js';

describe('allowNull', () => {
  it.each([
    [
      { type: 'string', minLength: 1 },
      { type: ['string', 'null'], minLength: 1 },
    ],
    [{ type: ['string', 'number'] }, { type: ['string', 'number', 'null'] }],
    [
      { type: 'string', enum: ['a', 'b'] },
      { type: ['string', 'null'], enum: ['a', 'b', null] },
    ],
    [{ enum: ['a', 1] }, { enum: ['a', 1, null] }],
    [{}, {}],
    [
      { $ref: '#/$defs/Node', description: 'A node' },
      { description: 'A node', anyOf: [{ $ref: '#/$defs/Node' }, { type: 'null' }] },
    ],
    [
      { anyOf: [{ type: 'string' }, { type: 'number' }] },
      { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'null' }] },
    ],
  ])('widens %j', (schema, expected) => {
    expect(allowNull(schema)).toEqual(expected);
  });
});

describe('openApiToJsonSchema', () => {
  it('rewrites OpenAPI keywords at every schema position, and only there', () => {
    const schema = {
      type: 'object',
      properties: {
        nullable: { type: 'boolean', nullable: true, example: true },
        list: { type: 'array', items: { not: { type: 'number' }, nullable: true } },
      },
      discriminator: { propertyName: 'kind' },
      default: { nullable: true },
    };

    expect(openApiToJsonSchema(schema)).toEqual({
      type: 'object',
      properties: {
        nullable: { type: ['boolean', 'null'], examples: [true] },
        list: { type: 'array', items: { anyOf: [{ not: { type: 'number' } }, { type: 'null' }] } },
      },
      default: { nullable: true },
    });
  });
});
