import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EvalMode, EvalTask } from './eval-suite.js';
import { verifierReason } from './verifier-reason.js';

/** A run may take this long before it is stopped (its attempt fails). */
const RUN_TIME_LIMIT_MS = 30 * 60_000;
/** The verifier may take this long. */
const VERIFY_TIME_LIMIT_MS = 10 * 60_000;

export interface AttemptSetup {
  /** `node` and dagent's own bin script: each attempt is a child dagent process. */
  readonly command: readonly [string, string];
  readonly dbUrl: string;
  /** `PROVIDER:MODEL`, or null for each task's scripted model of the mode. */
  readonly model: string | null;
  readonly sandbox: boolean;
  readonly env: NodeJS.ProcessEnv;
}

export interface AttemptRun {
  readonly workspace: string;
  readonly runId: string | null;
  readonly exitCode: number | null;
  /** The child's last stderr line when it made no run (bad key, unknown model …). */
  readonly failure: string | null;
  readonly verifierExit: number | null;
  /** Why the verifier failed, in one line (its exit code and the line that names the error); null when it passed or did not run. */
  readonly verifierFailure: string | null;
  /** The files that differ from the fixture (git's view, before the verifier ran), or null without git. */
  readonly changedFiles: readonly string[] | null;
  /** Removes the workspace. */
  cleanup(): void;
}

interface Exit {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * One attempt: the task's fixture copied into a fresh workspace (a git repository with one
 * commit), the task run there by a child `dagent` (plan --yes, or react) with approvals on auto
 * against the evaluation's store, then the verifier run in that workspace.
 */
export async function runAttempt(setup: AttemptSetup, task: EvalTask, mode: EvalMode): Promise<AttemptRun> {
  const workspace = mkdtempSync(join(tmpdir(), `dagent-eval-${task.name}-`));
  cpSync(task.repo, workspace, { recursive: true });
  const tracked = await initRepository(workspace);
  const model = setup.model ?? `scripted:${task.scripts[mode]}`;
  const modeArgs = mode === 'plan' ? ['plan', task.task, '--yes', '--no-dashboard'] : ['react', task.task];
  const args = [setup.command[1], '-w', workspace, '--db', setup.dbUrl, '-m', model, '--approval', 'auto', '--json', ...(setup.sandbox ? [] : ['--no-sandbox']), ...modeArgs];
  const ran = await execute(setup.command[0], args, workspace, { ...setup.env, NO_COLOR: '1' }, RUN_TIME_LIMIT_MS);
  const runId = /"runId":"(r-[0-9a-f]+)"/.exec(ran.stdout)?.[1] ?? null;
  const changedFiles = tracked ? await gitChanges(workspace) : null;
  const verified = runId === null ? null : await execute('sh', ['-c', task.verify], workspace, { ...setup.env, DAGENT_EVAL_TASK_DIR: task.dir }, VERIFY_TIME_LIMIT_MS);
  return {
    workspace,
    runId,
    exitCode: ran.code,
    failure: runId === null ? (ran.stderr.trim().split('\n').at(-1) ?? `dagent exited with ${ran.code}`) : null,
    verifierExit: verified?.code ?? null,
    verifierFailure: verified === null || verified.code === 0 ? null : verifierFailure(verified),
    changedFiles,
    cleanup: () => rmSync(workspace, { recursive: true, force: true }),
  };
}

function verifierFailure(verified: Exit): string {
  const reason = verifierReason(verified.stdout, verified.stderr);
  const how = verified.code === null ? `the verifier was stopped (${VERIFY_TIME_LIMIT_MS / 60_000} min at most)` : `the verifier exited with ${verified.code}`;
  return reason === null ? how : `${how}: ${reason}`;
}

/** A git repository with the fixture as its first commit, so the run starts from a clean tree; without git it stays a plain folder. */
async function initRepository(workspace: string): Promise<boolean> {
  const git = (...args: string[]): Promise<Exit> => execute('git', ['-c', 'user.name=dagent eval', '-c', 'user.email=eval@dagent.invalid', ...args], workspace, process.env, 60_000);
  if ((await git('init', '-q')).code !== 0) return false;
  await git('add', '-A');
  return (await git('commit', '-q', '--no-verify', '-m', 'fixture')).code === 0;
}

/** Files added, changed or removed since the fixture's commit; dagent's own `.dagent/` folder is not the task's. */
async function gitChanges(workspace: string): Promise<string[] | null> {
  const status = await execute('git', ['status', '--porcelain=v1', '-z', '-uall', '--no-renames'], workspace, process.env, 60_000);
  if (status.code !== 0) return null;
  return status.stdout
    .split('\0')
    .filter((entry) => entry.length > 3)
    .map((entry) => entry.slice(3))
    .filter((path) => !path.startsWith('.dagent/'))
    .sort();
}

function execute(command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<Exit> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', (error) => resolve({ code: null, stdout, stderr: `${stderr}${error.message}\n` }));
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}
