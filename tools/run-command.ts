import { existsSync } from 'node:fs';
import { homedir, hostname, tmpdir } from 'node:os';
import { processStartTime } from '../engine/index.js';
import { execa } from 'execa';
import { z } from 'zod';
import { checkCommand, type CommandCheckOptions } from './command-check/index.js';
import { CommandSandbox, READ_ONLY_GIT_CONFIG, gitConfigEnvironment, scrubEnvironment, type SandboxedCommand, type SandboxStatus } from './sandbox/index.js';
import { defineTool, loadToolDescription, type Assessment, type Tool, type ToolContext, type ToolOutput } from './define-tool.js';
import { canWatchClaims, feedClaimWatchdog, underClaimWatchdog, type SpawnedCommand } from './claim-watchdog.js';
import { OutputCapture } from './output-capture.js';
import { KILL_GRACE_MS, killProcessGroup } from './process-group.js';
import { ToolError } from './tool-errors/index.js';

export const DEFAULT_COMMAND_TIMEOUT_MS = 120_000;
export const MAX_COMMAND_TIMEOUT_MS = 600_000;
/** Bytes kept from the start and from the end of each output stream. */
export const COMMAND_OUTPUT_HEAD_BYTES = 12 * 1024;
export const COMMAND_OUTPUT_TAIL_BYTES = 12 * 1024;
/** Extra time the runtime allows beyond the command's own timeout, for stopping it. */
const RUNTIME_DEADLINE_MARGIN_MS = KILL_GRACE_MS + 5_000;

const runCommandArgs = z.strictObject({
  command: z.string().min(1).describe('the shell command line to run in the workspace folder'),
  timeout_ms: z.number().int().min(1).max(MAX_COMMAND_TIMEOUT_MS).optional().describe(`time limit in milliseconds (default ${DEFAULT_COMMAND_TIMEOUT_MS})`),
});

export type RunCommandArgs = z.output<typeof runCommandArgs>;

/**
 * Where commands run: in the OS sandbox; without one because the user said so (`--no-sandbox`);
 * or without one because the machine has none (then, under `auto`, only commands the checker
 * proves read-only run, and the refusal says how to get the sandbox).
 */
export type CommandConfinement =
  | { readonly kind: 'sandbox'; readonly sandbox: CommandSandbox }
  | { readonly kind: 'disabled' }
  | { readonly kind: 'unavailable'; readonly status: Extract<SandboxStatus, { available: false }> };

export interface RunCommandToolOptions {
  /** The shell that runs the command line; bash when present, else sh. */
  readonly shell?: string;
  /** Where the command's environment comes from (the process's by default); only allow-listed variables pass. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** More variable names commands may inherit (config `sandbox.env`). */
  readonly allowEnv?: readonly string[];
  /** The machine's sandbox (detected when absent), or none. */
  readonly confinement?: CommandConfinement;
  /** What `~` means to the command checker. */
  readonly home?: string;
  /** Temp folders, where making something new directly in one is only risky (default: the system temp folder and /tmp); what exists there is outside. */
  readonly scratchDirectories?: readonly string[];
  readonly defaultTimeoutMs?: number;
}

/** The confinement of this machine: its OS sandbox when it has one. */
export function detectConfinement(
  options: { readonly homes?: readonly string[]; readonly allowHosts?: readonly string[]; readonly allowPorts?: readonly number[]; readonly readPaths?: readonly string[]; readonly bwrapPath?: string } = {},
): CommandConfinement {
  const homes = options.homes ?? [homedir()];
  const opened = CommandSandbox.open({
    homes,
    ...(options.allowHosts === undefined ? {} : { allowHosts: options.allowHosts }),
    ...(options.allowPorts === undefined ? {} : { allowPorts: options.allowPorts }),
    ...(options.readPaths === undefined ? {} : { readPaths: options.readPaths }),
    ...(options.bwrapPath === undefined ? {} : { bwrapPath: options.bwrapPath }),
  });
  return opened instanceof CommandSandbox ? { kind: 'sandbox', sandbox: opened } : { kind: 'unavailable', status: opened };
}

/**
 * The `run_command` tool: the command checker judges it (the first gate), then it runs in the OS
 * sandbox, detached in its own process group, with a scrubbed environment.
 */
export function createRunCommandTool(options: RunCommandToolOptions = {}): Tool<RunCommandArgs> {
  const settings = commandSettings(options);
  return defineTool({
    name: 'run_command',
    description: loadToolDescription(import.meta.url, 'run-command.md'),
    args: runCommandArgs,
    risk: 'command',
    timeoutMs: (args) => settings.timeoutOf(args) + RUNTIME_DEADLINE_MARGIN_MS,
    summarize: (args) => `run_command ${args.command.length > 300 ? `${args.command.slice(0, 300)}…` : args.command}`,
    assess: (args, context) => assessCommand(settings, args.command, context.workspace.realRoot),
    execute: (args, context) => executeCommand(settings, args, context),
  });
}

/** What every call of one `run_command` tool shares. */
interface CommandSettings {
  readonly shell: string;
  readonly env: Record<string, string>;
  /** The confinement, detected on first use when the options did not give one. */
  readonly confinement: () => CommandConfinement;
  readonly checkOptions: (workspace: string) => CommandCheckOptions;
  readonly timeoutOf: (args: RunCommandArgs) => number;
}

function commandSettings(options: RunCommandToolOptions): CommandSettings {
  const sourceEnv = options.env ?? process.env;
  const home = options.home ?? homedir();
  const homes = [...new Set([home, homedir(), ...(sourceEnv.HOME === undefined ? [] : [sourceEnv.HOME])])];
  let confinement = options.confinement;
  const scratchDirectories = options.scratchDirectories ?? [...new Set([tmpdir(), '/tmp'])];
  const defaultTimeoutMs = options.defaultTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
  return {
    shell: options.shell ?? (existsSync('/bin/bash') ? '/bin/bash' : '/bin/sh'),
    env: scrubEnvironment(sourceEnv, options.allowEnv),
    confinement: () => (confinement ??= detectConfinement({ homes })),
    checkOptions: (workspace) => ({ workspace, home, scratchDirectories }),
    timeoutOf: (args) => Math.min(args.timeout_ms ?? defaultTimeoutMs, MAX_COMMAND_TIMEOUT_MS),
  };
}

/**
 * The checker's verdict; without a sandbox, a command it cannot prove read-only says how to get
 * one, and a command whose text does not show what it runs (`$x -rf DIR`, `sh <<< "…"`, an
 * unparseable line) is refused under every policy: nothing vouches for it.
 */
function assessCommand(settings: CommandSettings, command: string, workspace: string): Assessment {
  const verdict = checkCommand(command, settings.checkOptions(workspace));
  const current = settings.confinement();
  if (current.kind !== 'sandbox' && verdict.opaque !== undefined && verdict.class !== 'dangerous') {
    return { level: 'dangerous', reason: opaqueUnconfined(verdict.opaque, current) };
  }
  const unconfined =
    current.kind === 'unavailable' && verdict.class === 'risky'
      ? `no OS sandbox on this machine (${current.status.reason}), and the command checker cannot prove this command read-only; ${current.status.fix}, or pass --no-sandbox to run commands unconfined`
      : undefined;
  return {
    level: verdict.class,
    reason: verdict.reasons.join('; '),
    ...(verdict.remote === undefined ? {} : { remote: verdict.remote }),
    ...(unconfined === undefined ? {} : { unconfined }),
  };
}

function opaqueUnconfined(reasons: readonly string[], confinement: Exclude<CommandConfinement, { kind: 'sandbox' }>): string {
  const why = confinement.kind === 'disabled' ? 'the sandbox is off (--no-sandbox or sandbox.enabled: false)' : `there is no OS sandbox on this machine (${confinement.status.reason})`;
  const sandbox = confinement.kind === 'disabled' ? 'run with the sandbox on' : confinement.status.fix;
  return `${reasons.join('; ')}, and ${why}, so nothing can vouch for what it runs. Next: write the command out with a literal command name and its script inline (\`bash -c '…'\` with the commands spelled out), or ${sandbox}`;
}

async function executeCommand(settings: CommandSettings, args: RunCommandArgs, context: ToolContext): Promise<ToolOutput> {
  const timeoutMs = settings.timeoutOf(args);
  const stdout = new OutputCapture(COMMAND_OUTPUT_HEAD_BYTES, COMMAND_OUTPUT_TAIL_BYTES);
  const stderr = new OutputCapture(COMMAND_OUTPUT_HEAD_BYTES, COMMAND_OUTPUT_TAIL_BYTES);
  const workspace = context.workspace.realRoot;
  const current = settings.confinement();
  const wrapped = await wrapCommand(settings, current, args.command, workspace);
  // A node a worker runs under a claim: the command dies before the claim can pass to another
  // worker, even if this process is paused or cut off (a watchdog in its process group).
  const claim = context.writeScope?.claim;
  if (claim !== undefined && claim.remainingMs() === 0) throw new ToolError("the node's claim has run out on this worker: the command was not started");
  // What the command may change is found by comparing the workspace with how it was before it.
  await context.writeScope?.beforeCommand?.();
  const watched = claim !== undefined && canWatchClaims() ? underClaimWatchdog(wrapped, claim) : undefined;
  const subprocess = spawnDetached(watched ?? wrapped, wrapped, workspace, watched !== undefined);
  // Read from the start, before anything is awaited: the output streams flow as soon as the
  // command runs, and what a fast command wrote while its start was being recorded was lost.
  subprocess.stdout?.on('data', (chunk: Buffer) => stdout.push(chunk));
  subprocess.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
  const stopper = stopWhenDue(subprocess, timeoutMs, context.signal);
  if (subprocess.pid !== undefined && context.session !== undefined) {
    // Recorded before the command can do anything lasting, so a resume can find it if dagent dies.
    await recordCommandStart(context, subprocess.pid, current.kind === 'sandbox').catch((error: unknown) => {
      stopper.dispose();
      throw error;
    });
  }
  const unwatch = watched !== undefined && claim !== undefined && subprocess.stdin !== null ? feedClaimWatchdog(subprocess.stdin, claim) : () => undefined;
  try {
    const result = await subprocess;
    await Promise.all(stopper.stopping);
    if (result.failed && result.exitCode === undefined && result.signal === undefined && stopper.stopped() === undefined) {
      throw new ToolError(`the command could not be started: ${result.shortMessage}`);
    }
    const sandbox = current.kind === 'sandbox' ? current.sandbox.kind : 'none';
    return renderCommandResult({ exitCode: result.exitCode, signal: result.signal, stopped: stopper.stopped(), timeoutMs, stdout, stderr, sandbox });
  } finally {
    unwatch();
    wrapped.cleanup();
    stopper.dispose();
  }
}

/** The command line as the confinement runs it: inside the sandbox, or straight through the shell. */
async function wrapCommand(settings: CommandSettings, confinement: CommandConfinement, command: string, workspace: string): Promise<SandboxedCommand> {
  const readOnly = checkCommand(command, settings.checkOptions(workspace)).class === 'safe';
  const env = readOnly ? { ...settings.env, ...gitConfigEnvironment(READ_ONLY_GIT_CONFIG) } : settings.env;
  return confinement.kind === 'sandbox'
    ? await confinement.sandbox.wrap({ workspace, shell: settings.shell, command, env })
    : { file: settings.shell, args: ['-c', command], env, cleanup: () => undefined };
}

/** Started in its own process group, so stopping it stops everything it started. */
function spawnDetached(command: SpawnedCommand, wrapped: SandboxedCommand, workspace: string, watched: boolean) {
  return execa(command.file, command.args, {
    cwd: workspace,
    env: wrapped.env,
    extendEnv: false,
    detached: true,
    reject: false,
    stdio: commandStdio(watched ? 'pipe' : 'ignore', wrapped.extraInput),
    buffer: false,
    stripFinalNewline: false,
    windowsHide: true,
  });
}

/** stdin, piped stdout and stderr, and the sandbox's extra input (the seccomp program) on its own descriptor. */
function commandStdio(stdin: 'ignore' | 'pipe', extra: SandboxedCommand['extraInput']): ['ignore' | 'pipe', 'pipe', 'pipe', ...('ignore' | Uint8Array)[]] {
  const rest: ('ignore' | Uint8Array)[] = [];
  if (extra !== undefined) {
    while (rest.length + 3 < extra.fd) rest.push('ignore');
    rest.push(extra.data);
  }
  return [stdin, 'pipe', 'pipe', ...rest];
}

async function recordCommandStart(context: ToolContext, pid: number, sandboxed: boolean): Promise<void> {
  await context.session.append({
    type: 'command/started',
    turn: context.position.turn,
    step: context.position.step,
    payload: { toolCallId: context.toolCallId, pid, host: hostname(), startTime: processStartTime(pid), sandboxed },
  });
}

interface RunningCommand {
  readonly pid?: number | undefined;
  once(event: 'exit', listener: () => void): unknown;
}

/**
 * Stops the command's process group when its time is up or the call is aborted, and, once the
 * shell exits, whatever it left running in the background (which would hold the output pipes
 * open). `stopping` holds the kills under way; `dispose` drops the timer and the abort listener.
 */
export function stopWhenDue(subprocess: RunningCommand, timeoutMs: number, signal: AbortSignal) {
  let stopped: 'timeout' | 'aborted' | undefined;
  const stopping: Promise<void>[] = [];
  const stop = (why: 'timeout' | 'aborted'): void => {
    if (stopped !== undefined || subprocess.pid === undefined) return;
    stopped = why;
    stopping.push(killProcessGroup(subprocess.pid));
  };
  const timer = setTimeout(() => stop('timeout'), timeoutMs);
  const onAbort = (): void => stop('aborted');
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  subprocess.once('exit', () => {
    if (subprocess.pid !== undefined && stopped === undefined) stopping.push(killProcessGroup(subprocess.pid));
  });
  return {
    stopping,
    stopped: (): 'timeout' | 'aborted' | undefined => stopped,
    dispose(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    },
  };
}

interface CommandEnd {
  readonly exitCode: number | undefined;
  readonly signal: string | undefined;
  readonly stopped: 'timeout' | 'aborted' | undefined;
  readonly timeoutMs: number;
  readonly stdout: OutputCapture;
  readonly stderr: OutputCapture;
  readonly sandbox: string;
}

const ANSI_ESCAPES = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g;

function renderCommandResult(end: CommandEnd): { content: string; outcome: 'ok' | 'error' | 'timeout' | 'aborted'; meta: Record<string, unknown> } {
  const headline =
    end.stopped === 'timeout'
      ? `timed out after ${end.timeoutMs} ms: the command and every process it started were stopped`
      : end.stopped === 'aborted'
        ? 'aborted: the run was cancelled; the command and every process it started were stopped'
        : end.exitCode !== undefined
          ? `exit code ${end.exitCode}`
          : `killed by signal ${end.signal ?? 'unknown'}`;
  const sections = [headline];
  const out = end.stdout.text().replace(ANSI_ESCAPES, '');
  const err = end.stderr.text().replace(ANSI_ESCAPES, '');
  if (out !== '') sections.push(`--- stdout ---\n${out.replace(/\n$/, '')}`);
  if (err !== '') sections.push(`--- stderr ---\n${err.replace(/\n$/, '')}`);
  if (out === '' && err === '') sections.push('(no output)');
  const outcome = end.stopped ?? (end.exitCode === 0 ? 'ok' : 'error');
  return {
    content: sections.join('\n'),
    outcome,
    meta: {
      exitCode: end.exitCode ?? null,
      sandbox: end.sandbox,
      signal: end.signal ?? null,
      timedOut: end.stopped === 'timeout',
      stdoutBytes: end.stdout.totalBytes,
      stderrBytes: end.stderr.totalBytes,
      truncated: end.stdout.omittedBytes + end.stderr.omittedBytes > 0,
      originalLength: end.stdout.totalBytes + end.stderr.totalBytes,
    },
  };
}
