import type { SandboxPolicy } from './sandbox-policy.js';

/**
 * A `sandbox-exec` profile (macOS Seatbelt) with the same promises as the bubblewrap sandbox:
 * reads everywhere except the credential stores, writes only in the workspace (not its `.git`
 * and `.dagent`, nor a linked worktree's git folders) and the private temp folder, no network
 * except the allow-list proxy's port on the loopback. Pure; the paths must be real paths
 * (`/private/var/…`, not `/var/…`).
 */
export function seatbeltProfile(policy: SandboxPolicy): string {
  const lines = [
    '(version 1)',
    '(deny default)',
    '(allow process-exec)',
    '(allow process-fork)',
    '(allow signal (target same-sandbox))',
    '(allow process-info* (target same-sandbox))',
    '(allow sysctl-read)',
    '(allow mach-lookup)',
    '(allow ipc-posix-shm)',
    '(allow ipc-posix-sem)',
    '(allow iokit-open)',
    '(allow file-read*)',
    `(allow file-write* (subpath ${quote(policy.workspace)}) (subpath ${quote(policy.tempDir)}) (literal "/dev/null") (literal "/dev/zero") (literal "/dev/stdout") (literal "/dev/stderr") (regex #"^/dev/fd/"))`,
  ];
  // A linked worktree's git folders are readable like every path; their writes are denied by name
  // too (for the reasons given in bubblewrap-args.ts), wherever they lie.
  for (const path of [...policy.readOnly, ...(policy.placeholders ?? []), ...(policy.gitFolders ?? [])]) lines.push(`(deny file-write* (subpath ${quote(path)}))`);
  for (const hidden of policy.hidden) {
    const filter = hidden.kind === 'directory' ? `(subpath ${quote(hidden.path)})` : `(literal ${quote(hidden.path)})`;
    lines.push(`(deny file-read* file-write* ${filter})`);
  }
  if (policy.network.kind === 'proxy-port') lines.push(`(allow network-outbound (remote tcp ${quote(`localhost:${policy.network.port}`)}))`);
  return `${lines.join('\n')}\n`;
}

function quote(text: string): string {
  return JSON.stringify(text);
}
