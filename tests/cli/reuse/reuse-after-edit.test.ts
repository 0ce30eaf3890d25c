import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAGENT_BIN, cliEnvironment } from '../../helpers/crash-process.js';
import { notifierRun } from '../../helpers/notifier-run.js';
import { tempDir } from '../../helpers/temp-store.js';

/**
 * The demo's finished run, its plan edited: only the last model node's instructions change. Running
 * the new version makes model calls for that node alone; the test node after it, whose inputs come
 * out the same, keeps its result, and `show` and the log say so.
 */
const run = promisify(execFile);

interface LoggedEvent {
  readonly seq: number;
  readonly type: string;
  readonly nodeId: string | null;
  readonly payload: Record<string, unknown>;
}

let dir: { dir: string; cleanup: () => void };
let workspace: string;
let runId: string;
let before: LoggedEvent[];
let after: LoggedEvent[];
let runOutput: string;

async function dagent(...args: string[]): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, [DAGENT_BIN, '-w', workspace, ...args], { cwd: dir.dir, env: { ...cliEnvironment(), HOME: dir.dir }, timeout: 120_000 });
}

async function events(): Promise<LoggedEvent[]> {
  return (await dagent('--json', 'log', runId)).stdout.trim().split('\n').map((line) => JSON.parse(line) as LoggedEvent);
}

function requestsPerNode(log: readonly LoggedEvent[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const event of log) if (event.type === 'request/header' && event.nodeId !== null) counts[event.nodeId] = (counts[event.nodeId] ?? 0) + 1;
  return counts;
}

beforeAll(async () => {
  dir = tempDir('dagent-reuse-');
  ({ workspace, runId } = await notifierRun(dir.dir, { HOME: dir.dir }));
  before = await events();
  const planFile = join(dir.dir, 'plan.json');
  await dagent('export', runId, planFile);
  const plan = JSON.parse(readFileSync(planFile, 'utf8')) as { nodes: { id: string; instructions: string }[] };
  const webhook = plan.nodes.find((node) => node.id === 'edit-webhook')!;
  webhook.instructions = `${webhook.instructions} Keep the class's doc comment as it is.`;
  writeFileSync(planFile, JSON.stringify(plan, null, 2));
  await dagent('import', runId, planFile);
  await dagent('approve', runId);
  runOutput = (await dagent('run', runId, '--no-dashboard')).stdout;
  after = await events();
}, 240_000);

afterAll(() => dir?.cleanup());

describe('running an edited plan', () => {
  it('makes model calls for the edited node alone', () => {
    const callsBefore = requestsPerNode(before);
    const callsAfter = requestsPerNode(after);
    expect(callsAfter['edit-webhook']).toBe(2 * callsBefore['edit-webhook']!);
    for (const node of ['edit-channel', 'edit-email', 'edit-sms', 'edit-digest', 'planner']) expect(callsAfter[node], node).toBe(callsBefore[node]);
    expect(runOutput).toMatch(/run r-[0-9a-f]+ succeeded · plan v3 · 6\/6 nodes succeeded/);
  });

  it('records why a node ran again and why another kept its result, and starts nothing else', () => {
    const fresh = after.slice(before.length);
    const missed = fresh.filter((event) => event.type === 'reuse/missed').map((event) => [event.nodeId, event.payload.reason]);
    expect(missed).toEqual([['edit-webhook', 'its specification changed']]);
    const resets = fresh.filter((event) => event.type === 'node/reset').map((event) => [event.nodeId, event.payload.reason]);
    expect(resets).toEqual([['edit-webhook', 'plan v3: its specification changed'], ['test', 'plan v3: edit-webhook runs again']]);
    expect(fresh.filter((event) => event.type === 'node/reused').map((event) => event.nodeId)).toEqual(['test']);
    expect(fresh.filter((event) => event.type === 'node/started').map((event) => event.nodeId)).toEqual(['edit-webhook', 'test']);
    expect(runOutput).toContain('♻ test reused: nothing it depends on changed');
  });

  it('counts what reuse saved in status, as text and as JSON', async () => {
    const status = JSON.parse((await dagent('--json', 'status', runId)).stdout) as { nodes: { id: string; reused?: boolean }[]; totals: { saved: { reusedNodes: number } } };
    expect(status.totals.saved.reusedNodes).toBe(1);
    expect(status.nodes.find((node) => node.id === 'test')?.reused).toBe(true);
    const text = (await dagent('status', runId)).stdout;
    expect(text).toMatch(/test +reused/);
    expect(text).toContain('saved: 1 node reused · 0 model calls');
  });

  it('marks the reused node in show, and --no-reuse runs the changed nodes and those after them', async () => {
    expect((await dagent('show', runId)).stdout).toContain('reused: test (kept from an earlier plan version: nothing they depend on changed)');
    expect(JSON.parse((await dagent('--json', 'show', runId)).stdout)).toMatchObject({ reused: ['test'] });
    const planFile = join(dir.dir, 'plan.json');
    const plan = JSON.parse(readFileSync(planFile, 'utf8')) as { nodes: { id: string; instructions: string }[] };
    plan.nodes.find((node) => node.id === 'edit-webhook')!.instructions += ' Nothing else.';
    writeFileSync(planFile, JSON.stringify(plan, null, 2));
    await dagent('import', runId, planFile);
    await dagent('approve', runId);
    const seen = (await events()).length;
    await dagent('run', runId, '--no-dashboard', '--no-reuse');
    const fresh = (await events()).slice(seen);
    expect(fresh.filter((event) => event.type === 'reuse/missed').map((event) => [event.nodeId, event.payload.reason])).toEqual([
      ['edit-webhook', 'reuse is off (--no-reuse)'],
      ['test', 'reuse is off (--no-reuse)'],
    ]);
    expect(fresh.filter((event) => event.type === 'node/reused')).toEqual([]);
    // A whole run, each node in its own worktree (the default in a git repository).
  }, 120_000);
});
