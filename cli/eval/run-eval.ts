import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { ConfigError, DagentError, errorMessage, type Database } from '../../engine/index.js';
import { runAttempt, type AttemptSetup } from './eval-attempt.js';
import { measureRun } from './eval-measure.js';
import type { EvalProgress } from './eval-progress.js';
import { saveEvalResult, type EvalResult } from './eval-store.js';
import type { EvalMode, EvalSuite } from './eval-suite.js';

export interface EvalOptions {
  readonly db: Kysely<Database>;
  readonly suite: EvalSuite;
  readonly modes: readonly EvalMode[];
  readonly repeat: number;
  readonly label: string | null;
  readonly dagentVersion: string;
  readonly setup: AttemptSetup;
  /** Keep each attempt's workspace (its path is in the run's record) instead of removing it. */
  readonly keep: boolean;
  readonly progress: EvalProgress;
  readonly signal: AbortSignal;
}

/**
 * Every task in every mode, `repeat` times, one after the other: each attempt runs, is verified,
 * measured from its log and stored before the next begins. A child that made no run at all on the
 * first attempt (a missing key, an unknown model) stops the evaluation with its message.
 */
export async function runEval(options: EvalOptions): Promise<EvalResult[]> {
  const evalId = `e-${randomBytes(3).toString('hex')}`;
  const model = options.setup.model ?? 'scripted';
  const plan = options.suite.tasks.flatMap((task) => options.modes.flatMap((mode) => Array.from({ length: options.repeat }, (_, index) => ({ task, mode, repetition: index + 1 }))));
  for (const { task, mode } of plan) {
    if (options.setup.model === null && task.scripts[mode] === undefined) {
      throw new ConfigError(`eval task ${task.name} has no script.${mode}.json for an offline run: name a model with -m (e.g. -m deepseek:deepseek-chat)`);
    }
  }
  const results: EvalResult[] = [];
  for (const { task, mode, repetition } of plan) {
    if (options.signal.aborted) break;
    options.progress.starting(results.length, `${task.name} · ${mode} #${repetition}`);
    const attempt = await runAttempt(options.setup, task, mode);
    try {
      if (attempt.runId === null && results.length === 0 && attempt.exitCode === 2) throw new ConfigError(`eval: the first run could not start: ${attempt.failure ?? ''}`);
      const base = { evalId, suite: options.suite.name, label: options.label, model, dagentVersion: options.dagentVersion, task: task.name, mode, repetition, runId: attempt.runId, createdAt: new Date().toISOString() };
      const result: EvalResult = attempt.runId === null
        ? { ...base, ...NO_RUN, error: attempt.failure }
        : { ...base, ...(await measureRun(options.db, attempt.runId, attempt.workspace, attempt.changedFiles)), passed: attempt.verifierExit === 0, verifierExit: attempt.verifierExit, error: attempt.verifierFailure };
      await saveEvalResult(options.db, result);
      results.push(result);
      options.progress.finished(results.length, result);
    } catch (error) {
      if (error instanceof ConfigError) throw error;
      throw new DagentError(`eval: measuring ${task.name} (${mode}) failed: ${errorMessage(error)}`);
    } finally {
      if (!options.keep) attempt.cleanup();
    }
  }
  options.progress.end();
  return results;
}

const NO_RUN = {
  runStatus: 'not started',
  passed: false,
  verifierExit: null,
  tokens: { input: 0, output: 0, cacheHit: 0 },
  costUsd: 0,
  wallMs: null,
  criticalPath: [],
  criticalPathMs: null,
  plannedFiles: [],
  changedFiles: [],
  drift: null,
} as const;
