import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli-harness.js';
import { tempDir } from '../../helpers/temp-store.js';

/**
 * Small-model routing through the CLI, with two scripted models: the run's (`big.json`) and the
 * small one (`small.json`, config `smallModel`). A node the plan marks `simple` goes to the small
 * model, the others stay on the run's; `show` says which model each node will use and prices it
 * with that model; `--no-routing` sends everything to the run's model.
 */

let temp: { dir: string; cleanup: () => void };
let workspace: string;
let env: NodeJS.ProcessEnv;
let big: string;
let small: string;

const PLAN = {
  goal: 'Summarize a, then change b',
  nodes: [
    { id: 'read-a', kind: 'read', title: 'Summarize a', reads: ['src/a.txt'], simple: true },
    { id: 'edit-b', kind: 'edit', title: 'Change b', reads: ['src/b.txt'], writes: ['src/b.txt'], dependsOn: ['read-a'] },
  ],
};

function answer(text: string): unknown {
  return { text };
}

beforeEach(() => {
  temp = tempDir('dagent-routing-');
  workspace = join(temp.dir, 'workspace');
  mkdirSync(join(workspace, 'src'), { recursive: true });
  writeFileSync(join(workspace, 'src', 'a.txt'), 'alpha\n');
  writeFileSync(join(workspace, 'src', 'b.txt'), 'old\n');
  writeFileSync(join(workspace, 'plan.json'), JSON.stringify(PLAN));
  big = join(temp.dir, 'big.json');
  small = join(temp.dir, 'small.json');
  const editB = [{ toolCalls: [{ name: 'write_file', args: { path: 'src/b.txt', content: 'new\n' } }] }, answer('Changed b.')];
  writeFileSync(big, JSON.stringify({ agents: { 'node:read-a': [answer('a says alpha (big model).')], 'node:edit-b': editB } }));
  writeFileSync(small, JSON.stringify({ agents: { 'node:read-a': [answer('a says alpha (small model).')] } }));
  mkdirSync(join(temp.dir, 'config', 'dagent'), { recursive: true });
  // The small model is priced at a tenth of the run's: the estimate of a routed node shows it.
  const prices = { [`scripted:${big}`]: { inputCacheMiss: 3, inputCacheHit: 0.3, output: 15 }, [`scripted:${small}`]: { inputCacheMiss: 0.3, inputCacheHit: 0.03, output: 1.5 } };
  writeFileSync(join(temp.dir, 'config', 'dagent', 'config.json'), JSON.stringify({ model: `scripted:${big}`, smallModel: `scripted:${small}`, prices }));
  mkdirSync(join(temp.dir, 'home'));
  env = { HOME: join(temp.dir, 'home'), XDG_CONFIG_HOME: join(temp.dir, 'config'), PATH: process.env.PATH };
});

afterEach(() => temp.cleanup());

const cli = (args: string[]) => runCli(args, { cwd: workspace, env });

async function plannedRun(): Promise<string> {
  const planned = await cli(['plan', '--from', 'plan.json']);
  expect(planned.code, planned.stderr).toBe(0);
  const runId = /run (\S+) /.exec(planned.stdout)![1]!;
  expect((await cli(['approve', runId])).code).toBe(0);
  return runId;
}

interface StatusNode {
  readonly id: string;
  readonly model?: string;
  readonly routedTo?: string;
}

async function nodeModels(runId: string): Promise<Record<string, StatusNode>> {
  const status = JSON.parse((await cli(['status', runId, '--json'])).stdout) as { nodes: StatusNode[] };
  return Object.fromEntries(status.nodes.map((node) => [node.id, node]));
}

describe('small-model routing', () => {
  it('show names the model each node will use, and prices each estimate with it', async () => {
    const runId = await plannedRun();
    const shown = await cli(['show', runId]);
    expect(shown.stdout).toContain(`  model   scripted:${small} (small model: the plan marks it simple)`);
    expect(shown.stdout).toContain(`  model   scripted:${big} (the run's model)`);
    const json = JSON.parse((await cli(['show', runId, '--json'])).stdout) as { estimate: { nodes: { nodeId: string; model?: string; routed?: boolean; inputTokens: number; outputTokens: number; costUsd: number }[] } };
    const [readA, editB] = ['read-a', 'edit-b'].map((id) => json.estimate.nodes.find((node) => node.nodeId === id)!);
    expect(readA).toMatchObject({ model: `scripted:${small}`, routed: true });
    expect(editB!.model).toBe(`scripted:${big}`);
    expect(editB!.routed).toBeUndefined();
    // Priced with the small model's row: a tenth of what the same tokens cost on the run's model.
    expect(readA!.costUsd).toBeCloseTo((readA!.inputTokens * 0.3 + readA!.outputTokens * 1.5) / 1_000_000, 9);
    expect(editB!.costUsd).toBeCloseTo((editB!.inputTokens * 3 + editB!.outputTokens * 15) / 1_000_000, 9);

    const unrouted = JSON.parse((await cli(['show', runId, '--json', '--no-routing'])).stdout) as typeof json;
    expect(unrouted.estimate.nodes.find((node) => node.nodeId === 'read-a')).toMatchObject({ model: `scripted:${big}` });
  });

  it('runs a node marked simple on the small model and the others on the run model, and the log, status and inspect say so', async () => {
    const runId = await plannedRun();
    const run = await cli(['run', runId, '--no-dashboard']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(readFileSync(join(workspace, 'src', 'b.txt'), 'utf8')).toBe('new\n');

    const routed = (await cli(['log', runId, '--type', 'model/routed', '--json'])).stdout.trim().split('\n').map((line) => JSON.parse(line) as { nodeId: string; payload: unknown });
    expect(routed).toEqual([expect.objectContaining({ nodeId: 'read-a', payload: { model: `scripted:${small}`, instead: `scripted:${big}`, reason: 'simple' } })]);
    const answers = (await cli(['log', runId, '--type', 'assistant/message', '--json'])).stdout.trim().split('\n').map((line) => JSON.parse(line) as { nodeId: string; payload: { content: string; model: string } });
    expect(answers.filter((event) => event.nodeId === 'read-a').map((event) => event.payload)).toEqual([expect.objectContaining({ content: 'a says alpha (small model).', model: small })]);
    expect(answers.filter((event) => event.nodeId === 'edit-b').every((event) => event.payload.model === big)).toBe(true);

    const models = await nodeModels(runId);
    expect(models['read-a']).toMatchObject({ model: `scripted:${small}`, routedTo: `scripted:${small}` });
    expect(models['edit-b']).toMatchObject({ model: `scripted:${big}` });
    expect(models['edit-b']!.routedTo).toBeUndefined();
    const statusText = (await cli(['status', runId])).stdout;
    expect(statusText).toMatch(/^read-a\s.*scripted:small\.json \(small\)$/m);
    expect(statusText).toMatch(/^edit-b\s.*scripted:big\.json$/m);
    expect((await cli(['inspect', runId, '--node', 'read-a'])).stdout).toMatch(/^scripted:\S*small\.json · agent node:read-a/m);
    expect((await cli(['inspect', runId, '--node', 'edit-b'])).stdout).toMatch(/^scripted:\S*big\.json · agent node:edit-b/m);
  });

  it('--no-routing runs every node on the run model', async () => {
    const runId = await plannedRun();
    const run = await cli(['run', runId, '--no-dashboard', '--no-routing']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect((await cli(['log', runId, '--type', 'model/routed', '--json'])).stdout.trim()).toBe('');
    const models = await nodeModels(runId);
    expect(models['read-a']).toMatchObject({ model: `scripted:${big}` });
    expect(models['read-a']!.routedTo).toBeUndefined();
    const answers = (await cli(['log', runId, '--type', 'assistant/message', '--json'])).stdout;
    expect(answers).toContain('a says alpha (big model).');
    expect(answers).not.toContain('small model');
  });
});
