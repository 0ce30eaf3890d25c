import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DENIED_CALLS, detectSandbox, seccompProgram } from '../../../tools/index.js';

describe('the seccomp program', () => {
  it('is a whole number of BPF instructions, checks the architecture first, and exists only for known architectures', () => {
    const program = seccompProgram('x64')!;
    expect(program.length % 8).toBe(0);
    // ld [4] (the architecture), then jeq AUDIT_ARCH_X86_64
    expect(program.readUInt16LE(0)).toBe(0x20);
    expect(program.readUInt32LE(4)).toBe(4);
    expect(program.readUInt32LE(12)).toBe(0xc000003e);
    expect(seccompProgram('arm64')!.readUInt32LE(12)).toBe(0xc00000b7);
    expect(seccompProgram('s390x')).toBeUndefined();
    expect(DENIED_CALLS).toEqual(expect.arrayContaining(['mount', 'umount2', 'pivot_root', 'setns', 'unshare', 'ptrace', 'keyctl', 'bpf', 'open_by_handle_at']));
  });
});

const sandbox = detectSandbox();
const hasPython = spawnSync('python3', ['--version']).status === 0;

/** The filter alone, in a user namespace that keeps every capability (no `--cap-drop`): what it refuses by itself. */
describe.skipIf(!sandbox.available || !hasPython || seccompProgram() === undefined)('the seccomp filter on its own', () => {
  let workspace: string;

  beforeEach(() => {
    workspace = realpathSync(mkdtempSync(join(tmpdir(), 'dagent-seccomp-')));
    execFileSync('git', ['init', '-q', workspace]);
    copyFileSync(new URL('../../fixtures/sandbox-syscall-probe.py', import.meta.url), join(workspace, 'probe.py'));
  });

  afterEach(() => rmSync(workspace, { recursive: true, force: true }));

  function probe(withFilter: boolean): string {
    const program = sandbox.available ? sandbox.program : 'bwrap';
    const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--bind', workspace, workspace, '--ro-bind', join(workspace, '.git'), join(workspace, '.git')];
    args.push('--unshare-user', '--uid', '0', '--gid', '0', '--unshare-pid', '--die-with-parent', ...(withFilter ? ['--seccomp', '0'] : []));
    const result = spawnSync(program, [...args, 'python3', join(workspace, 'probe.py'), join(workspace, '.git')], { input: withFilter ? seccompProgram() : '', encoding: 'utf8' });
    return result.stdout;
  }

  it('refuses mount, umount2, unshare and fsopen with EPERM where the same sandbox without it allows them', () => {
    expect(probe(false)).toContain('mount-tmpfs allowed');
    const lines = probe(true).trim().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(6);
    expect(lines.filter((line) => !line.endsWith(' 1'))).toEqual([]);
  });
});
