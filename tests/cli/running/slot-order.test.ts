import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reviewedNodeCosts } from '../../../cli/plans/plan-review.js';
import type { Plan, PlanNode } from '../../../engine/index.js';
import { runCli } from '../../helpers/cli-harness.js';
import { tempDir } from '../../helpers/temp-store.js';

/**
 * With fewer slots than ready nodes, `dagent run` starts the node with the most work ahead of it
 * first, weighing each node as `dagent plan` estimated it: by the files it covers. The plan gives
 * no estimates, so every read node would otherwise weigh the same and start in plan order.
 */

let temp: { dir: string; cleanup: () => void };
let workspace: string;

beforeEach(() => {
  temp = tempDir('dagent-slot-order-');
  workspace = join(temp.dir, 'workspace');
  mkdirSync(join(workspace, 'src'), { recursive: true });
  mkdirSync(join(workspace, 'docs'));
  writeFileSync(join(workspace, 'docs', 'a.md'), '# A\n');
  writeFileSync(join(workspace, 'docs', 'b.md'), '# B\n');
  // Some 30 K tokens by the review's rule of thumb: the read that weighs most.
  writeFileSync(join(workspace, 'src', 'engine.ts'), `${'export const line = 1;\n'.repeat(5_000)}`);
});

afterEach(() => temp.cleanup());

const read = (id: string, reads: string[]): PlanNode => ({ id, kind: 'read', title: `Read ${id}`, instructions: `Summarise ${reads.join(', ')}.`, reads, writes: [], dependsOn: [] });

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return runCli([...args, '--db', join(temp.dir, 'dagent.db'), '--model', `scripted:${join(temp.dir, 'script.json')}`, '--approval', 'auto', '--no-sandbox'], { cwd: workspace, env: { HOME: temp.dir, NO_COLOR: '1' } });
}

describe('dagent run with fewer slots than ready nodes', () => {
  it('starts the node whose files weigh most first, as the review estimated it', async () => {
    const plan = { goal: 'Summarise the docs and the engine', rationale: 'three independent reads', nodes: [read('doc-a', ['docs/a.md']), read('doc-b', ['docs/b.md']), read('engine', ['src/**/*.ts'])] };
    writeFileSync(join(temp.dir, 'plan.json'), JSON.stringify(plan));
    writeFileSync(join(temp.dir, 'script.json'), JSON.stringify({ agents: Object.fromEntries(plan.nodes.map((node) => [`node:${node.id}`, [{ text: `${node.id} summarised` }]])) }));

    const planned = await cli(['plan', '--from', join(temp.dir, 'plan.json')]);
    expect(planned.code, planned.stderr).toBe(0);
    // The review names the engine read as the heaviest: it is the critical path.
    expect(planned.stdout).toMatch(/critical path: engine · width 3/);
    const runId = /run (r-[0-9a-f]+)/.exec(planned.stdout)![1]!;
    expect((await cli(['approve', runId])).code).toBe(0);

    const run = await cli(['run', runId, '-j', '1']);

    expect(run.code, run.stderr).toBe(0);
    const started = [...run.stdout.matchAll(/▶ (\S+) started/g)].map((match) => match[1]);
    expect(started).toEqual(['engine', 'doc-a', 'doc-b']);
  });

  it('weighs only the nodes it estimated: a node a replan added or changed, and a command, weigh their planned cost', async () => {
    const plan: Plan = { goal: 'g', rationale: 'r', nodes: [read('engine', ['src/**/*.ts']), { id: 'test', kind: 'command', title: 'Test', instructions: 'npm test', reads: [], writes: [], dependsOn: ['engine'] }] };
    const costOf = await reviewedNodeCosts(workspace, plan);

    expect(costOf(plan.nodes[0]!)).toBeGreaterThan(25_000);
    expect(costOf({ ...plan.nodes[0]!, reads: ['docs/a.md'] })).toBeUndefined();
    expect(costOf(read('added', ['docs/b.md']))).toBeUndefined();
    expect(costOf(plan.nodes[1]!)).toBeUndefined();
  });
});
