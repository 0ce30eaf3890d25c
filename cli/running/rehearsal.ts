import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { approvePlan, createRun, errorMessage, savePlan, type Plan } from '../../engine/index.js';
import { CliContext } from '../context/cli-context.js';
import type { CliIo } from '../context/cli-io.js';
import { runApprovedPlan } from './run-plan.js';

export interface Rehearsal {
  readonly succeeded: boolean;
  readonly ms: number;
  /** Why it did not succeed. */
  readonly error?: string;
}

/**
 * The rehearsal's plan: two read nodes, one reading a file, and an edit after both that writes one
 * (their handoffs, a tool step, a snapshot and a checkpoint). Its scripted model answers at once.
 */
const REHEARSAL_PLAN: Plan = {
  goal: 'rehearse a node',
  rationale: 'a worker warms its node path before it takes jobs',
  nodes: [
    { id: 'look', kind: 'read', title: 'read the file', instructions: 'read notes.md and say what it holds', reads: ['notes.md'], writes: [], dependsOn: [] },
    { id: 'look-again', kind: 'read', title: 'look again', instructions: 'say what you see', reads: [], writes: [], dependsOn: [] },
    { id: 'change', kind: 'edit', title: 'write the file', instructions: 'write notes.ts from what the others found', reads: [], writes: ['notes.ts'], dependsOn: ['look', 'look-again'] },
  ],
};

const REHEARSAL_SCRIPT = {
  description: 'a worker rehearses its node path',
  contextWindow: 200_000,
  agents: {
    'node:look': [{ toolCalls: [{ id: 'look-read', name: 'read_file', args: { path: 'notes.md' } }] }, { text: 'notes.md holds one line' }],
    'node:look-again': [{ text: 'nothing more' }],
    'node:change': [{ toolCalls: [{ id: 'change-write', name: 'write_file', args: { path: 'notes.ts', content: 'export const notes = 1;\n' } }] }, { text: 'notes.ts written' }],
  },
};

/**
 * Runs a three-node plan in this process, with the scripted model, on an in-memory store in a new
 * temporary folder, and removes the folder: what a process's first nodes would otherwise pay for
 * running code for the first time (V8 runs it slowly until it has seen it run) is paid here. A
 * worker does this before it says it is ready: a fleet's first run then goes as its later ones do.
 *
 * Nothing of the user's is read or touched: the run's home, config and data folders are in the
 * temporary folder (no config file, so no hooks, MCP servers, memories or telemetry), its
 * environment holds only `PATH` of the caller's, and no command runs. The caller's interrupt stops it.
 * `under`: the folder the temporary folder is made in (the system's by default). One that has not
 * ended after `timeoutMs` (15 s) is told to stop and answered as failed.
 */
export async function rehearseNodePath(caller: Pick<CliIo, 'env' | 'interrupt'>, options: { readonly under?: string; readonly timeoutMs?: number } = {}): Promise<Rehearsal> {
  const started = performance.now();
  const timeoutMs = options.timeoutMs ?? REHEARSAL_TIMEOUT_MS;
  const stop = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  // A rehearsal that does not end (it never should) is told to stop, and not waited for.
  const late = new Promise<Rehearsal>((resolve) => {
    timer = setTimeout(() => {
      stop.abort(new Error('the rehearsal took too long'));
      resolve({ succeeded: false, ms: performance.now() - started, error: `it did not end within ${timeoutMs / 1000} s` });
    }, timeoutMs);
    timer.unref();
  });
  try {
    return await Promise.race([rehearse({ ...caller, interrupt: AbortSignal.any([caller.interrupt, stop.signal]) }, options.under, started), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** How long a worker waits for its rehearsal (some 0.1 s here) before it starts without. */
const REHEARSAL_TIMEOUT_MS = 15_000;

async function rehearse(caller: Pick<CliIo, 'env' | 'interrupt'>, under: string | undefined, started: number): Promise<Rehearsal> {
  let dir: string | undefined;
  let context: CliContext | undefined;
  try {
    dir = mkdtempSync(join(under ?? tmpdir(), 'dagent-rehearsal-'));
    const workspace = join(dir, 'workspace');
    mkdirSync(workspace);
    writeFileSync(join(workspace, 'notes.md'), 'one line\n');
    const script = join(dir, 'script.json');
    writeFileSync(script, JSON.stringify(REHEARSAL_SCRIPT));
    const sink = new PassThrough();
    sink.resume();
    const env: NodeJS.ProcessEnv = { HOME: dir, XDG_CONFIG_HOME: join(dir, 'config'), XDG_DATA_HOME: join(dir, 'data'), ...(caller.env.PATH === undefined ? {} : { PATH: caller.env.PATH }) };
    const io: CliIo = { stdout: sink, stderr: sink, stdin: new PassThrough(), env, cwd: workspace, interrupt: caller.interrupt };
    context = new CliContext(io, { workspace, db: ':memory:', model: `scripted:${script}`, approval: 'auto', sandbox: false });
    const { db } = await context.store();
    const run = await createRun(db, { task: REHEARSAL_PLAN.goal, workspace, mode: 'plan', config: {} });
    await savePlan(db, run.id, { plan: REHEARSAL_PLAN, reason: 'rehearsal', lint: [] });
    await approvePlan(db, run.id);
    const code = await runApprovedPlan(context, run.id, { dashboard: false });
    return code === 0 ? { succeeded: true, ms: performance.now() - started } : { succeeded: false, ms: performance.now() - started, error: `its run ended with exit ${code}` };
  } catch (error) {
    return { succeeded: false, ms: performance.now() - started, error: errorMessage(error) };
  } finally {
    await context?.close().catch(() => undefined);
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  }
}
