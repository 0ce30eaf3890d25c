import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DAGENT_BIN } from '../../helpers/crash-process.js';
import { tempDir } from '../../helpers/temp-store.js';

/**
 * Compaction summaries under a budget, through the binary. One node reads fourteen files with
 * padded reasoning over a 12K window, so its context is summarized once, by config
 * `summarizerModel`, a model priced a hundred times the node's. The summary's cost counts in the
 * spend `status` shows; a summary that would cross the cap is not asked for: the run pauses, says
 * it was a summary, and goes on when resumed with a higher cap.
 */
vi.setConfig({ testTimeout: 240_000 });
const exec = promisify(execFile);

let temp: { dir: string; cleanup: () => void };
let workspace: string;
let env: NodeJS.ProcessEnv;
let nodeModel: string;

const SUMMARY = '## Primary request and intent\nSurvey the modules a0.ts to a13.ts.\n## Key facts for later\n- decision: one export per module.';
const PLAN = { goal: 'Survey the modules', nodes: [{ id: 'survey', kind: 'read', title: 'Survey the modules', reads: Array.from({ length: 14 }, (_, index) => `a${index}.ts`) }] };

beforeEach(() => {
  temp = tempDir('dagent-summary-budget-');
  workspace = join(temp.dir, 'workspace');
  mkdirSync(workspace, { recursive: true });
  for (let index = 0; index < 14; index += 1) writeFileSync(join(workspace, `a${index}.ts`), `export const a${index} = ${index};\n`);
  writeFileSync(join(workspace, 'plan.json'), JSON.stringify(PLAN));
  const pad = 'I looked at the module again and noted the exports and their callers carefully. '.repeat(60);
  const survey = [...Array.from({ length: 14 }, (_, index) => ({ text: pad, toolCalls: [{ name: 'read_file', args: { path: `a${index}.ts` } }] })), { text: 'Each module exports one constant.' }];
  nodeModel = join(temp.dir, 'node.json');
  const summarizer = join(temp.dir, 'summarizer.json');
  writeFileSync(nodeModel, JSON.stringify({ contextWindow: 12_000, agents: { 'node:survey': survey } }));
  writeFileSync(summarizer, JSON.stringify({ agents: { summarizer: [{ text: SUMMARY, usage: { input: 9_000, output: 400 } }] } }));
  const prices = { [`scripted:${nodeModel}`]: { inputCacheMiss: 3, inputCacheHit: 0.3, output: 15 }, [`scripted:${summarizer}`]: { inputCacheMiss: 300, inputCacheHit: 30, output: 1_500 } };
  mkdirSync(join(temp.dir, 'config', 'dagent'), { recursive: true });
  const compaction = { summaryReserve: 500, followUpReserve: 500, softWatermark: 1 };
  writeFileSync(join(temp.dir, 'config', 'dagent', 'config.json'), JSON.stringify({ model: `scripted:${nodeModel}`, summarizerModel: `scripted:${summarizer}`, prices, compaction }));
  mkdirSync(join(temp.dir, 'home'));
  env = { PATH: process.env.PATH, NO_COLOR: '1', HOME: join(temp.dir, 'home'), XDG_CONFIG_HOME: join(temp.dir, 'config') };
});
afterEach(() => temp.cleanup());

async function dagent(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const result = await exec(process.execPath, [DAGENT_BIN, '-w', workspace, '--approval', 'auto', ...args], { cwd: workspace, env, timeout: 200_000 });
    return { code: 0, stdout: result.stdout, stderr: result.stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : 1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

async function approvedRun(): Promise<string> {
  const planned = await dagent('--json', 'plan', '--from', 'plan.json');
  expect(planned.code, planned.stderr).toBe(0);
  const runId = (JSON.parse(planned.stdout) as { runId: string }).runId;
  expect((await dagent('approve', runId)).code).toBe(0);
  return runId;
}

async function events<T>(runId: string, type: string): Promise<T[]> {
  const out = (await dagent('--json', 'log', runId, '--type', type)).stdout.trim();
  return out === '' ? [] : out.split('\n').map((line) => JSON.parse(line) as T);
}

interface Status {
  readonly run: { readonly status: string };
  readonly totals: { readonly costUsd: number };
  readonly budget?: { readonly maxCostUsd: number; readonly spentUsd: number };
}

async function spent(runId: string): Promise<{ answers: number; summaries: number; summary?: { model: string; costUsd: number } }> {
  const answers = await events<{ payload: { costUsd?: number } }>(runId, 'assistant/message');
  const summaries = await events<{ payload: { model: string; costUsd: number } }>(runId, 'compaction/summary');
  const sum = (costs: number[]) => costs.reduce((total, cost) => total + cost, 0);
  return { answers: sum(answers.map((event) => event.payload.costUsd ?? 0)), summaries: sum(summaries.map((event) => event.payload.costUsd)), ...(summaries[0] === undefined ? {} : { summary: summaries[0].payload }) };
}

describe('compaction summaries under a budget', () => {
  it("count in the spend: the summary's cost, priced with the summarizer's model, is in status and its budget line", async () => {
    const runId = await approvedRun();
    const run = await dagent('run', runId, '--no-dashboard', '--max-cost', '20');
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain(`run ${runId} succeeded`);

    const spend = await spent(runId);
    // 9 000 in and 400 out at $300 and $1 500 a million.
    expect(spend.summary).toMatchObject({ model: expect.stringContaining('summarizer.json') as string });
    expect(spend.summary!.costUsd).toBeCloseTo(2.7 + 0.6, 9);
    const status = JSON.parse((await dagent('--json', 'status', runId)).stdout) as Status;
    expect(status.totals.costUsd).toBeCloseTo(spend.answers + spend.summaries, 9);
    expect(status.budget).toMatchObject({ maxCostUsd: 20 });
    expect(status.budget!.spentUsd).toBeCloseTo(spend.answers + 3.3, 9);
    expect((await dagent('status', runId)).stdout).toMatch(/^budget: \$3\.\d\d of \$20\.00 \(\d+%\)$/m);
  });

  it('refuses a summary that would cross the cap before it is asked for: the run pauses and says so, and resumes with a higher cap', async () => {
    const runId = await approvedRun();
    const paused = await dagent('run', runId, '--no-dashboard', '--max-cost', '1');
    expect(paused.code, paused.stdout + paused.stderr).toBe(0);
    expect(paused.stdout).toMatch(new RegExp(`run ${runId} paused: the run's budget is reached: spent \\$0\\.\\d{4} of \\$1\\.00; the next model call \\(a summary compacting node survey's context, about \\$\\d\\.\\d\\d\\) would cross it; resume with a higher cap: dagent resume ${runId} --max-cost \\S+\\n`));
    const reached = await events<{ nodeId: string; payload: { call?: string; cap: number } }>(runId, 'budget/reached');
    expect(reached).toEqual([expect.objectContaining({ nodeId: 'survey', payload: expect.objectContaining({ call: 'summary', cap: 1 }) as unknown })]);
    expect(await events(runId, 'compaction/summary')).toEqual([]);
    const pausedStatus = JSON.parse((await dagent('--json', 'status', runId)).stdout) as Status;
    expect(pausedStatus.run.status).toBe('paused');
    expect(pausedStatus.budget!.spentUsd).toBeLessThanOrEqual(1);

    const resumed = await dagent('resume', runId, '--no-dashboard', '--max-cost', '20');
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain(`run ${runId} succeeded`);
    const spend = await spent(runId);
    expect(spend.summaries).toBeCloseTo(3.3, 9);
    const status = JSON.parse((await dagent('--json', 'status', runId)).stdout) as Status;
    expect(status.budget!.spentUsd).toBeCloseTo(spend.answers + spend.summaries, 9);
  });
});
