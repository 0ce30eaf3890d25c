import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { Plan } from '../../engine/index.js';
import { killRunningClis, spawnCli, type CliProcess } from '../helpers/crash-process.js';
import { tempDir } from '../helpers/temp-store.js';

/**
 * Each isolated node's workspace state in `status` (text and JSON), and its commit in `inspect` and
 * `log`, through the built binary. The edit node writes a file, then waits on a gate, so its
 * workspace is seen `changed` while it runs and `merged` (with its commit) once it is done.
 */

const PLAN: Plan = {
  goal: 'Change a, then record it',
  rationale: 'An edit that is still running when status is asked, and a command after it.',
  nodes: [
    { id: 'edit-a', kind: 'agent', title: 'Change a', instructions: 'Write a.txt, then wait.', reads: [], writes: ['a.txt'], dependsOn: [], tools: ['write_file', 'run_command'] },
    { id: 'note', kind: 'command', title: 'Note it', instructions: 'Write the note.', command: 'echo noted > note.txt', reads: [], writes: ['note.txt'], dependsOn: ['edit-a'] },
  ],
};

let temp: { dir: string; cleanup: () => void };
let workspace: string;
let flags: string[];

const env = (): NodeJS.ProcessEnv => ({ HOME: join(temp.dir, 'home') });
const cli = async (args: string[]) => spawnCli([...args, ...flags], workspace, { env: env() }).exited;
const git = (...args: string[]): string => execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'commit.gpgsign=false', ...args], { cwd: workspace, encoding: 'utf8' }).trim();

/** Waits until the run's log has an event of `type`. */
async function eventAppears(runId: string, type: string, runner: CliProcess): Promise<void> {
  const db = new BetterSqlite3(join(workspace, '.dagent', 'dagent.db'), { readonly: true, fileMustExist: true });
  const count = db.prepare<[string, string], { n: number }>('SELECT count(*) AS n FROM events WHERE run_id = ? AND type = ?');
  try {
    for (let waited = 0; (count.get(runId, type)?.n ?? 0) === 0; waited += 50) {
      if (waited > 30_000 || runner.hasExited()) throw new Error(`no ${type} in the log:\n${(await runner.exited).stderr}`);
      await sleep(50);
    }
  } finally {
    db.close();
  }
}

interface StatusNode {
  id: string;
  workspace?: { state: string; files: number; commit?: string; branch?: string };
}

beforeEach(() => {
  temp?.cleanup();
  temp = tempDir('dagent-node-workspace-');
  workspace = join(temp.dir, 'repo');
  mkdirSync(workspace);
  mkdirSync(join(temp.dir, 'home'));
  writeFileSync(join(workspace, 'a.txt'), 'a\n');
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-qm', 'initial');
  mkdirSync(join(workspace, '.dagent'));
  writeFileSync(join(workspace, '.dagent', 'config.json'), JSON.stringify({ isolation: 'worktree' }));
  writeFileSync(join(workspace, '.dagent', '.gitignore'), '*\n');
  writeFileSync(join(workspace, '.dagent', 'plan.json'), JSON.stringify(PLAN));
  const gate = join(temp.dir, 'open');
  const script = join(temp.dir, 'script.json');
  writeFileSync(
    script,
    JSON.stringify({
      agents: {
        'node:edit-a': [
          { toolCalls: [{ id: 'write', name: 'write_file', args: { path: 'a.txt', content: 'A\n' } }] },
          { toolCalls: [{ id: 'wait', name: 'run_command', args: { command: `until [ -e ${gate} ]; do sleep 0.05; done` } }] },
          { text: 'Wrote a.txt.' },
        ],
      },
    }),
  );
  // Unconfined: the sandbox gives a command a private /tmp, where the gate is.
  flags = ['--model', `scripted:${script}`, '--approval', 'auto', '--no-sandbox'];
});

afterAll(() => {
  killRunningClis();
  temp?.cleanup();
});

describe('each node’s workspace, in status, inspect and log', () => {
  it('is changed while the node runs, then merged with its commit named in status, inspect and log', { timeout: 120_000 }, async () => {
    const planned = await cli(['plan', '--from', join(workspace, '.dagent', 'plan.json'), '--json']);
    expect(planned.code, planned.stderr).toBe(0);
    const runId = (JSON.parse(planned.stdout) as { runId: string }).runId;
    expect((await cli(['approve', runId])).code).toBe(0);
    const runner = spawnCli(['run', runId, '--no-dashboard', ...flags], workspace, { env: env() });
    await eventAppears(runId, 'step/checkpointed', runner);

    const running = await cli(['status', runId]);
    expect(running.stdout).toMatch(/NODE\s+STATUS\s+TRIES\s+TIME\s+TOKENS\s+COST\s+WORKSPACE/);
    expect(running.stdout).toMatch(/edit-a\s+running\s.*changed 1 file/);
    const runningJson = JSON.parse((await cli(['status', runId, '--json'])).stdout) as { nodes: StatusNode[] };
    expect(runningJson.nodes.find((node) => node.id === 'edit-a')?.workspace).toEqual({ state: 'changed', files: 1 });
    expect(runningJson.nodes.find((node) => node.id === 'note')?.workspace).toBeUndefined();

    writeFileSync(join(temp.dir, 'open'), '');
    const ran = await runner.exited;
    expect(ran.code, ran.stderr).toBe(0);
    const branch = `dagent/${runId}`;
    const commitOfEdit = git('rev-parse', `${branch}~1`);
    const commitOfNote = git('rev-parse', branch);
    const short = commitOfEdit.slice(0, 12);

    const done = await cli(['status', runId]);
    expect(done.stdout).toMatch(/edit-a\s+succeeded\s.*merged 1 file/);
    expect(done.stdout).toMatch(/note\s+succeeded\s.*merged 1 file/);
    expect(done.stdout).toContain(`workspace: edit-a merged 1 file as ${short} on ${branch}`);
    const doneJson = JSON.parse((await cli(['status', runId, '--json'])).stdout) as { nodes: StatusNode[] };
    expect(doneJson.nodes.map((node) => [node.id, node.workspace?.state, node.workspace?.commit])).toEqual([
      ['edit-a', 'merged', commitOfEdit],
      ['note', 'merged', commitOfNote],
    ]);

    const inspected = await cli(['inspect', runId, '--node', 'edit-a']);
    expect(inspected.code, inspected.stderr).toBe(0);
    expect(inspected.stdout).toContain(`\nworkspace: merged 1 file as ${short} on ${branch}\n`);
    const inspectedJson = JSON.parse((await cli(['--json', 'inspect', runId, '--node', 'edit-a'])).stdout) as { workspace: { commit: string } };
    expect(inspectedJson.workspace.commit).toBe(commitOfEdit);
    // A command node made no model request: inspect names its workspace and commit.
    const command = await cli(['inspect', runId, '--node', 'note']);
    expect(command.code, command.stderr).toBe(0);
    expect(command.stdout).toContain(`workspace: merged 1 file as ${commitOfNote.slice(0, 12)} on ${branch}`);

    const log = await cli(['log', runId, '--type', 'node/merged']);
    expect(log.stdout).toMatch(new RegExp(`edit-a\\s+node/merged\\s+commit ${short} on ${branch}: 1 file \\(a\\.txt\\)`));
    expect(log.stdout).toContain(`commit ${commitOfNote.slice(0, 12)} on ${branch}: 1 file (note.txt)`);
  });
});
