import { describe, expect, it } from 'vitest';
import { apiSignature } from '../../../planners/language-service/api-signature.js';

/** What another file can see of a file: an edit inside a body whose type is declared keeps it; anything else changes it. */

const BASE = [
  "import { Invoice } from './invoice.js';",
  'export function latest(): Invoice {',
  '  return new Invoice([10, 20]);',
  '}',
  'export function inferred() {',
  '  return 1;',
  '}',
  'export class Store {',
  '  constructor(readonly name: string) {',
  '    this.count = 0;',
  '  }',
  '  count = 0;',
  '  get size(): number {',
  '    return this.count;',
  '  }',
  '  set size(value: number) {',
  '    this.count = value;',
  '  }',
  '  add = (amount: number): number => this.count + amount;',
  '}',
  '',
].join('\n');

const edited = (from: string, to: string): string => {
  expect(BASE).toContain(from);
  return BASE.replace(from, to);
};

describe('apiSignature', () => {
  it('stays the same through edits inside bodies whose type is declared: functions, getters, setters, constructors, arrows', () => {
    const base = apiSignature('src/store.ts', BASE);
    expect(apiSignature('src/store.ts', edited('new Invoice([10, 20])', 'new Invoice([10, 30])'))).toBe(base);
    expect(apiSignature('src/store.ts', edited('    return this.count;', '    return this.count * 2;'))).toBe(base);
    expect(apiSignature('src/store.ts', edited('    this.count = value;', '    this.count = value + 1;'))).toBe(base);
    expect(apiSignature('src/store.ts', edited('    this.count = 0;', '    this.count = 1;'))).toBe(base);
    expect(apiSignature('src/store.ts', edited('this.count + amount;', 'this.count - amount;'))).toBe(base);
  });

  it('changes when what other files see changes: an inferred body, a declaration, an import, a property', () => {
    const base = apiSignature('src/store.ts', BASE);
    expect(apiSignature('src/store.ts', edited('  return 1;', "  return 'one';"))).not.toBe(base);
    expect(apiSignature('src/store.ts', edited('export function latest(): Invoice {', 'export function latest(): Invoice | undefined {'))).not.toBe(base);
    expect(apiSignature('src/store.ts', edited("from './invoice.js'", "from './invoices.js'"))).not.toBe(base);
    expect(apiSignature('src/store.ts', edited('  count = 0;', "  count = '0';"))).not.toBe(base);
    expect(apiSignature('src/store.ts', `${BASE}export const more = 1;\n`)).not.toBe(base);
  });

  it('counts the whole text of a JavaScript file, where a body can declare a property', () => {
    const script = 'export class Store {\n  constructor() {\n    this.count = 0;\n  }\n}\n';
    expect(apiSignature('src/store.js', script.replace('this.count = 0', 'this.total = 0'))).not.toBe(apiSignature('src/store.js', script));
  });
});
