import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventLog, Session, SystemPrompt, createRun, runAgent, type Store } from '../../../engine/index.js';
import { createScriptedProvider } from '../../../engine/model/scripted-provider.js';
import { createLanguageService, type WorkspaceLanguageService } from '../../../planners/index.js';
import { LocalToolRuntime, SYMBOL_TOOL_NAMES, createScriptedApprover, createSymbolTools, type SymbolService } from '../../../tools/index.js';
import { openTempStore, tempDir } from '../../helpers/temp-store.js';
import { openToolTestBed } from '../../helpers/tools-test-bed.js';

const MEMBERS_REPO = fileURLToPath(new URL('../../fixtures/repos/members', import.meta.url));

let store: Store;
let cleanupStore: () => Promise<void>;
let workspace: string;
let cleanupDir: () => void;
let service: WorkspaceLanguageService | undefined;
let created = 0;

beforeAll(async () => {
  ({ store, cleanup: cleanupStore } = await openTempStore());
  ({ dir: workspace, cleanup: cleanupDir } = tempDir('dagent-symbols-'));
  cpSync(MEMBERS_REPO, workspace, { recursive: true });
});
afterAll(async () => {
  service?.dispose();
  await cleanupStore();
  cleanupDir();
});

describe('symbol tools on a fixture repository', () => {
  it('a scripted node finds a definition, its references, symbols by name and a type, without asking', { timeout: 180_000 }, async () => {
    const tools = new LocalToolRuntime({
      tools: createSymbolTools(async () => {
        if (service === undefined) {
          created += 1;
          service = createLanguageService({ workspace });
        }
        return service;
      }),
    });
    const runId = (await createRun(store.db, { task: 'explore', workspace, mode: 'react' })).id;
    const session = await Session.open(new EventLog(store.db, runId), 'explore');
    const approver = createScriptedApprover([]);
    const provider = createScriptedProvider({
      script: {
        agents: {
          'node:explore': [
            { toolCalls: [{ name: 'find_definition', args: { path: 'src/report.ts', line: 4, symbol: 'total' } }] },
            { toolCalls: [{ name: 'find_references', args: { path: 'src/invoice.ts', symbol: 'Invoice.total' } }, { name: 'hover', args: { path: 'src/invoice.ts', symbol: 'Invoice.total' } }] },
            { toolCalls: [{ name: 'workspace_symbols', args: { query: 'Invoice' } }, { name: 'find_definition', args: { path: 'src/invoice.ts', symbol: 'Receipt' } }] },
            { text: 'Invoice.total is defined in src/invoice.ts and used in four files.' },
          ],
        },
      },
    });
    const outcome = await runAgent({
      agent: 'node:explore',
      session,
      prompt: new SystemPrompt().addSection({ id: 'identity', text: 'You read code.' }).addTools('all', () => tools.specs([...SYMBOL_TOOL_NAMES])),
      provider,
      model: 'scripted',
      tools,
      toolContext: { runId, nodeId: 'explore', workspace, approver, allowedTools: [...SYMBOL_TOOL_NAMES] },
      instruction: 'Where is Invoice.total used?',
      signal: new AbortController().signal,
    });
    expect(outcome.reason).toBe('done');
    expect(approver.requests).toEqual([]);
    expect(created).toBe(1);

    const results = (await session.log.read({ types: ['tool/result'] })).map((event) => event.payload as { name: string; content: string; isError: boolean; meta: Record<string, unknown> });
    const named = (name: string) => results.filter((result) => result.name === name);
    const [definition, unknown] = named('find_definition');
    const [references] = named('find_references');
    const [hover] = named('hover');
    const [symbols] = named('workspace_symbols');
    expect(definition!.content).toBe('definition of src/report.ts:4:31 (total):\nsrc/invoice.ts:12:3  total(): number {');

    expect(references!.content).toMatch(/^\d+ references to src\/invoice\.ts#Invoice\.total in \d+ files:\n/);
    expect(references!.content).toContain('src/invoice.ts:12:3 [def]  total(): number {');
    expect(references!.content).toContain('src/report.ts:4:');
    expect(references!.content).toContain('src/through-interface.ts:');
    expect(references!.meta).toMatchObject({ truncated: false, files: expect.arrayContaining(['src/invoice.ts', 'src/report.ts', 'src/through-interface.ts']) });

    expect(hover!.content).toMatch(/^\(method\) Invoice\.total\(\): number\n\nat src\/invoice\.ts:12:3 {2}total\(\): number \{$/);

    expect(symbols!.content).toContain('class Invoice  src/invoice.ts:8:');
    expect(symbols!.content).toContain('class DiscountedInvoice  src/discounted.ts:3:');

    expect(unknown!.isError).toBe(true);
    expect(unknown!.content).toMatch(/^error: .*Receipt/);
  });

  it('follows a name a file imports to the file that declares it: through a barrel\'s re-exports, a renamed import and a member', { timeout: 180_000 }, async () => {
    const bed = await openToolTestBed();
    const languageService = createLanguageService({ workspace: bed.workspace });
    try {
      mkdirSync(join(bed.workspace, 'src'));
      writeFileSync(join(bed.workspace, 'src', 'shape.ts'), 'export interface Shape {\n  area(): number;\n}\nexport class Square implements Shape {\n  area(): number { return 4; }\n}\n');
      writeFileSync(join(bed.workspace, 'src', 'circle.ts'), "import { Shape } from './shape';\nexport class Circle implements Shape {\n  area(): number { return 3; }\n}\n");
      writeFileSync(join(bed.workspace, 'src', 'index.ts'), "export { Shape } from './shape';\nexport * from './circle';\n");
      writeFileSync(join(bed.workspace, 'src', 'total.ts'), "import { Shape, Circle } from './index';\nimport { Square as Box } from './shape';\nexport const all: Shape[] = [new Box(), new Circle()];\n");
      const runtime = new LocalToolRuntime({ tools: createSymbolTools(async () => languageService) });
      const definition = async (path: string, symbol: string): Promise<string> => (await bed.call(runtime, 'find_definition', { path, symbol })).content;

      expect(await definition('src/circle.ts', 'Shape')).toBe('definition of src/circle.ts#Shape:\nsrc/shape.ts:1:18  export interface Shape {');
      expect(await definition('src/total.ts', 'Shape')).toBe('definition of src/total.ts#Shape:\nsrc/shape.ts:1:18  export interface Shape {');
      expect(await definition('src/total.ts', 'Circle')).toBe('definition of src/total.ts#Circle:\nsrc/circle.ts:2:14  export class Circle implements Shape {');
      expect(await definition('src/index.ts', 'Circle')).toBe('definition of src/index.ts#Circle:\nsrc/circle.ts:2:14  export class Circle implements Shape {');
      expect(await definition('src/total.ts', 'Box')).toBe('definition of src/total.ts#Box:\nsrc/shape.ts:4:14  export class Square implements Shape {');
      expect(await definition('src/total.ts', 'Box.area')).toBe('definition of src/total.ts#Box.area:\nsrc/shape.ts:5:3  area(): number { return 4; }');
      // A name the file neither declares nor imports is still refused, with the names it has.
      expect(await definition('src/total.ts', 'Triangle')).toMatch(/^error: src\/total\.ts has no "Triangle" \(known: .*Box, Circle, Shape/);
    } finally {
      languageService.dispose();
      await bed.cleanup();
    }
  });

  it('caps a long answer with a note and meta.truncated', async () => {
    const many: SymbolService = {
      definition: async () => [],
      references: async () => Array.from({ length: 150 }, (_, index) => ({ file: `src/f${index}.ts`, line: 1, column: 1, text: 'use()', isDefinition: false, isWrite: false })),
      workspaceSymbols: async () => [],
      hover: async () => undefined,
      diagnostics: async () => [],
      callHierarchy: async () => undefined,
    };
    const bed = await openToolTestBed();
    try {
      const runtime = new LocalToolRuntime({ tools: createSymbolTools(async () => many) });
      writeFileSync(join(bed.workspace, 'a.ts'), 'export const use = () => 1;\n');
      const result = await bed.call(runtime, 'find_references', { path: 'a.ts', symbol: 'use' });
      expect(result.content).toContain('(showing 100 of 150 references; narrow the question to see the rest)');
      expect(result.content.split('\n')).toHaveLength(102);
      expect(result.meta).toMatchObject({ truncated: true, count: 150 });
    } finally {
      await bed.cleanup();
    }
  });
});
