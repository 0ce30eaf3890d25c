import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa, type Options } from 'execa';
import { stopWhenDue, type CommandConfinement } from '../run-command.js';
import { OutputCapture } from '../output-capture.js';
import type { SandboxedCommand } from '../sandbox/index.js';

/** Bytes kept of each stream of a hook, head and tail (the log and the model get at most this). */
export const HOOK_OUTPUT_HEAD_BYTES = 4 * 1024;
export const HOOK_OUTPUT_TAIL_BYTES = 2 * 1024;

export interface HookCommand {
  readonly command: string;
  /** The node's workspace: the hook's folder, and the only place it may write. */
  readonly workspace: string;
  /** The JSON document the hook reads on stdin. */
  readonly stdin: string;
  readonly timeoutMs: number;
  readonly confinement: CommandConfinement;
  readonly shell: string;
  readonly env: Readonly<Record<string, string>>;
  readonly signal: AbortSignal;
}

export interface HookCommandEnd {
  /** Null when it did not start, was killed by a signal, or was stopped. */
  readonly exitCode: number | null;
  readonly timedOut: boolean;
  readonly stdout: string;
  readonly stderr: string;
  readonly durationMs: number;
  readonly sandbox: string;
  /** Why it did not run or did not end by itself, in one line. */
  readonly error?: string;
}

/**
 * Runs one hook command the way `run_command` runs commands: in the OS sandbox (or unconfined
 * when the user turned the sandbox off), detached in its own process group, with the scrubbed
 * environment, its input on stdin. A hook past its time, or aborted, is stopped with every
 * process it started. On a machine without a sandbox it does not run: an error, not a block.
 */
export async function runHookCommand(hook: HookCommand): Promise<HookCommandEnd> {
  const started = performance.now();
  const elapsed = (): number => Math.max(0, Math.round(performance.now() - started));
  if (hook.confinement.kind === 'unavailable') {
    const { reason, fix } = hook.confinement.status;
    return { exitCode: null, timedOut: false, stdout: '', stderr: '', durationMs: 0, sandbox: 'none', error: `not run: no OS sandbox on this machine (${reason}); ${fix}, or pass --no-sandbox` };
  }
  const sandbox = hook.confinement.kind === 'sandbox' ? hook.confinement.sandbox.kind : 'none';
  const wrapped: SandboxedCommand =
    hook.confinement.kind === 'sandbox'
      ? await hook.confinement.sandbox.wrap({ workspace: hook.workspace, shell: hook.shell, command: hook.command, env: hook.env })
      : { file: hook.shell, args: ['-c', hook.command], env: hook.env, cleanup: () => undefined };
  const stdout = new OutputCapture(HOOK_OUTPUT_HEAD_BYTES, HOOK_OUTPUT_TAIL_BYTES);
  const stderr = new OutputCapture(HOOK_OUTPUT_HEAD_BYTES, HOOK_OUTPUT_TAIL_BYTES);
  const input = eventFile(hook.stdin);
  const subprocess = execa(wrapped.file, wrapped.args, {
    cwd: hook.workspace,
    env: wrapped.env,
    extendEnv: false,
    detached: true,
    reject: false,
    stdio: hookStdio(input.fd, wrapped.extraInput),
    buffer: false,
    stripFinalNewline: false,
    windowsHide: true,
  });
  subprocess.stdout?.on('data', (chunk: Buffer) => stdout.push(chunk));
  subprocess.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
  const stopper = stopWhenDue(subprocess, hook.timeoutMs, hook.signal);
  try {
    const result = await subprocess;
    await Promise.all(stopper.stopping);
    const stopped = stopper.stopped();
    const base = { stdout: stdout.text(), stderr: stderr.text(), durationMs: elapsed(), sandbox };
    if (stopped !== undefined) {
      return { ...base, exitCode: null, timedOut: stopped === 'timeout', error: stopped === 'timeout' ? `did not finish within ${hook.timeoutMs} ms and was stopped` : 'stopped: the run was cancelled' };
    }
    if (result.exitCode === undefined) {
      return { ...base, exitCode: null, timedOut: false, error: result.signal === undefined ? `could not be started: ${result.shortMessage}` : `killed by signal ${result.signal}` };
    }
    return { ...base, exitCode: result.exitCode, timedOut: false };
  } finally {
    stopper.dispose();
    wrapped.cleanup();
    input.close();
  }
}

/**
 * The event in a private temporary file, opened for the hook's stdin: a file, not a pipe, so a
 * hook that does not read it never blocks or breaks on it, and bash does not take a socket on
 * stdin for a remote shell (which makes it read ~/.bashrc). The file is gone once the hook ends.
 */
function eventFile(text: string): { readonly fd: number; close(): void } {
  const folder = mkdtempSync(join(tmpdir(), 'dagent-hook-'));
  const path = join(folder, 'event.json');
  writeFileSync(path, text, { mode: 0o600 });
  const fd = openSync(path, 'r');
  return {
    fd,
    close: () => {
      closeSync(fd);
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

/** stdin from the event's file, stdout and stderr piped, the sandbox's extra input on its own descriptor. */
function hookStdio(stdin: number, extra: SandboxedCommand['extraInput']): Options['stdio'] {
  const rest: ('ignore' | Uint8Array)[] = [];
  if (extra !== undefined) {
    while (rest.length + 3 < extra.fd) rest.push('ignore');
    rest.push(extra.data);
  }
  // A descriptor number goes to the child as it is (execa creates no stream for it); its types only list it for `stdin`.
  return [stdin, 'pipe', 'pipe', ...rest] as unknown as Options['stdio'];
}
