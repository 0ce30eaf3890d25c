import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../helpers/cli-harness.js';
import { tempDir } from '../../helpers/temp-store.js';

/**
 * Compaction summaries with small-model routing, through the CLI: with config `smallModel` set and
 * no `summarizerModel`, the summary of a node's context is written by the small model (and priced
 * with its row); `--no-routing` keeps it on the run's model. The run's choice is in its log
 * (`routing/set`), where its workers read it.
 */
vi.setConfig({ testTimeout: 120_000 });

let temp: { dir: string; cleanup: () => void };
let workspace: string;
let env: NodeJS.ProcessEnv;
let big: string;
let small: string;

const PLAN = { goal: 'Survey the modules', nodes: [{ id: 'survey', kind: 'read', title: 'Survey the modules', reads: Array.from({ length: 14 }, (_, index) => `a${index}.ts`) }] };
const summary = (by: string) => ({ text: `## Primary request and intent\nSurvey the modules a0.ts to a13.ts (summary by the ${by} model).`, usage: { input: 9_000, output: 400 } });

beforeEach(() => {
  temp = tempDir('dagent-summary-routing-');
  workspace = join(temp.dir, 'workspace');
  mkdirSync(workspace, { recursive: true });
  for (let index = 0; index < 14; index += 1) writeFileSync(join(workspace, `a${index}.ts`), `export const a${index} = ${index};\n`);
  writeFileSync(join(workspace, 'plan.json'), JSON.stringify(PLAN));
  // Fourteen turns of padded reasoning over a 12K window: the node's context is summarized once.
  const pad = 'I looked at the module again and noted the exports and their callers carefully. '.repeat(60);
  const survey = [...Array.from({ length: 14 }, (_, index) => ({ text: pad, toolCalls: [{ name: 'read_file', args: { path: `a${index}.ts` } }] })), { text: 'Each module exports one constant.' }];
  big = join(temp.dir, 'big.json');
  small = join(temp.dir, 'small.json');
  writeFileSync(big, JSON.stringify({ contextWindow: 12_000, agents: { 'node:survey': survey, summarizer: [summary('big')] } }));
  writeFileSync(small, JSON.stringify({ agents: { summarizer: [summary('small')] } }));
  const prices = { [`scripted:${big}`]: { inputCacheMiss: 3, inputCacheHit: 0.3, output: 15 }, [`scripted:${small}`]: { inputCacheMiss: 0.3, inputCacheHit: 0.03, output: 1.5 } };
  mkdirSync(join(temp.dir, 'config', 'dagent'), { recursive: true });
  const compaction = { summaryReserve: 500, followUpReserve: 500, softWatermark: 1 };
  writeFileSync(join(temp.dir, 'config', 'dagent', 'config.json'), JSON.stringify({ model: `scripted:${big}`, smallModel: `scripted:${small}`, prices, compaction }));
  mkdirSync(join(temp.dir, 'home'));
  env = { HOME: join(temp.dir, 'home'), XDG_CONFIG_HOME: join(temp.dir, 'config'), PATH: process.env.PATH };
});
afterEach(() => temp.cleanup());

const cli = (args: string[]) => runCli(args, { cwd: workspace, env });

async function ranRun(...flags: string[]): Promise<string> {
  const planned = await cli(['plan', '--from', 'plan.json', '--json']);
  expect(planned.code, planned.stderr).toBe(0);
  const runId = (JSON.parse(planned.stdout) as { runId: string }).runId;
  expect((await cli(['approve', runId])).code).toBe(0);
  const run = await cli(['run', runId, '--no-dashboard', ...flags]);
  expect(run.code, run.stdout + run.stderr).toBe(0);
  return runId;
}

async function logged<T>(runId: string, type: string): Promise<T[]> {
  const out = (await cli(['log', runId, '--type', type, '--json'])).stdout.trim();
  return out === '' ? [] : out.split('\n').map((line) => JSON.parse(line) as T);
}

interface Summary {
  readonly nodeId: string;
  readonly payload: { readonly summary: string; readonly model: string; readonly costUsd: number };
}

describe('compaction summaries and small-model routing', () => {
  it('are written by the small model when smallModel is set and summarizerModel is not, and priced with its row', async () => {
    const runId = await ranRun();
    const [written] = await logged<Summary>(runId, 'compaction/summary');
    expect(written).toMatchObject({ nodeId: 'survey', payload: { model: small } });
    expect(written!.payload.summary).toContain('summary by the small model');
    // 9 000 in and 400 out at the small model's $0.30 and $1.50 a million.
    expect(written!.payload.costUsd).toBeCloseTo((9_000 * 0.3 + 400 * 1.5) / 1_000_000, 12);
    // The node itself stayed on the run's model: it is not marked simple.
    const answers = await logged<{ payload: { model: string } }>(runId, 'assistant/message');
    expect(answers.every((event) => event.payload.model === big)).toBe(true);
    expect((await logged<{ payload: unknown }>(runId, 'routing/set')).map((event) => event.payload)).toEqual([{ enabled: true, smallModel: `scripted:${small}` }]);
  });

  it('stay on the run model under --no-routing, which the log records for the run', async () => {
    const runId = await ranRun('--no-routing');
    const [written] = await logged<Summary>(runId, 'compaction/summary');
    expect(written).toMatchObject({ nodeId: 'survey', payload: { model: big } });
    expect(written!.payload.summary).toContain('summary by the big model');
    expect((await logged<{ payload: unknown }>(runId, 'routing/set')).map((event) => event.payload)).toEqual([{ enabled: false }]);
  });
});
