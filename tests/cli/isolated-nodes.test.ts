import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { detectSandbox } from '../../tools/index.js';
import { runCli } from '../helpers/cli-harness.js';
import { tempDir } from '../helpers/temp-store.js';

/** The issue's reproduction: an undeclared command change, an edit, then a command that declares the file the first one changed. */
const PLAN = `goal: Three nodes in a row
nodes:
  - id: cmd-a
    kind: command
    title: Append and make a file
    command: "echo changed >> a.txt && echo new > made.txt"
    writes: []
  - id: edit-b
    kind: command
    title: Change b
    command: "echo edited >> b.txt"
    writes: ["b.txt"]
    dependsOn: [cmd-a]
  - id: cmd-c
    kind: command
    title: Append to a
    command: "echo by-c >> a.txt"
    writes: ["a.txt"]
    dependsOn: [edit-b]
`;

/** Twelve command nodes side by side, each writing a file it did not declare. */
const WIDE = `goal: A wide stage
nodes:
${Array.from({ length: 12 }, (_, index) => `  - id: w${index}
    kind: command
    title: Write out-${index}
    command: "echo ${index} > out-${index}.txt"
    writes: []`).join('\n')}
`;

/** Two edits side by side on different lines of one file, and a third on the first one's line. */
const HUNKS = `goal: Edit one file three times
nodes:
  - id: top
    kind: command
    title: Change the first line
    command: "sed -i 's/^line 1$/line one/' f.txt"
    writes: ["f.txt"]
  - id: bottom
    kind: command
    title: Change the last line
    command: "sed -i 's/^line 10$/line ten/' f.txt"
    writes: ["f.txt"]
    dependsOn: []
`;

/** A command node that changes a file, then asks git about it: git reads the repository through the node's worktree. */
const GIT_READS = `goal: Ask git
nodes:
  - id: git-read
    kind: command
    title: Change a file and ask git about it
    command: "echo changed >> a.txt && git status --short && git diff && git log --format=%s"
    writes: ["a.txt"]
`;

let workspace: string;
let home: string;
let cleanups: (() => void)[] = [];

const cli = (...args: string[]) => runCli(args, { cwd: workspace, env: { HOME: home, PATH: process.env.PATH } });
const read = (path: string): string | undefined => (existsSync(join(workspace, path)) ? readFileSync(join(workspace, path), 'utf8') : undefined);
const git = (...args: string[]): string => execFileSync('git', args, { cwd: workspace, env: { PATH: process.env.PATH, HOME: home }, encoding: 'utf8' }).trim();

beforeEach(() => {
  const ws = tempDir('dagent-isolated-');
  const homeDir = tempDir('dagent-isolated-home-');
  cleanups = [ws.cleanup, homeDir.cleanup];
  workspace = ws.dir;
  home = homeDir.dir;
  writeFileSync(join(workspace, 'a.txt'), 'a\n');
  writeFileSync(join(workspace, 'b.txt'), 'b\n');
  git('init', '-q', '-b', 'main');
  git('-c', 'user.name=Test', '-c', 'user.email=test@example.com', 'add', '-A');
  git('-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'commit.gpgsign=false', 'commit', '-q', '-m', 'initial');
  mkdirSync(join(workspace, '.dagent'), { recursive: true });
  writeFileSync(join(workspace, '.dagent', 'config.json'), JSON.stringify({ isolation: 'worktree' }));
  writeFileSync(join(workspace, '.dagent', '.gitignore'), '*\n');
});
afterEach(() => {
  for (const cleanup of cleanups) cleanup();
});

function runIdOf(stdout: string): string {
  const runId = /run (r-[0-9a-z]+) (succeeded|failed)/.exec(stdout)?.[1];
  expect(runId).toBeDefined();
  return runId!;
}

describe('nodes in their own workspaces', () => {
  it("gives every change to the node that made it: one commit per node on dagent/<run>, diff --node and revert undo exactly that", async () => {
    writeFileSync(join(workspace, 'plan.yaml'), PLAN);
    const ran = await cli('plan', '--from', 'plan.yaml', '--yes');
    expect(ran.code, ran.stderr).toBe(0);
    const runId = runIdOf(ran.stdout);
    expect(read('a.txt')).toBe('a\nchanged\nby-c\n');
    expect(git('log', '--format=%s', `dagent/${runId}`).split('\n').slice(0, 3)).toEqual([
      'dagent: cmd-c (attempt 1): Append to a',
      'dagent: edit-b (attempt 1): Change b',
      'dagent: cmd-a (attempt 1): Append and make a file',
    ]);
    expect(git('show', '--name-only', '--format=', `dagent/${runId}~2`).split('\n')).toEqual(['a.txt', 'made.txt']);
    const commitA = git('rev-parse', `dagent/${runId}~2`).slice(0, 12);
    expect(ran.stdout).toContain(`⎇ cmd-a merged 2 files as ${commitA} on dagent/${runId}`);
    const status = await cli('status', runId);
    expect(status.stdout).toContain(`workspace: cmd-a merged 2 files as ${commitA} on dagent/${runId}`);
    const statusJson = JSON.parse((await cli('status', runId, '--json')).stdout) as { nodes: { id: string; workspace?: { state: string; commit: string } }[] };
    expect(statusJson.nodes.find((node) => node.id === 'cmd-a')?.workspace).toMatchObject({ state: 'merged', commit: git('rev-parse', `dagent/${runId}~2`) });

    const diffA = await cli('diff', runId, '--node', 'cmd-a');
    expect(diffA.stdout).toContain(' a\n+changed\n');
    expect(diffA.stdout).toContain('+++ b/made.txt');
    const diffC = await cli('diff', runId, '--stat');
    expect(diffC.code).toBe(0);
    const diffOfC = await cli('diff', runId, '--node', 'cmd-c');
    expect(diffOfC.stdout).not.toContain('made.txt');
    expect(diffOfC.stdout).toContain(' changed\n+by-c\n');

    const revertA = await cli('revert', runId, '--node', 'cmd-a');
    expect(revertA.code, revertA.stdout + revertA.stderr).toBe(0);
    expect(read('a.txt')).toBe('a\nby-c\n');
    expect(read('made.txt')).toBeUndefined();
    const revertAll = await cli('revert', runId, '--force');
    expect(revertAll.code, revertAll.stderr).toBe(0);
    expect(read('a.txt')).toBe('a\n');
    expect(read('b.txt')).toBe('b\n');
  }, 120_000);

  it('keeps twelve side-by-side commands apart: each file is its own node’s, none misattributed', async () => {
    writeFileSync(join(workspace, 'plan.yaml'), WIDE);
    writeFileSync(join(workspace, '.dagent', 'config.json'), JSON.stringify({ isolation: 'worktree', concurrency: 12 }));
    const ran = await cli('plan', '--from', 'plan.yaml', '--yes');
    expect(ran.code, ran.stderr).toBe(0);
    const runId = runIdOf(ran.stdout);
    for (let index = 0; index < 12; index += 1) {
      const diff = await cli('diff', runId, '--node', `w${index}`, '--json');
      const files = (JSON.parse(diff.stdout) as { files: { path: string }[] }).files.map((file) => file.path);
      expect(files).toEqual([`out-${index}.txt`]);
      expect(read(`out-${index}.txt`)).toBe(`${index}\n`);
    }
    expect(git('rev-list', '--count', `main..dagent/${runId}`)).toBe('13');
  }, 60_000);

  it('merges two side-by-side edits of different hunks of one file; the same lines fail the node with both sides', async () => {
    writeFileSync(join(workspace, 'f.txt'), Array.from({ length: 10 }, (_, index) => `line ${index + 1}`).join('\n') + '\n');
    git('add', 'f.txt');
    git('-c', 'user.name=Test', '-c', 'user.email=test@example.com', 'commit', '-qm', 'ten lines');
    // Each in its own workspace, two unordered nodes may both declare f.txt: their changes merge.
    writeFileSync(join(workspace, 'plan.yaml'), HUNKS);
    const ran = await cli('plan', '--from', 'plan.yaml', '--yes');
    expect(ran.code, ran.stderr).toBe(0);
    // Lint notes the pair: allowed, but the same lines would conflict.
    expect((await cli('show', runIdOf(ran.stdout))).stdout).toContain('lint: top and bottom both write f.txt and neither depends on the other: each runs in its own worktree and their changes merge three-way');
    expect(read('f.txt')).toBe('line one\nline 2\nline 3\nline 4\nline 5\nline 6\nline 7\nline 8\nline 9\nline ten\n');

    const clash = HUNKS.replace('s/^line 1$/line one/', 's/^line 2$/line two/').replace('s/^line 10$/line ten/', 's/^line 2$/LINE 2/');
    writeFileSync(join(workspace, 'plan.yaml'), clash);
    // The same lines conflict: the node fails with both sides, and (onConflict: replan) its command runs again on the merged result.
    const clashed = await cli('plan', '--from', 'plan.yaml', '--yes', '--no-dashboard');
    expect(clashed.code, clashed.stdout + clashed.stderr).toBe(0);
    expect(clashed.stdout).toMatch(/✗ (top|bottom) failed: merge conflict: node (top|bottom) changed the same lines/);
    expect(clashed.stdout).toMatch(/⚡ (top|bottom) conflicts with changes merged before it on dagent\/r-[0-9a-z]+: f\.txt:2/);
  }, 60_000);

  it.skipIf(!detectSandbox().available)('lets a command node run git in its worktree, in the sandbox, by default: status, diff and log see the node’s change', async () => {
    // The default settings: a worktree per node (the repository under /tmp, which the sandbox's private /tmp hides).
    writeFileSync(join(workspace, '.dagent', 'config.json'), '{}');
    writeFileSync(join(workspace, 'plan.yaml'), GIT_READS);
    const ran = await cli('plan', '--from', 'plan.yaml', '--yes');
    expect(ran.code, ran.stderr).toBe(0);
    const runId = runIdOf(ran.stdout);
    const log = await cli('log', runId, '--node', 'git-read', '--type', 'tool/result', '--json');
    const result = JSON.parse(log.stdout.trim().split('\n')[0]!) as { payload: { content: string; meta: { sandbox: string } } };
    expect(result.payload.meta.sandbox).not.toBe('none');
    expect(result.payload.content).toContain(' M a.txt');
    expect(result.payload.content).toContain('+changed');
    expect(result.payload.content).toMatch(/^initial$/m);
    expect(git('show', '--name-only', '--format=', `dagent/${runId}`)).toBe('a.txt');
  }, 60_000);

  it('refuses the same two unordered writers of one file where nodes share the working copy (isolation: shared)', async () => {
    writeFileSync(join(workspace, '.dagent', 'config.json'), JSON.stringify({ isolation: 'shared' }));
    writeFileSync(join(workspace, 'plan.yaml'), HUNKS);
    const refused = await cli('plan', '--from', 'plan.yaml', '--yes');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('write conflict: top and bottom both write f.txt and no dependency orders them; make one depend on the other');
  });

  it('fails a node that writes beyond its declared writes when the plan says strictWrites, and merges nothing of it', async () => {
    writeFileSync(
      join(workspace, 'plan.yaml'),
      `goal: Strict writes
strictWrites: true
nodes:
  - id: tidy
    kind: command
    title: Change a, and b too
    command: "echo tidied >> a.txt && echo also >> b.txt"
    writes: ["a.txt"]
  - id: loose
    kind: command
    title: Make a file it did not declare
    command: "echo made > loose.txt"
    writes: []
    strictWrites: false
`,
    );
    const ran = await cli('plan', '--from', 'plan.yaml', '--yes', '--no-dashboard');
    expect(ran.code).toBe(1);
    const runId = runIdOf(ran.stdout);
    expect(ran.stdout).toContain('⚠ tidy changed files outside its declared writes: b.txt (strictWrites: the node fails, its change is not merged)');
    expect(ran.stdout).toContain('⚠ loose changed files outside its declared writes: loose.txt (recorded:');
    expect(read('a.txt')).toBe('a\n');
    expect(read('b.txt')).toBe('b\n');
    expect(read('loose.txt')).toBe('made\n');
    const status = await cli('status', runId);
    expect(status.stdout).toContain('error: tidy changed files outside its declared writes: b.txt (strictWrites: the node failed and its change was not merged)');
    expect(status.stdout).toContain('tidy failed: node tidy changed files outside its declared writes, which strictWrites forbids: b.txt (it declared writes a.txt)');
    const log = JSON.parse(`[${(await cli('log', runId, '--type', 'writes/', '--json')).stdout.trim().split('\n').join(',')}]`) as { nodeId: string; payload: unknown }[];
    expect(log.find((event) => event.nodeId === 'tidy')?.payload).toEqual({ paths: ['b.txt'], writes: ['a.txt'], enforced: true });
    expect(log.find((event) => event.nodeId === 'loose')?.payload).toEqual({ paths: ['loose.txt'], writes: [], enforced: false });
  }, 60_000);

  it('refuses a strictWrites that is not true or false, in one line', async () => {
    writeFileSync(join(workspace, 'plan.yaml'), PLAN.replace('goal: Three nodes in a row', 'goal: Three nodes in a row\nstrictWrites: "yes"'));
    const refused = await cli('plan', '--from', 'plan.yaml', '--yes');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/strictWrites: must be true or false/);
  });

  describe('a merge conflict', () => {
    /** Two side-by-side commands appending to the end of one file: the second to finish conflicts. */
    const APPENDS = `goal: Append twice
nodes:
  - id: first
    kind: command
    title: Append first
    command: "echo first >> a.txt"
    writes: []
  - id: second
    kind: command
    title: Append second
    command: "echo second >> a.txt"
    writes: []
  - id: after
    kind: command
    title: Count the lines
    command: "wc -l < a.txt > count.txt"
    writes: ["count.txt"]
    dependsOn: [first, second]
`;

    it('is resolved by a node the replan appends: the conflicting command runs again on the merged result', async () => {
      writeFileSync(join(workspace, 'plan.yaml'), APPENDS);
      const ran = await cli('plan', '--from', 'plan.yaml', '--yes', '--no-dashboard');
      expect(ran.code, ran.stdout + ran.stderr).toBe(0);
      const runId = runIdOf(ran.stdout);
      const loser = /⚡ (first|second) conflicts with changes merged before it on dagent\/r-[0-9a-z]+: a\.txt:2 \(a replan appends a node to resolve it\)/.exec(ran.stdout)?.[1];
      expect(loser, ran.stdout).toBeDefined();
      const winner = loser === 'first' ? 'second' : 'first';
      expect(ran.stdout).toContain(`▶ ${loser}-remerge started`);
      expect(read('a.txt')).toBe(`a\n${winner}\n${loser}\n`);
      expect(read('count.txt')?.trim()).toBe('3');
      const log = await cli('log', runId, '--type', 'node/conflicted', '--json');
      const conflicted = JSON.parse(log.stdout.trim().split('\n')[0]!) as { payload: { files: { path: string; hunks: { ours: string; theirs: string }[] }[] } };
      expect(conflicted.payload.files).toEqual([{ path: 'a.txt', hunks: [{ line: 2, ours: winner, theirs: loser }] }]);
    }, 120_000);

    it('pauses the run when onConflict is pause, with one line saying how to go on; resume runs the node again on the merged result', async () => {
      writeFileSync(join(workspace, '.dagent', 'config.json'), JSON.stringify({ isolation: 'worktree', onConflict: 'pause' }));
      writeFileSync(join(workspace, 'plan.yaml'), APPENDS);
      const ran = await cli('plan', '--from', 'plan.yaml', '--yes', '--no-dashboard');
      expect(ran.code, ran.stdout + ran.stderr).toBe(0);
      const runId = /run (r-[0-9a-z]+) paused/.exec(ran.stdout)?.[1];
      expect(runId, ran.stdout).toBeDefined();
      const pause = /paused: (first|second)'s change conflicts with changes merged before it \(a\.txt line 2; `dagent log r-[0-9a-z]+ --type node\/conflicted` shows both sides\); `dagent resume (r-[0-9a-z]+)` runs \1 again on the merged result/.exec(ran.stdout);
      expect(pause, ran.stdout).not.toBeNull();
      const paused = await cli('status', runId!);
      expect(paused.stdout).toMatch(new RegExp(`\\n${pause![1]}\\s+failed\\s.*conflict in 1 file`));
      expect(paused.stdout).toMatch(/\n(first|second)\s+succeeded\s.*merged 1 file/);
      const resumed = await cli('resume', runId!, '--no-dashboard');
      expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
      expect(resumed.stdout).toContain(`run ${runId} succeeded`);
      expect(read('a.txt')?.split('\n').sort()).toEqual(['', 'a', 'first', 'second']);
      expect(read('count.txt')?.trim()).toBe('3');
    }, 120_000);
  });
});
