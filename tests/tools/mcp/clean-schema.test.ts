import { describe, expect, it } from 'vitest';
import { cleanToolSchema } from '../../../tools/index.js';
import { expectPortable } from './portable-schema.js';

describe('cleanToolSchema', () => {
  it('inlines $ref to $defs and definitions, keeping sibling descriptions', () => {
    const { schema, notes } = cleanToolSchema({
      type: 'object',
      properties: { owner: { $ref: '#/$defs/User', description: 'who owns it' }, tag: { $ref: '#/definitions/Tag' } },
      required: ['owner'],
      $defs: { User: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
      definitions: { Tag: { type: 'string', enum: ['a', 'b'] } },
    });
    expect(schema).toEqual({
      type: 'object',
      properties: {
        owner: { type: 'object', description: 'who owns it', properties: { name: { type: 'string' } }, required: ['name'] },
        tag: { type: 'string', enum: ['a', 'b'] },
      },
      required: ['owner'],
    });
    expect(notes).toEqual([]);
    expectPortable(schema);
  });

  it('cuts a recursive $ref with a note', () => {
    const { schema, notes } = cleanToolSchema({
      type: 'object',
      properties: { tree: { $ref: '#/$defs/Node' } },
      $defs: { Node: { type: 'object', properties: { label: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/Node' } } } } },
    });
    expect(schema.properties).toEqual({
      tree: {
        type: 'object',
        properties: { label: { type: 'string' }, children: { type: 'array', items: { type: 'object', description: '(recursive Node: same shape as its parent)' } } },
      },
    });
    expect(notes).toEqual(['tree.children[]: recursive $ref #/$defs/Node cut here; send a value of the same shape as its parent']);
    expectPortable(schema);
  });

  it('merges allOf into one object', () => {
    const { schema } = cleanToolSchema({
      type: 'object',
      properties: { page: { allOf: [{ $ref: '#/$defs/Paging' }, { properties: { sort: { type: 'string' } }, required: ['sort'] }] } },
      $defs: { Paging: { type: 'object', properties: { size: { type: 'integer', minimum: 1 } }, required: ['size'] } },
    });
    expect(schema.properties).toEqual({ page: { type: 'object', properties: { size: { type: 'integer', minimum: 1 }, sort: { type: 'string' } }, required: ['size', 'sort'] } });
    expectPortable(schema);
  });

  it('turns unions with null into optional fields, in anyOf and in type arrays', () => {
    const { schema } = cleanToolSchema({
      type: 'object',
      properties: { limit: { anyOf: [{ type: 'integer' }, { type: 'null' }], description: 'max rows' }, cursor: { type: ['string', 'null'] }, name: { type: 'string' } },
      required: ['limit', 'cursor', 'name'],
    });
    expect(schema).toEqual({
      type: 'object',
      properties: { limit: { type: 'integer', description: 'max rows' }, cursor: { type: 'string' }, name: { type: 'string' } },
      required: ['name'],
    });
  });

  it('reduces other unions: enums merge, objects merge, mixed types keep the first and say so', () => {
    const { schema, notes } = cleanToolSchema({
      type: 'object',
      properties: {
        mode: { oneOf: [{ const: 'fast' }, { const: 'slow' }] },
        target: { anyOf: [{ type: 'object', properties: { id: { type: 'string' } }, required: ['id'] }, { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }] },
        size: { anyOf: [{ type: 'integer' }, { type: 'string' }] },
      },
    });
    expect(schema.properties).toEqual({
      mode: { enum: ['fast', 'slow'] },
      target: { type: 'object', properties: { id: { type: 'string' }, path: { type: 'string' } }, description: 'One of 2 shapes; send the fields of one.' },
      size: { type: 'integer', description: '(also accepts: string)' },
    });
    expect(notes).toEqual(['size: a choice of integer | string is shown as its first; the others are accepted too']);
    expectPortable(schema);
  });

  it('drops keywords providers refuse and fills in the object root', () => {
    const { schema } = cleanToolSchema({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      properties: { when: { type: 'string', format: 'date-time', pattern: '^2', examples: ['2026'], default: 'now', title: 'When' } },
      additionalProperties: false,
      patternProperties: { '^x-': {} },
    });
    expect(schema).toEqual({ type: 'object', properties: { when: { type: 'string', description: 'When' } } });
  });

  it('gives an empty or missing schema an empty object', () => {
    expect(cleanToolSchema(undefined).schema).toEqual({ type: 'object', properties: {} });
    expect(cleanToolSchema({ type: 'object' }).schema).toEqual({ type: 'object', properties: {} });
  });
});
