import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../../helpers/cli-harness.js';
import { tempDir } from '../../helpers/temp-store.js';

/**
 * A node's own plan `budget` stops it: the run pauses and says to raise that node's budget in the
 * plan (a `--max-cost` would not help), and doing exactly that, edit, approve, resume, finishes it.
 * The budget is in sight all along: `show` lists it with the node, `status` (text and JSON) gives
 * the node's spend against it, and the import that raises it says that is what changed.
 */

let temp: { dir: string; cleanup: () => void };
let workspace: string;
let env: NodeJS.ProcessEnv;
let runId: string;
let paused: CliResult;
let pausedStatus: CliResult;
let shown: CliResult;
let pausedJson: { nodes: { id: string; budget?: unknown }[] };
let imported: CliResult;
let approved: CliResult;
let resumed: CliResult;
let fileWhenPaused: string;

const cli = (args: string[]) => runCli(args, { cwd: workspace, env });

function planWithNodeBudget(maxTokens: number): string {
  return JSON.stringify({ goal: 'Change a', nodes: [{ id: 'edit-a', kind: 'edit', title: 'Change a', writes: ['src/a.txt'], budget: { maxTokens } }] });
}

beforeAll(async () => {
  temp = tempDir('dagent-node-budget-');
  workspace = join(temp.dir, 'workspace');
  mkdirSync(join(workspace, 'src'), { recursive: true });
  writeFileSync(join(workspace, 'src', 'a.txt'), 'old\n');
  writeFileSync(join(workspace, 'plan.json'), planWithNodeBudget(100));
  const script = join(temp.dir, 'model.json');
  writeFileSync(script, JSON.stringify({ agents: { 'node:edit-a': [{ toolCalls: [{ name: 'write_file', args: { path: 'src/a.txt', content: 'new\n' } }] }, { text: 'Changed a.' }] } }));
  mkdirSync(join(temp.dir, 'home'));
  env = { HOME: join(temp.dir, 'home'), XDG_CONFIG_HOME: join(temp.dir, 'config'), PATH: process.env.PATH, DAGENT_MODEL: `scripted:${script}` };

  const planned = await cli(['plan', '--from', 'plan.json']);
  expect(planned.code, planned.stderr).toBe(0);
  runId = /run (\S+) /.exec(planned.stdout)![1]!;
  shown = await cli(['show', runId]);
  expect((await cli(['approve', runId])).code).toBe(0);
  paused = await cli(['run', runId, '--no-dashboard']);
  pausedStatus = await cli(['status', runId]);
  pausedJson = JSON.parse((await cli(['--json', 'status', runId])).stdout) as typeof pausedJson;
  fileWhenPaused = readFileSync(join(workspace, 'src', 'a.txt'), 'utf8');
  writeFileSync(join(workspace, 'plan.json'), planWithNodeBudget(1_000_000));
  imported = await cli(['import', runId, 'plan.json']);
  expect(imported.code, imported.stderr).toBe(0);
  approved = await cli(['approve', runId]);
  expect(approved.code).toBe(0);
  resumed = await cli(['resume', runId, '--no-dashboard']);
}, 120_000);

afterAll(() => temp?.cleanup());

describe("a node's own budget", () => {
  it('pauses the run with a line that names the node and says to raise its budget in the plan, not --max-cost', () => {
    expect(paused.code, paused.stdout + paused.stderr).toBe(0);
    expect(paused.stdout).toContain(`run ${runId} paused: node edit-a's budget is reached: spent 0 tokens of 100 tokens`);
    // Spent nothing, its first call refused: room for that call and one more like it.
    expect(paused.stdout).toMatch(new RegExp(`raise node edit-a's \`budget\` in the plan to at least \`maxTokens: \\d+\` \\(\`dagent edit ${runId}\`, or export and import\\), \`dagent approve ${runId}\`, then \`dagent resume ${runId}\``));
    expect(paused.stdout).not.toContain('--max-cost');
    expect(pausedStatus.stdout).toContain(`paused: node edit-a's budget is reached`);
    expect(pausedStatus.stdout).toContain(`raise node edit-a's \`budget\` in the plan`);
    expect(pausedStatus.stdout).not.toContain('--max-cost');
    expect(fileWhenPaused).toBe('old\n');
  });

  it('is shown with the node by `show`, and with its spend by `status` and `status --json`', () => {
    expect(shown.stdout).toMatch(/^edit-a \(edit\): Change a\n(?: {2}.*\n)*? {2}budget {2}at most 100 tokens over all its attempts$/m);
    expect(pausedStatus.stdout).toMatch(/^budget of edit-a: 0 of 100 tokens \(0%\)$/m);
    expect(pausedJson.nodes).toEqual([expect.objectContaining({ id: 'edit-a', budget: { maxTokens: 100, spentUsd: 0, spentTokens: 0 } })]);
  });

  it('an import that only raises it says so', () => {
    expect(imported.stdout).toContain('~ edit-a.budget: {"maxTokens":100} → {"maxTokens":1000000}');
    expect(imported.stdout).not.toContain('no changes');
  });

  it('goes on once the plan gives the node more: edit, approve, resume', () => {
    expect(approved.stdout, 'approve sends it on as the pause line did').toContain(`next: dagent resume ${runId}`);
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain(`run ${runId} succeeded`);
    expect(readFileSync(join(workspace, 'src', 'a.txt'), 'utf8')).toBe('new\n');
  });
});
