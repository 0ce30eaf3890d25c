import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { WORKSPACE_SAFE_KEYS, configSchema } from '../../engine/config/config-schema.js';
import { REPO_ROOT } from '../helpers/markdown-references.js';

/**
 * docs/configuration.md is the full reference: a user who reads it must find every key dagent
 * accepts (a key it does not describe is one nobody can discover), and every key a repository may
 * set without `dagent trust`.
 */
const reference = readFileSync(join(REPO_ROOT, 'docs', 'configuration.md'), 'utf8');

/** The object schema inside optional wrappers, or undefined for a leaf or a record. */
function objectShape(schema: z.ZodType): Record<string, z.ZodType> | undefined {
  let inner: z.ZodType = schema;
  while (inner.def.type === 'optional') inner = (inner as z.ZodOptional<z.ZodType>).unwrap();
  return inner.def.type === 'object' ? (inner as z.ZodObject).shape : undefined;
}

/** Every key of the settings, nested keys as `parent.child`. */
function settingKeys(): string[] {
  const keys: string[] = [];
  for (const [name, schema] of Object.entries(configSchema.shape)) {
    const nested = objectShape(schema as z.ZodType);
    if (nested === undefined) keys.push(name);
    else for (const child of Object.keys(nested)) keys.push(`${name}.${child}`);
  }
  return keys;
}

describe('docs/configuration.md', () => {
  it('describes every setting dagent accepts, nested ones by their full name', () => {
    const keys = settingKeys();
    expect(keys).toContain('replan.maxReplans');
    const undocumented = keys.filter((key) => !reference.includes(`\`${key}\``));
    expect(undocumented, 'settings missing from docs/configuration.md (add a row to "Every key")').toEqual([]);
  });

  it('names every key a repository may set before it is trusted', () => {
    const trustSection = reference.slice(reference.indexOf('dagent trust'), reference.indexOf('## Every key'));
    expect(WORKSPACE_SAFE_KEYS.filter((key) => !trustSection.includes(`\`${key}\``))).toEqual([]);
  });
});
