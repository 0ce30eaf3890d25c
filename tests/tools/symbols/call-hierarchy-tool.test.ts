import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLanguageService, type WorkspaceLanguageService } from '../../../planners/index.js';
import { LocalToolRuntime, createSymbolTools } from '../../../tools/index.js';
import { openToolTestBed, type ToolTestBed } from '../../helpers/tools-test-bed.js';

/** `priceOf` calls `format`; `checkout` (cart.ts) calls `priceOf` twice, `print` (receipt.ts) once. */
function writeFixture(workspace: string): void {
  mkdirSync(join(workspace, 'src'));
  writeFileSync(join(workspace, 'tsconfig.json'), JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true }, include: ['src'] }));
  writeFileSync(join(workspace, 'package.json'), '{ "name": "shop", "private": true, "type": "module" }\n');
  writeFileSync(join(workspace, 'src/price.ts'), 'function format(value: number): string {\n  return value.toFixed(2);\n}\n\nexport function priceOf(cents: number): string {\n  return `$${format(cents / 100)}`;\n}\n');
  writeFileSync(join(workspace, 'src/cart.ts'), "import { priceOf } from './price.js';\n\nexport function checkout(items: number[]): string[] {\n  const first = priceOf(items[0] ?? 0);\n  return [first, priceOf(items.reduce((sum, item) => sum + item, 0))];\n}\n");
  writeFileSync(join(workspace, 'src/receipt.ts'), "import { priceOf } from './price.js';\n\nexport function print(total: number): void {\n  console.log(priceOf(total));\n}\n");
}

describe('the call_hierarchy tool on a small TypeScript project', () => {
  let bed: ToolTestBed;
  let service: WorkspaceLanguageService;
  let runtime: LocalToolRuntime;
  beforeAll(async () => {
    bed = await openToolTestBed();
    writeFixture(bed.workspace);
    service = createLanguageService({ workspace: bed.workspace });
    runtime = new LocalToolRuntime({ tools: createSymbolTools(async () => service) });
  });
  afterAll(async () => {
    service.dispose();
    await bed.cleanup();
  });

  it('lists the callers in other files and the callees of a function, with the lines of the calls', { timeout: 120_000 }, async () => {
    const result = await bed.call(runtime, 'call_hierarchy', { path: 'src/price.ts', symbol: 'priceOf' });
    expect(result.isError).toBe(false);
    expect(result.content).toMatch(/^function priceOf at src\/price\.ts:5:17 {2}export function priceOf/);
    expect(result.content).toContain('called by (2):\n');
    expect(result.content).toContain('function checkout  src/cart.ts:3:17  export function checkout(items: number[]): string[] {  (calls at lines 4, 5)');
    expect(result.content).toContain('function print  src/receipt.ts:3:17  export function print(total: number): void {  (call at line 4)');
    expect(result.content).toContain('calls (1):\nfunction format  src/price.ts:1:10  function format(value: number): string {  (call at line 6)');
    expect(result.meta).toMatchObject({ truncated: false, files: expect.arrayContaining(['src/cart.ts', 'src/receipt.ts', 'src/price.ts']) });
  });

  it('answers one direction from a call site, and says so when the target is not callable', { timeout: 60_000 }, async () => {
    const incoming = await bed.call(runtime, 'call_hierarchy', { path: 'src/receipt.ts', line: 4, symbol: 'priceOf', direction: 'incoming' });
    expect(incoming.content).toContain('called by (2):');
    expect(incoming.content).not.toContain('calls (');
    const notCallable = await bed.call(runtime, 'call_hierarchy', { path: 'src/cart.ts', line: 4, symbol: 'first' });
    expect(notCallable.content).toBe('src/cart.ts:4:9 (first) is not a function or method TypeScript can follow calls of');
  });
});
