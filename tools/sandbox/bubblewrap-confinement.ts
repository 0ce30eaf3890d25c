import { spawnSync } from 'node:child_process';
import type { BubblewrapConfinement } from './bubblewrap-args.js';
import { seccompProgram } from './seccomp-filter.js';

/** What `detectSandbox` found bubblewrap can do here; `seccomp` says the filter is loaded into every command. */
export interface BubblewrapLevel {
  readonly userNamespace?: { readonly uid: number; readonly gid: number };
  readonly noNestedUserNamespaces: boolean;
  readonly seccomp: boolean;
}

/** The uid and gid a command has inside its user namespace when dagent runs as root: `nobody`. */
const UNPRIVILEGED_ID = 65534;
/** Where bwrap finds the seccomp program of a real command (a pipe dagent writes it to): above the shell's usual 0–2 and the claim watchdog's 3. */
export const SECCOMP_FD = 9;

/**
 * Tries bubblewrap with the strongest confinement first, then weaker ones (some kernels or
 * containers refuse a nested user namespace, an old bwrap lacks `--disable-userns`), and returns
 * the first that starts, or the first failure's message. Every level drops all capabilities.
 */
export function findBubblewrapLevel(program: string): { level: BubblewrapLevel } | { error: string } {
  // What bubblewrap could do here stays so for this process: each probe is a few sandboxes
  // started and waited for on the one thread (a worker composes a runtime for every run). A
  // failed probe is tried again next time: the machine may have been fixed meanwhile.
  const known = startedLevels.get(program);
  if (known !== undefined) return { level: known };
  const found = probeLevels(program);
  if ('level' in found) startedLevels.set(program, found.level);
  return found;
}

/** The level each bubblewrap program started a sandbox at, in this process. */
const startedLevels = new Map<string, BubblewrapLevel>();

function probeLevels(program: string): { level: BubblewrapLevel } | { error: string } {
  const self = typeof process.getuid === 'function' ? { uid: process.getuid(), gid: process.getgid?.() ?? process.getuid() } : undefined;
  const inside = self === undefined || self.uid === 0 ? { uid: UNPRIVILEGED_ID, gid: UNPRIVILEGED_ID } : self;
  const seccomp = seccompProgram() !== undefined;
  const candidates: BubblewrapLevel[] = [
    { userNamespace: inside, noNestedUserNamespaces: true, seccomp },
    { userNamespace: inside, noNestedUserNamespaces: false, seccomp },
    { noNestedUserNamespaces: false, seccomp },
  ];
  let firstError: string | undefined;
  for (const level of candidates) {
    const error = tryLevel(program, level);
    if (error === undefined) return { level };
    firstError ??= error;
  }
  return { error: firstError ?? 'bubblewrap did not start' };
}

/** The `BubblewrapConfinement` of a level, with the seccomp program read from `fd`. */
export function confinementOf(level: BubblewrapLevel, fd: number): BubblewrapConfinement {
  return {
    ...(level.userNamespace === undefined ? {} : { userNamespace: level.userNamespace }),
    noNestedUserNamespaces: level.noNestedUserNamespaces,
    ...(level.seccomp ? { seccompFd: fd } : {}),
  };
}

function tryLevel(program: string, level: BubblewrapLevel): string | undefined {
  const confinement = confinementOf(level, 0);
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'];
  if (confinement.userNamespace !== undefined) args.push('--unshare-user', '--uid', String(confinement.userNamespace.uid), '--gid', String(confinement.userNamespace.gid));
  if (confinement.userNamespace !== undefined && confinement.noNestedUserNamespaces === true) args.push('--disable-userns');
  args.push('--unshare-pid', '--unshare-net', '--cap-drop', 'ALL', '--die-with-parent');
  // The probe reads the program from its stdin (fd 0); real commands get it on SECCOMP_FD.
  if (confinement.seccompFd !== undefined) args.push('--seccomp', '0');
  const probe = spawnSync(program, [...args, 'true'], { encoding: 'utf8', timeout: 10_000, input: seccompProgram() ?? '' });
  if (probe.status === 0) return undefined;
  return (probe.stderr || probe.error?.message || `exit ${probe.status}`).trim().split('\n')[0];
}
