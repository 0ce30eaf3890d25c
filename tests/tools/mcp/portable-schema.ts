import { expect } from 'vitest';

/** The keywords and shapes every provider adapter's tool format accepts (OpenAI-compatible, DeepSeek, Anthropic, Gemini-style). */
const PORTABLE_KEYWORDS = new Set(['type', 'description', 'properties', 'required', 'items', 'enum', 'minimum', 'maximum', 'minLength', 'maxLength', 'minItems', 'maxItems']);
const PORTABLE_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array']);

/** Fails with the path of the first keyword or shape a strict provider would refuse. */
export function expectPortable(schema: unknown, path = '(root)'): void {
  expect(typeof schema === 'object' && schema !== null && !Array.isArray(schema), `${path} is an object`).toBe(true);
  const node = schema as Record<string, unknown>;
  for (const key of Object.keys(node)) expect(PORTABLE_KEYWORDS.has(key), `${path}: keyword ${key}`).toBe(true);
  if (node.type !== undefined) expect(PORTABLE_TYPES.has(node.type as string), `${path}: type ${JSON.stringify(node.type)}`).toBe(true);
  if (node.properties !== undefined) {
    expect(node.type, `${path}: properties without type object`).toBe('object');
    for (const [name, property] of Object.entries(node.properties as Record<string, unknown>)) expectPortable(property, `${path}.${name}`);
  }
  if (node.required !== undefined) {
    for (const name of node.required as string[]) expect(Object.keys((node.properties ?? {}) as object), `${path}: required ${name}`).toContain(name);
  }
  if (node.items !== undefined) expectPortable(node.items, `${path}[]`);
  if (node.type === 'array') expect(node.items, `${path}: array without items`).toBeDefined();
}
