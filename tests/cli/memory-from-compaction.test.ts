import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { extractKeyFacts } from '../../engine/index.js';
import { DAGENT_BIN } from '../helpers/crash-process.js';
import { tempDir } from '../helpers/temp-store.js';

vi.setConfig({ testTimeout: 90_000 });

let temp: { dir: string; cleanup: () => void };
let workspace: string;
let home: string;

const SUMMARY = [
  '## Primary request and intent',
  'Survey the modules.',
  '## Key facts for later',
  '- decision: The project keeps one export per module.',
  '- convention: Tests live beside the code as *.test.ts.',
  '- lesson: Run npm test with --run so vitest does not watch.',
  '- lesson: run npm test with   --run so vitest does not watch.',
].join('\n');

beforeEach(() => {
  temp = tempDir('dagent-memory-compaction-');
  workspace = join(temp.dir, 'workspace');
  home = join(temp.dir, 'home');
  mkdirSync(join(workspace, '.dagent'), { recursive: true });
  mkdirSync(home);
  for (let index = 0; index < 14; index += 1) writeFileSync(join(workspace, `a${index}.ts`), `export const a${index} = ${index};\n`);
  // Fourteen turns of padded reasoning over a 12K window compact once, by summary (the reads are too small to prune).
  const pad = 'I looked at the module again and noted the exports and their callers carefully. '.repeat(30);
  const react = [...Array.from({ length: 14 }, (_, index) => ({ text: pad, toolCalls: [{ name: 'read_file', args: { path: `a${index}.ts` } }] })), { text: 'Done.' }];
  writeFileSync(join(temp.dir, 'model.json'), JSON.stringify({ contextWindow: 12_000, agents: { react, summarizer: [{ text: SUMMARY }, { text: SUMMARY }] } }));
});
afterEach(() => temp.cleanup());

function dagent(args: readonly string[]) {
  return spawnSync(process.execPath, [DAGENT_BIN, ...args], { cwd: workspace, env: { PATH: process.env.PATH, HOME: home, NO_COLOR: '1' }, encoding: 'utf8' });
}

function runWith(compaction: Record<string, unknown>): string {
  writeFileSync(join(workspace, '.dagent', 'config.json'), JSON.stringify({ compaction: { summaryReserve: 500, followUpReserve: 500, softWatermark: 1, ...compaction } }));
  const ran = dagent(['react', 'survey the modules', '-m', `scripted:${join(temp.dir, 'model.json')}`, '--approval', 'auto']);
  expect(ran.status, ran.stderr).toBe(0);
  return /run (r-[0-9a-f]+)/.exec(ran.stdout + ran.stderr)![1]!;
}

describe('compaction proposes key facts to long-term memory, through the built binary', () => {
  it('stores the summary\'s decisions, conventions and lessons once each as project memories, and memory list says where each came from', () => {
    const runId = runWith({});
    const compaction = dagent(['--json', 'log', runId, '--type', 'compaction/end']).stdout.trim().split('\n').map((line) => JSON.parse(line) as { payload: { compactionId: string; outcome: string } });
    expect(compaction.map((event) => event.payload.outcome)).toContain('committed');
    const compactionId = compaction.find((event) => event.payload.outcome === 'committed')!.payload.compactionId;

    const list = dagent(['memory', 'list']);
    expect(list.stdout).toBe(
      [
        `- [project decision #1] The project keeps one export per module.  (from compaction ${compactionId} · run ${runId} · node react)`,
        `- [project convention #2] Tests live beside the code as *.test.ts.  (from compaction ${compactionId} · run ${runId} · node react)`,
        `- [project lesson #3] Run npm test with --run so vitest does not watch.  (from compaction ${compactionId} · run ${runId} · node react)`,
        '',
      ].join('\n'),
    );
    const added = dagent(['--json', 'log', runId, '--type', 'memory/added']).stdout.trim().split('\n').map((line) => JSON.parse(line) as { payload: Record<string, unknown> });
    expect(added.map((event) => event.payload)).toEqual([
      expect.objectContaining({ kind: 'decision', scope: 'project', origin: 'compaction', compactionId }),
      expect.objectContaining({ kind: 'convention', origin: 'compaction' }),
      expect.objectContaining({ kind: 'lesson', origin: 'compaction' }),
    ]);
    const json = JSON.parse(dagent(['--json', 'memory', 'list']).stdout) as { memories: { source?: unknown }[] };
    expect(json.memories[0]!.source).toEqual({ kind: 'compaction', runId, nodeId: 'react', compactionId });
  });

  it('keeps memory untouched with compaction.rememberKeyFacts false', () => {
    const runId = runWith({ rememberKeyFacts: false });
    expect(dagent(['--json', 'log', runId, '--type', 'compaction/end']).stdout).toContain('"committed"');
    expect(dagent(['memory', 'list']).stdout).toMatch(/^no memories yet/);
  });

  it('a memory added by hand says so', () => {
    dagent(['memory', 'add', 'Deploys go through the staging branch']);
    expect(dagent(['memory', 'list']).stdout).toBe('- [project fact #1] Deploys go through the staging branch  (added with dagent memory add)\n');
  });
});

describe('extracting key facts from a summary', () => {
  it.each([
    { name: 'no section', summary: '## Primary request and intent\n- decision: not here', facts: [] },
    { name: 'other bullets are ignored and the next heading ends the section', summary: '## Key facts for later\n- an aside\n* Lessons: keep PRs small\n## Later\n- decision: not this one', facts: [{ kind: 'lesson', content: 'keep PRs small' }] },
  ])('$name', ({ summary, facts }) => {
    expect(extractKeyFacts(summary)).toEqual(facts);
  });
});
