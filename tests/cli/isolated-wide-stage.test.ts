import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Plan, PlanNode } from '../../engine/index.js';
import { killRunningClis, spawnCli } from '../helpers/crash-process.js';
import { tempDir } from '../helpers/temp-store.js';

/**
 * The isolation story end to end, through the built binary, on a copy of examples/billing made a
 * git repository in a temporary folder: a 12-wide stage of commands that each write files they
 * did not declare, and beside them two edit nodes (the scripted model's `edit_file`) that both
 * declare one file and change different hunks of it, each node in its own worktree — the isolation
 * a git repository gets by default. Every file lands in the commit of the node that wrote it, the
 * edits merge cleanly, and the example's own tests (`node --test`) pass on the merged result.
 */

const BILLING = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'examples', 'billing');
const INVOICE = 'src/models/invoice.js';
const WIDTH = 12;

function node(fields: Pick<PlanNode, 'id' | 'kind' | 'title'> & Partial<PlanNode>): PlanNode {
  return { instructions: fields.title, reads: [], writes: [], dependsOn: [], ...fields } as PlanNode;
}

const generators = Array.from({ length: WIDTH }, (_, index) =>
  node({ id: `gen-${index}`, kind: 'command', title: `Write note and data ${index}`, command: `mkdir -p notes data && echo "note ${index}" > notes/gen-${index}.md && echo '{"n":${index}}' > data/gen-${index}.json` }),
);
// Two edit nodes side by side, both declaring one file: under worktree isolation the plan may
// leave them unordered, since each edits its own workspace and the changes merge in plan order.
const edits = [
  node({ id: 'edit-top', kind: 'edit', title: 'Say where invoices go', writes: [INVOICE] }),
  node({ id: 'edit-bottom', kind: 'edit', title: 'Say that due today is not overdue', writes: [INVOICE] }),
];
/** The scripted model's answers: each edit node changes its hunk with `edit_file`, then says so. */
const SCRIPT = {
  agents: {
    'node:edit-top': [
      { toolCalls: [{ name: 'edit_file', args: { path: INVOICE, old_string: '@property {string} email\n', new_string: '@property {string} email  where invoices and reminders go\n' } }] },
      { text: 'Said where invoices go.' },
    ],
    'node:edit-bottom': [
      { toolCalls: [{ name: 'edit_file', args: { path: INVOICE, old_string: '(ISO dates compare as strings).', new_string: '(ISO dates compare as strings); due today is not overdue.' } }] },
      { text: 'Said that due today is not overdue.' },
    ],
  },
};
const PLAN: Plan = {
  goal: 'Notes and data beside two edits of one file, then the tests',
  rationale: 'A wide stage of commands with undeclared writes, and two edits of different hunks of one file, each node in its own worktree.',
  nodes: [...generators, ...edits, node({ id: 'test', kind: 'command', title: 'Run the tests', command: 'node --test', dependsOn: [...generators, ...edits].map((entry) => entry.id) })],
} as Plan;

/** What each node should have written: its own files, nothing else. */
const EXPECTED = new Map<string, string[]>([...generators.map((entry, index) => [entry.id, [`data/gen-${index}.json`, `notes/gen-${index}.md`]] as [string, string[]]), ['edit-top', [INVOICE]], ['edit-bottom', [INVOICE]]]);

let temp: { dir: string; cleanup: () => void };
let workspace: string;

const env = (): NodeJS.ProcessEnv => ({ HOME: join(temp.dir, 'home') });
const cli = async (...args: string[]) => spawnCli(args, workspace, { env: env(), timeLimitMs: 170_000 }).exited;
const git = (...args: string[]): string => execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'commit.gpgsign=false', ...args], { cwd: workspace, encoding: 'utf8' }).trim();

beforeAll(() => {
  temp = tempDir('dagent-wide-stage-');
  workspace = join(temp.dir, 'billing');
  mkdirSync(join(temp.dir, 'home'));
  cpSync(BILLING, workspace, { recursive: true, filter: (source) => !source.includes('/.dagent') });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-qm', 'billing');
  mkdirSync(join(workspace, '.dagent'), { recursive: true });
  writeFileSync(join(workspace, '.dagent', '.gitignore'), '*\n');
  // No isolation key: a git repository's nodes get their own worktrees by default.
  writeFileSync(join(workspace, '.dagent', 'config.json'), JSON.stringify({ concurrency: WIDTH + 2 }));
  writeFileSync(join(workspace, '.dagent', 'plan.json'), JSON.stringify(PLAN));
  writeFileSync(join(workspace, '.dagent', 'script.json'), JSON.stringify(SCRIPT));
});

afterAll(() => {
  killRunningClis();
  temp?.cleanup();
});

/** Each node's files on the run branch, from its commit (`dagent: <node> (attempt n): …`). */
function filesByNodeCommit(branch: string): Map<string, string[]> {
  const byNode = new Map<string, string[]>();
  const commits = git('rev-list', `main..${branch}`).split('\n').filter((line) => line !== '');
  for (const commit of commits) {
    const subject = git('log', '-1', '--format=%s', commit);
    const id = /^dagent: (\S+) \(attempt \d+\)/.exec(subject)?.[1];
    expect(id, subject).toBeDefined();
    expect(byNode.has(id!), `${id} has one commit`).toBe(false);
    byNode.set(id!, git('diff-tree', '--no-commit-id', '--name-only', '-r', commit).split('\n').filter((line) => line !== '').sort());
  }
  return byNode;
}

describe('a 12-wide stage of undeclared writes and two edits of one file, each node in its own worktree', () => {
  it('attributes every file to the node that wrote it, merges the edits cleanly, and the example’s tests pass', { timeout: 180_000 }, async () => {
    const ran = await cli('--approval', 'auto', 'plan', '--from', join(workspace, '.dagent', 'plan.json'), '-m', `scripted:${join(workspace, '.dagent', 'script.json')}`, '--yes', '--no-dashboard');
    expect(ran.code, ran.stdout + ran.stderr).toBe(0);
    const runId = /run (r-[0-9a-z]+) succeeded/.exec(ran.stdout)?.[1];
    expect(runId, ran.stdout).toBeDefined();
    const branch = `dagent/${runId}`;

    // Git's record: one commit per node that changed something, holding exactly its files.
    const committed = filesByNodeCommit(branch);
    const misattributed = [...EXPECTED].flatMap(([id, files]) => {
      const got = committed.get(id) ?? [];
      return [...got.filter((file) => !files.includes(file)), ...files.filter((file) => !got.includes(file))].map((file) => `${id}: ${file}`);
    });
    expect(misattributed).toEqual([]);
    expect([...committed.keys()].sort()).toEqual([...EXPECTED.keys()].sort());

    // dagent's record agrees: each node's diff is its own files.
    const status = JSON.parse((await cli('status', runId!, '--json')).stdout) as { nodes: { id: string; status: string; workspace?: { state: string; files: number } }[] };
    for (const entry of status.nodes) {
      expect(entry.status, entry.id).toBe('succeeded');
      const expected = EXPECTED.get(entry.id);
      expect(entry.workspace, entry.id).toEqual(expected === undefined ? { state: 'clean', files: 0 } : expect.objectContaining({ state: 'merged', files: expected.length }));
    }
    for (const id of ['gen-0', 'gen-11', 'edit-top', 'edit-bottom']) {
      const diff = JSON.parse((await cli('diff', runId!, '--node', id, '--json')).stdout) as { files: { path: string }[] };
      expect(diff.files.map((file) => file.path).sort(), id).toEqual(EXPECTED.get(id));
    }

    // A clean merge: no conflict, both hunks in the working copy.
    expect((await cli('log', runId!, '--type', 'node/conflicted')).stdout.trim()).toBe('');
    const invoice = readFileSync(join(workspace, INVOICE), 'utf8');
    expect(invoice).toContain('@property {string} email  where invoices and reminders go');
    expect(invoice).toContain('(ISO dates compare as strings); due today is not overdue.');
    expect(git('show', `${branch}:${INVOICE}`)).toBe(invoice.trimEnd());

    // The example's tests passed in the run (its last node) and pass on the result.
    const tested = JSON.parse((await cli('log', runId!, '--node', 'test', '--type', 'node/succeeded', '--json')).stdout) as { payload: { result: string } };
    expect(tested.payload.result).toMatch(/# fail 0/);
    expect(() => execFileSync(process.execPath, ['--test'], { cwd: workspace, stdio: 'pipe' })).not.toThrow();
  });
});
