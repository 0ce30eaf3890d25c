import { SANDBOX_PROXY_SOCKET, type SandboxPolicy } from './sandbox-policy.js';

/**
 * The `bwrap` arguments that confine one command (everything before the command itself). Pure.
 *
 * - The whole file system read-only, a private `/tmp` (tmpfs, gone with the command), a fresh
 *   `/dev` and `/proc`; then the workspace writable, its `.git` and `.dagent` read-only again (a
 *   separate mount, so a hard link into them fails too); credential stores hidden.
 * - New PID, IPC and network namespaces: the command sees only its own processes, and no network
 *   but its own loopback (where the allow-list bridge listens, when there is one).
 * - `--die-with-parent`: when dagent dies, even by SIGKILL, every process of the command dies;
 *   `--new-session` keeps it off dagent's terminal. The PID namespace ends with its first process,
 *   so `setsid -f` or `nohup … &` inside cannot outlive the command.
 */
export function bubblewrapArgs(policy: SandboxPolicy): string[] {
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp'];
  for (const path of policy.visible ?? []) if (path.startsWith('/tmp/')) args.push('--ro-bind', path, path);
  args.push('--bind', policy.workspace, policy.workspace);
  for (const path of policy.readOnly) args.push('--ro-bind', path, path);
  for (const hidden of policy.hidden) {
    if (hidden.kind === 'directory') args.push('--tmpfs', hidden.path, '--remount-ro', hidden.path);
    else args.push('--ro-bind', '/dev/null', hidden.path);
  }
  if (policy.network.kind === 'proxy-socket') args.push('--ro-bind', policy.network.socketPath, SANDBOX_PROXY_SOCKET);
  args.push('--unshare-pid', '--unshare-ipc', '--unshare-net', '--unshare-uts', '--die-with-parent', '--new-session');
  args.push('--setenv', 'TMPDIR', policy.tempDir, '--chdir', policy.workspace);
  return args;
}
