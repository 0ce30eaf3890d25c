import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLanguageService, type WorkspaceLanguageService } from '../../../planners/index.js';
import { LocalToolRuntime, createSymbolTools, editFileTool, type Tool } from '../../../tools/index.js';
import { openToolTestBed, type ToolTestBed } from '../../helpers/tools-test-bed.js';

/** A two-file project: `price.ts` exports a typed function, `cart.ts` uses it. */
function writeFixture(workspace: string): void {
  mkdirSync(join(workspace, 'src'));
  writeFileSync(join(workspace, 'tsconfig.json'), JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true }, include: ['src'] }));
  writeFileSync(join(workspace, 'package.json'), '{ "name": "cart", "private": true, "type": "module" }\n');
  writeFileSync(join(workspace, 'src/price.ts'), 'export function priceOf(cents: number): string {\n  return `$${(cents / 100).toFixed(2)}`;\n}\n');
  writeFileSync(join(workspace, 'src/cart.ts'), "import { priceOf } from './price.js';\n\nexport const total: string = priceOf(1250);\n");
}

describe('the diagnostics tool on a small TypeScript project', () => {
  let bed: ToolTestBed;
  let service: WorkspaceLanguageService;
  let runtime: LocalToolRuntime;
  beforeEach(async () => {
    bed = await openToolTestBed();
    writeFixture(bed.workspace);
    service = createLanguageService({ workspace: bed.workspace });
    runtime = new LocalToolRuntime({ approval: 'auto', tools: [...createSymbolTools(async () => service), editFileTool as Tool] });
  });
  afterEach(async () => {
    service.dispose();
    await bed.cleanup();
  });

  it('reports a type error an edit introduces, with file, line and message, without asking', { timeout: 120_000 }, async () => {
    const clean = await bed.call(runtime, 'diagnostics', { paths: ['src/cart.ts'] });
    expect(clean.content).toBe('no errors or warnings in src/cart.ts');

    const edit = await bed.call(runtime, 'edit_file', { path: 'src/price.ts', old_string: 'cents: number): string', new_string: 'cents: number): number' });
    expect(edit.isError).toBe(false);

    const broken = await bed.call(runtime, 'diagnostics', { paths: ['src/price.ts', 'src/cart.ts'] });
    expect(broken.isError).toBe(false);
    expect(broken.content).toMatch(/^2 errors, 0 warnings in src\/price\.ts, src\/cart\.ts:\n/);
    expect(broken.content).toContain("src/cart.ts:3:14 error TS2322: Type 'number' is not assignable to type 'string'.\n    export const total: string = priceOf(1250);");
    expect(broken.content).toContain("src/price.ts:2:3 error TS2322: Type 'string' is not assignable to type 'number'.");
    expect(broken.meta).toMatchObject({ errors: 2, warnings: 0, files: ['src/cart.ts', 'src/price.ts'], truncated: false });
    expect((await bed.events()).some((event) => event.type.startsWith('approval/') && JSON.stringify(event.payload).includes('diagnostics'))).toBe(false);
  });

  it('checks the whole project when no paths are given', { timeout: 120_000 }, async () => {
    writeFileSync(join(bed.workspace, 'src/broken.ts'), 'export const n: number = "one";\nexport const m = ;\n');
    const result = await bed.call(runtime, 'diagnostics', {});
    expect(result.content).toMatch(/^2 errors, 0 warnings in the project:\n/);
    expect(result.content).toContain('src/broken.ts:1:14 error TS2322:');
    expect(result.content).toContain('src/broken.ts:2:18 error TS1109: Expression expected.');
    expect(result.content).not.toContain('src/cart.ts');
  });

  it('refuses a file outside the workspace with an answer the model can read', async () => {
    const result = await bed.call(runtime, 'diagnostics', { paths: ['../outside/x.ts'] });
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/^refused: path "\.\.\/outside\/x\.ts" is outside the workspace /);
  });
});
