import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import type { CommandSandbox } from './command-sandbox.js';

/** One check made from inside the sandbox: what was tried, whether the sandbox held, what was seen. */
export interface SandboxProbe {
  readonly name: string;
  readonly held: boolean;
  readonly detail: string;
}

/**
 * Each line the script prints is `name held|broken detail`. On Linux it reads the command's
 * capabilities and seccomp mode, tries a mount, a new mount namespace and a new user namespace
 * (`unshare` calls the kernel directly, whoever runs it), then, everywhere, tries to create `.git`
 * in a workspace that has none and to write beside the workspace.
 */
const PROBE_SCRIPT = [
  'ws=$1; outside=$2',
  'check() { name=$1; shift; if "$@" >/dev/null 2>&1; then echo "$name broken allowed: $*"; else echo "$name held refused: $*"; fi; }',
  'if [ -r /proc/self/status ]; then',
  '  cap=$(sed -n "s/^CapEff:[[:space:]]*//p" /proc/self/status)',
  '  case "$cap" in *[1-9a-f]*) echo "capabilities broken CapEff $cap";; *) echo "capabilities held CapEff $cap (none)";; esac',
  '  mode=$(sed -n "s/^Seccomp:[[:space:]]*//p" /proc/self/status)',
  '  if [ "$mode" = 2 ]; then echo "seccomp held filter loaded (Seccomp: 2)"; else echo "seccomp broken no filter (Seccomp: ${mode:-?})"; fi',
  '  check mount mount -t tmpfs dagent-probe "$ws"',
  '  check mount-namespace unshare --mount true',
  '  check user-namespace unshare --user true',
  'fi',
  'check create-.git mkdir "$ws/.git"',
  'check write-outside touch "$outside/probe"',
].join('\n');

/** Runs the probe script in `sandbox` (in a fresh temporary workspace) and returns what each check saw. */
export async function probeSandbox(sandbox: CommandSandbox, options: { readonly withSeccomp: boolean }): Promise<SandboxProbe[]> {
  // Not under /tmp where it can be helped: bubblewrap's private /tmp would take a write beside the workspace there for a write outside.
  const base = process.platform === 'linux' && existsSync('/var/tmp') ? '/var/tmp' : tmpdir();
  const root = realpathSync(mkdtempSync(join(base, 'dagent-probe-')));
  const workspace = join(root, 'workspace');
  try {
    mkdirSync(workspace);
    const wrapped = await sandbox.wrap({ workspace, shell: '/bin/sh', command: `${PROBE_SCRIPT}\n`, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
    const stdio: ['ignore', 'pipe', 'pipe', ...('ignore' | Uint8Array)[]] = ['ignore', 'pipe', 'pipe'];
    if (wrapped.extraInput !== undefined) {
      while (stdio.length < wrapped.extraInput.fd) stdio.push('ignore');
      stdio.push(wrapped.extraInput.data);
    }
    // `sh -c SCRIPT` takes its arguments after the script's own name: bwrap's command line ends with `-c SCRIPT`.
    const result = await execa(wrapped.file, [...wrapped.args, 'dagent-probe', workspace, root], { env: wrapped.env, extendEnv: false, reject: false, stdio, timeout: 20_000 });
    wrapped.cleanup();
    const probes = String(result.stdout).split('\n').flatMap(parseLine).map((probe) => ({ ...probe, detail: probe.detail.replaceAll(workspace, '<workspace>').replaceAll(root, '<beside the workspace>') }));
    if (probes.length === 0) return [{ name: 'sandbox', held: false, detail: `the probe did not run: ${String(result.stderr).trim().split('\n')[0] ?? `exit ${result.exitCode}`}` }];
    return options.withSeccomp ? probes : probes.filter((probe) => probe.name !== 'seccomp' || probe.held);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

function parseLine(line: string): SandboxProbe[] {
  const match = /^(\S+) (held|broken) (.*)$/.exec(line.trim());
  return match === null ? [] : [{ name: match[1]!, held: match[2] === 'held', detail: match[3]! }];
}
