import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Session } from '../../../engine/index.js';
import { WorkspaceGuard, createRunCommandTool, detectConfinement, detectSandbox, type CommandConfinement } from '../../../tools/index.js';

const sandbox = detectSandbox();

/**
 * Where the repository lies: under /tmp, which the sandbox replaces with a private one (the main
 * repository's `.git` is then out of sight unless the sandbox shows it), and under /var/tmp, which
 * the sandbox shows read-only with the rest of the file system.
 */
const PLACES = [tmpdir(), ...(existsSync('/var/tmp') ? ['/var/tmp'] : [])];

/** Every file and folder under `root` with its content: what no command may change. */
function snapshot(root: string): Map<string, string> {
  const state = new Map<string, string>();
  const visit = (path: string): void => {
    const stat = lstatSync(path);
    state.set(relative(root, path) || '.', stat.isDirectory() ? 'dir' : readFileSync(path).toString('base64'));
    if (stat.isDirectory()) for (const entry of readdirSync(path).sort()) visit(join(path, entry));
  };
  visit(root);
  return state;
}

/**
 * A node's workspace is a linked worktree of the user's repository (as dagent makes one per node,
 * under `.dagent/worktrees/`): its `.git` is a file leading into the repository's `.git`. git in
 * the sandbox reads through it; nothing in the repository's `.git` can be written from inside.
 */
describe.skipIf(!sandbox.available).each(PLACES)('git in a linked worktree, in the sandbox, the repository under %s', (place) => {
  let root: string;
  let repo: string;
  let worktree: string;
  let confinement: CommandConfinement;

  const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

  beforeEach(() => {
    root = realpathSync(mkdtempSync(join(place, 'dagent-worktree-git-')));
    repo = join(root, 'repo');
    mkdirSync(repo);
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'config', 'user.name', 'Test');
    git(repo, 'config', 'user.email', 'test@example.com');
    writeFileSync(join(repo, 'a.txt'), 'a\n');
    git(repo, 'add', 'a.txt');
    git(repo, 'commit', '-q', '-m', 'initial');
    worktree = join(repo, '.dagent', 'worktrees', 'r-1', 'wt-1');
    git(repo, 'worktree', 'add', '-q', '--detach', worktree);
    confinement = detectConfinement({ homes: [join(root, 'home')] });
  });

  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
  });

  /** Straight through the tool, past the command checker: what the sandbox alone allows. */
  async function run(command: string): Promise<string> {
    const tool = createRunCommandTool({ confinement, home: join(root, 'home') });
    const output = await tool.execute({ command, timeout_ms: 20_000 }, {
      runId: 'worktree-git',
      nodeId: null,
      toolCallId: 'worktree-git',
      workspace: await WorkspaceGuard.open(worktree),
      signal: new AbortController().signal,
      position: { turn: 1, step: 1 },
      session: undefined as unknown as Session,
    });
    return output.content;
  }

  it('reads the repository: status, diff and log work and see the change in the worktree', async () => {
    writeFileSync(join(worktree, 'a.txt'), 'a\nchanged\n');
    const output = await run('git status --short; echo "status=$?"; git diff; echo "diff=$?"; git log -1 --format=%s; echo "log=$?"');
    expect(output).toContain(' M a.txt');
    expect(output).toContain('+changed');
    expect(output).toMatch(/^initial$/m);
    expect(output).toMatch(/status=0[\s\S]*diff=0[\s\S]*log=0/);
    expect(output).not.toContain('not a git repository');
  });

  it("writes nothing of the repository's git: commit, update-ref, its config and hooks, the worktree's index all stay as they were", async () => {
    writeFileSync(join(worktree, 'a.txt'), 'a\nchanged\n');
    const common = join(repo, '.git');
    const before = snapshot(common);
    const head = git(repo, 'rev-parse', 'HEAD');
    const output = await run([
      'git commit -qam sneaky; echo "commit=$?"',
      'git update-ref refs/heads/evil HEAD; echo "update-ref=$?"',
      `echo '[core]' >> ${common}/config; echo "config=$?"`,
      `echo 'touch pwned' > ${common}/hooks/x; echo "hook=$?"`,
      `ln ${common}/config linked-config; echo "link=$?"`,
      'git add a.txt; echo "add=$?"',
    ].join('\n'));
    for (const step of ['commit', 'update-ref', 'config', 'hook', 'link', 'add']) expect(output).toMatch(new RegExp(`^${step}=[1-9]`, 'm'));
    // Refused because the folder is read-only, not because it is out of sight.
    expect(output.match(/Read-only file system/g)?.length).toBeGreaterThanOrEqual(5);
    expect(snapshot(common)).toEqual(before);
    expect(git(repo, 'rev-parse', 'HEAD')).toBe(head);
    expect(git(repo, 'for-each-ref', '--format=%(refname)')).toBe('refs/heads/main');
    expect(existsSync(join(worktree, 'linked-config'))).toBe(false);
  });
});
