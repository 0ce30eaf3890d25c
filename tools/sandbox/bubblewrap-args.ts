import { SANDBOX_PROXY_SOCKET, type SandboxPolicy } from './sandbox-policy.js';

/**
 * How far bubblewrap can shut a command in on this machine (found once by `detectSandbox`): a user
 * namespace of its own and no nested ones where the kernel and bwrap allow them, and the seccomp
 * filter where this architecture has one. Capabilities are always dropped.
 */
export interface BubblewrapConfinement {
  /** `--unshare-user`, with the uid and gid the command has inside (an unprivileged one when dagent is root). */
  readonly userNamespace?: { readonly uid: number; readonly gid: number };
  /** `--disable-userns`: the command cannot make user namespaces of its own (bwrap 0.8 and later). */
  readonly noNestedUserNamespaces?: boolean;
  /** The file descriptor bwrap reads the seccomp program from (`--seccomp FD`). */
  readonly seccompFd?: number;
}

/**
 * The `bwrap` arguments that confine one command (everything before the command itself). Pure.
 *
 * - The whole file system read-only, a private `/tmp` (tmpfs, gone with the command), a fresh
 *   `/dev` and `/proc`; then the workspace writable, its `.git` and `.dagent` read-only again (a
 *   separate mount, so a hard link into them fails too), an empty read-only folder where they do
 *   not exist yet (so a command cannot create them); a linked worktree's git folders visible and
 *   read-only (separate mounts too, even under the private `/tmp`); credential stores hidden.
 * - New user, PID, IPC and network namespaces: the command has no capabilities (`--cap-drop ALL`,
 *   even when dagent runs as root), sees only its own processes, and no network but its own
 *   loopback (where the allow-list bridge listens, when there is one). The seccomp filter refuses
 *   mount, namespace, ptrace and kernel-interface calls (see seccomp-filter.ts).
 * - `--die-with-parent`: when dagent dies, even by SIGKILL, every process of the command dies;
 *   `--new-session` keeps it off dagent's terminal. The PID namespace ends with its first process,
 *   so `setsid -f` or `nohup … &` inside cannot outlive the command.
 */
export function bubblewrapArgs(policy: SandboxPolicy, confinement: BubblewrapConfinement = {}): string[] {
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp'];
  for (const path of policy.visible ?? []) if (path.startsWith('/tmp/')) args.push('--ro-bind', path, path);
  // Read paths: over the private /tmp, under the workspace's own mount, so they can never make it read-only or writable.
  const [revealed, readPaths] = partition(policy.readPaths ?? [], (path) => policy.hidden.some((hidden) => isWithin(path, hidden.path)));
  for (const path of readPaths) args.push('--ro-bind-try', path, path);
  // A linked worktree's git folders, all read-only, the index in its admin folder too: a read-only
  // git command (`status`, `diff`, `log`) refreshes the index only when it can take the index's
  // lock and goes on without it, as in a plain workspace whose `.git` is read-only; and dagent
  // commits a node's change through that index (`git add -A`, outside the sandbox), so a writable
  // one would let a command stage other content or mark files skip-worktree to keep them out of
  // the commit. Those outside the workspace (or holding it) go under its mount, so they can never
  // make it read-only; one inside it goes over it, so the workspace's mount cannot make it writable.
  const [gitInside, gitAround] = partition(policy.gitFolders ?? [], (path) => isStrictlyWithin(path, policy.workspace));
  for (const path of gitAround) args.push('--ro-bind', path, path);
  args.push('--bind', policy.workspace, policy.workspace);
  for (const path of [...policy.readOnly, ...gitInside]) args.push('--ro-bind', path, path);
  for (const path of policy.placeholders ?? []) {
    if (policy.emptyFolder === undefined) args.push('--tmpfs', path, '--remount-ro', path);
    else args.push('--ro-bind', policy.emptyFolder, path);
  }
  for (const hidden of policy.hidden) {
    if (hidden.kind === 'directory') args.push('--tmpfs', hidden.path, '--remount-ro', hidden.path);
    else args.push('--ro-bind', '/dev/null', hidden.path);
  }
  // A credential store is shown only when a read path names it (or a path inside it) outright; still read-only.
  for (const path of revealed) args.push('--ro-bind-try', path, path);
  if (policy.network.kind === 'proxy-socket') args.push('--ro-bind', policy.network.socketPath, SANDBOX_PROXY_SOCKET);
  const user = confinement.userNamespace;
  if (user !== undefined) args.push('--unshare-user', '--uid', String(user.uid), '--gid', String(user.gid));
  if (user !== undefined && confinement.noNestedUserNamespaces === true) args.push('--disable-userns');
  args.push('--unshare-pid', '--unshare-ipc', '--unshare-net', '--unshare-uts', '--cap-drop', 'ALL', '--die-with-parent', '--new-session');
  if (confinement.seccompFd !== undefined) args.push('--seccomp', String(confinement.seccompFd));
  args.push('--setenv', 'TMPDIR', policy.tempDir, '--chdir', policy.workspace);
  return args;
}

function isWithin(path: string, folder: string): boolean {
  return path === folder || isStrictlyWithin(path, folder);
}

function isStrictlyWithin(path: string, folder: string): boolean {
  return path.startsWith(folder.endsWith('/') ? folder : `${folder}/`);
}

function partition<T>(items: readonly T[], test: (item: T) => boolean): [T[], T[]] {
  return [items.filter(test), items.filter((item) => !test(item))];
}
