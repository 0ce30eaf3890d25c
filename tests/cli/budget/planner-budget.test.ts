import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli-harness.js';
import { tempDir } from '../../helpers/temp-store.js';

/**
 * Under a budget the planner's calls are weighed before they are sent, like a node's: a replan
 * whose first call would cross the cap is never sent, and the run pauses at its budget.
 */

let temp: { dir: string; cleanup: () => void };
let workspace: string;
let env: NodeJS.ProcessEnv;

// Each node answer reports 2 000 tokens: two of them leave 3 800 of a 7 800-token cap, less than
// the planner's first request (about 3 000 tokens in, 1 000 out) is estimated at.
const USAGE = { input: 1_990, output: 10, cacheHit: 0, reasoning: 0 };
const CAP_TOKENS = 7_800;

beforeEach(() => {
  temp = tempDir('dagent-planner-budget-');
  workspace = join(temp.dir, 'workspace');
  mkdirSync(join(workspace, 'src'), { recursive: true });
  writeFileSync(join(workspace, 'src', 'a.txt'), 'old\n');
  writeFileSync(join(workspace, 'plan.json'), JSON.stringify({ goal: 'Change a', nodes: [{ id: 'edit-a', kind: 'edit', title: 'Change a', writes: ['src/a.txt'] }] }));
  const script = join(temp.dir, 'model.json');
  const report = { name: 'report_missing_work', args: { title: 'Change b too', files: ['src/b.txt'], reason: 'b uses a' } };
  writeFileSync(script, JSON.stringify({ agents: { 'node:edit-a': [{ toolCalls: [report], usage: USAGE }, { text: 'Reported.', usage: USAGE }], planner: [{ text: '{ "nodes": [] }' }] } }));
  mkdirSync(join(temp.dir, 'home'));
  env = { HOME: join(temp.dir, 'home'), XDG_CONFIG_HOME: join(temp.dir, 'config'), PATH: process.env.PATH, DAGENT_MODEL: `scripted:${script}` };
});

afterEach(() => temp.cleanup());

const cli = (args: string[]) => runCli(args, { cwd: workspace, env });

describe("the planner's calls under a budget", () => {
  it('a replan whose call would cross the cap is refused before it is sent, and the run pauses', { timeout: 60_000 }, async () => {
    const planned = await cli(['plan', '--from', 'plan.json']);
    expect(planned.code, planned.stderr).toBe(0);
    const runId = /run (\S+) /.exec(planned.stdout)![1]!;
    expect((await cli(['approve', runId])).code).toBe(0);

    const run = await cli(['run', runId, '--no-dashboard', '--approval', 'auto', '--max-tokens', String(CAP_TOKENS)]);

    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`run ${runId} paused: the run's budget is reached: spent 4000 tokens of ${CAP_TOKENS} tokens; the next model call \\(about \\d+ tokens\\) would cross it`));
    const reached = (await cli(['log', runId, '--type', 'budget/reached', '--json'])).stdout.trim().split('\n').map((line) => JSON.parse(line) as { nodeId: string; payload: { scope: string; spent: number; estimate: number; cap: number } });
    expect(reached).toHaveLength(1);
    expect(reached[0]!.nodeId).toBe('planner');
    expect(reached[0]!.payload).toMatchObject({ scope: 'run', spent: 4_000, cap: CAP_TOKENS });
    expect(reached[0]!.payload.spent + reached[0]!.payload.estimate).toBeGreaterThan(CAP_TOKENS);
    // The planner's request was never sent: no answer of its, and the spend stayed under the cap.
    const answers = (await cli(['log', runId, '--type', 'assistant/message', '--json'])).stdout.trim().split('\n').map((line) => JSON.parse(line) as { nodeId: string });
    expect(answers.map((answer) => answer.nodeId)).toEqual(['edit-a', 'edit-a']);
    const status = JSON.parse((await cli(['status', runId, '--json'])).stdout) as { run: { status: string }; budget?: { spentTokens: number } };
    expect(status.run.status).toBe('paused');
    expect(status.budget?.spentTokens).toBeLessThanOrEqual(CAP_TOKENS);
    // A cap of tokens is raised by --max-tokens: status says the command, as the run's own line does, with room for the refused call.
    const suggested = Number(new RegExp(`resume with a higher cap: dagent resume ${runId} --max-tokens (\\d+)$`, 'm').exec((await cli(['status', runId])).stdout)?.[1]);
    expect(run.stdout).toContain(`dagent resume ${runId} --max-tokens ${suggested}`);
    expect(suggested).toBeGreaterThan(status.budget!.spentTokens + reached[0]!.payload.estimate);
    // A cap not above what the run spent would pause it again at once: refused, with the one suggested.
    const under = await cli(['resume', runId, '--no-dashboard', '--max-tokens', '100']);
    expect([under.code, under.stderr.trim()]).toEqual([2, `dagent: run ${runId}: --max-tokens 100 is not above the ${status.budget!.spentTokens} tokens the run has spent: give more than that (e.g. --max-tokens ${suggested})`]);
  });

  it("a first planning whose call would cross the cap (plan --max-tokens) is not sent: one line says so, and the run keeps its task and budget", { timeout: 60_000 }, async () => {
    const planned = await cli(['plan', 'Change a and b', '--max-tokens', '100']);

    expect(planned.code).toBe(1);
    const lines = planned.stderr.trim().split('\n');
    const line = lines.at(-1)!;
    expect(line).toMatch(/^dagent: run (r-\S+) planning stopped: the run's budget is reached: spent 0 tokens of 100 tokens; the next model call \(about \d+ tokens\) would cross it; nothing more was sent\. Plan again under a higher cap \(--max-cost USD or --max-tokens N\)$/);
    const runId = /run (r-\S+) planning stopped/.exec(line)![1]!;
    expect((await cli(['log', runId, '--type', 'assistant/message', '--json'])).stdout.trim()).toBe('');
    const events = (await cli(['log', runId, '--json'])).stdout.trim().split('\n').map((entry) => JSON.parse(entry) as { type: string; nodeId: string | null; payload: Record<string, unknown> });
    expect(events.find((event) => event.type === 'budget/set')?.payload).toEqual({ maxTokens: 100, source: 'flags' });
    expect(events.find((event) => event.type === 'budget/reached')).toMatchObject({ nodeId: 'planner', payload: { scope: 'run', spent: 0, cap: 100 } });
    const status = JSON.parse((await cli(['status', runId, '--json'])).stdout) as { run: { status: string; task: string } };
    expect(status.run).toMatchObject({ status: 'failed', task: 'Change a and b' });
  });

  it('a budget in config holds for the first planning too', { timeout: 60_000 }, async () => {
    mkdirSync(join(temp.dir, 'config', 'dagent'), { recursive: true });
    writeFileSync(join(temp.dir, 'config', 'dagent', 'config.json'), JSON.stringify({ budget: { maxTokens: 100 } }));
    const planned = await cli(['plan', 'Change a and b']);
    expect(planned.code).toBe(1);
    expect(planned.stderr).toMatch(/planning stopped: the run's budget is reached: spent 0 tokens of 100 tokens/);
    expect(planned.stderr.trim().split('\n').filter((entry) => entry.startsWith('dagent:'))).toHaveLength(1);
  });
});
