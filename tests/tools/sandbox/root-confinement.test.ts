import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Session } from '../../../engine/index.js';
import { WorkspaceGuard, createRunCommandTool, detectConfinement, detectSandbox, type CommandConfinement } from '../../../tools/index.js';

interface Escape {
  readonly id: string;
  readonly command: string;
}

const escapes = (JSON.parse(readFileSync(new URL('../../fixtures/root-escapes.json', import.meta.url), 'utf8')) as { commands: Escape[] }).commands;
const KEY = 'FAKE-KEY-FOR-THE-TEST';

/** Outside /tmp (the sandbox's /tmp is private, which would hide a canary there and pass for the wrong reason). */
function testRoot(): string {
  const base = existsSync('/var/tmp') ? '/var/tmp' : tmpdir();
  return realpathSync(mkdtempSync(join(base, 'dagent-confine-')));
}

const sandbox = detectSandbox();
const hasPython = spawnSync('python3', ['--version']).status === 0;

/**
 * Straight through the tool, past the command checker: what the sandbox alone holds, the way it must
 * when dagent runs as root (CI does) and a command slips past the checker.
 */
describe.skipIf(!sandbox.available)('a command in the sandbox, even when dagent runs as root', () => {
  let root: string;
  let workspace: string;
  let home: string;
  let canary: string;
  let confinement: CommandConfinement;

  beforeEach(() => {
    root = testRoot();
    workspace = join(root, 'workspace');
    home = join(root, 'home');
    canary = join(root, 'canary.txt');
    mkdirSync(workspace);
    mkdirSync(join(home, '.ssh'), { recursive: true });
    writeFileSync(join(home, '.ssh', 'id_rsa'), `${KEY}\n`);
    writeFileSync(canary, 'keep\n');
    confinement = detectConfinement({ homes: [home] });
  });

  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
  });

  async function run(command: string): Promise<string> {
    const tool = createRunCommandTool({ confinement, env: { ...process.env, HOME: home }, home });
    const output = await tool.execute({ command, timeout_ms: 20_000 }, {
      runId: 'confine',
      nodeId: null,
      toolCallId: 'confine',
      workspace: await WorkspaceGuard.open(workspace),
      signal: new AbortController().signal,
      position: { turn: 1, step: 1 },
      session: undefined as unknown as Session,
    });
    return output.content;
  }

  function expand(text: string): string {
    return text.replaceAll('{WS}', workspace).replaceAll('{CANARY_FILE}', canary).replaceAll('{HOME}', home).replaceAll('{ROOT}', root);
  }

  it('has no capabilities', async () => {
    const output = await run('grep ^CapEff: /proc/self/status; id -u');
    expect(output).toMatch(/CapEff:\s+0000000000000000/);
    if (process.getuid?.() === 0) expect(output).toMatch(/^65534$/m);
  });

  it('cannot unmount, remount or mount, nor enter other namespaces: nothing outside the workspace, in .git or .dagent changes', async () => {
    execFileSync('git', ['init', '-q', workspace]);
    mkdirSync(join(workspace, '.dagent'));
    writeFileSync(join(workspace, '.dagent', 'dagent.db'), 'the run log\n');
    const config = readFileSync(join(workspace, '.git', 'config'), 'utf8');
    const outputs: string[] = [];
    for (const escape of escapes) outputs.push(`${escape.id}: ${await run(expand(escape.command))}`);
    expect(readFileSync(canary, 'utf8')).toBe('keep\n');
    expect(readFileSync(join(workspace, '.git', 'config'), 'utf8')).toBe(config);
    expect(existsSync(join(workspace, '.dagent', 'planted'))).toBe(false);
    expect(existsSync(join(workspace, 'leaked.txt')) ? readFileSync(join(workspace, 'leaked.txt'), 'utf8') : '').not.toContain(KEY);
    expect(outputs.join('\n')).not.toContain(KEY);
  }, 60_000);

  it.skipIf(!hasPython)('is refused the mount and namespace calls by the kernel itself, not only by the tools', async () => {
    execFileSync('git', ['init', '-q', workspace]);
    copyFileSync(new URL('../../fixtures/sandbox-syscall-probe.py', import.meta.url), join(workspace, 'probe.py'));
    const output = await run(`python3 probe.py ${join(workspace, '.git')}`);
    const lines = output.split('\n').filter((line) => /^[a-z0-9-]+ (allowed|\d+)$/.test(line));
    expect(lines.map((line) => line.split(' ')[0])).toEqual(expect.arrayContaining(['umount2', 'umount2-protected', 'mount-remount-rw', 'mount-tmpfs', 'unshare-user', 'unshare-mount']));
    expect(lines.filter((line) => !line.endsWith(' 1'))).toEqual([]);
  });

  it('cannot plant a repository where there is none, nor create .dagent: no filter of its runs later', async () => {
    const output = await run(`git init -q . && git config filter.x.clean "touch ${canary}.filter" && echo '* filter=x' > .gitattributes; mkdir -p .dagent/x; echo "[$(ls -A)]"`);
    expect(existsSync(join(workspace, '.git'))).toBe(false);
    expect(existsSync(join(workspace, '.dagent'))).toBe(false);
    expect(output).not.toContain('Initialized');
  });

  it('cannot plant a repository in a workspace that is a folder of another repository', async () => {
    rmSync(workspace, { recursive: true });
    execFileSync('git', ['init', '-q', root]);
    mkdirSync(workspace);
    await run('git init -q .; git -C .. config core.fsmonitor "touch canary"; echo done');
    expect(existsSync(join(workspace, '.git'))).toBe(false);
    expect(readFileSync(join(root, '.git', 'config'), 'utf8')).not.toContain('fsmonitor');
  });
});
