import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../../engine/index.js';

/** How a task is attempted: the plan-and-execute engine, or one ReAct agent as the baseline. */
export type EvalMode = 'plan' | 'react';
export const EVAL_MODES: readonly EvalMode[] = ['plan', 'react'];

/** One task of a suite: a repository fixture, the task text and the command that says whether it was done. */
export interface EvalTask {
  readonly name: string;
  readonly dir: string;
  /** The fixture copied into a fresh workspace for every attempt. */
  readonly repo: string;
  readonly task: string;
  /** A shell command run in the workspace after the run; exit 0 passes. `DAGENT_EVAL_TASK_DIR` names the task's folder. */
  readonly verify: string;
  /** The scripted model file for each mode (`script.plan.json`, `script.react.json`), when the task ships one. */
  readonly scripts: Readonly<Partial<Record<EvalMode, string>>>;
}

export interface EvalSuite {
  readonly name: string;
  readonly dir: string;
  readonly tasks: readonly EvalTask[];
}

const TASK_FILE = 'task.json';
const taskSchema = z.object({ task: z.string().trim().min(1), verify: z.string().trim().min(1) });

/**
 * A suite is a folder of tasks; each task is a folder holding `task.json` (`task`, `verify`), the
 * fixture in `repo/`, and optionally `script.plan.json` / `script.react.json` for offline runs. A
 * task's own folder is a suite of one.
 */
export function loadSuite(folder: string): EvalSuite {
  const dir = resolve(folder);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new ConfigError(`eval suite ${folder} is not a folder: name a folder of tasks, e.g. dagent eval examples/eval`);
  // One task's own folder is a suite of that task.
  if (existsSync(join(dir, TASK_FILE))) {
    const name = dir.split(/[\\/]/).at(-1) ?? dir;
    return { name, dir, tasks: [loadTask(dir, name)] };
  }
  const tasks = readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(dir, entry.name, TASK_FILE)))
    .map((entry) => loadTask(join(dir, entry.name), entry.name))
    .sort((left, right) => left.name.localeCompare(right.name));
  if (tasks.length === 0) throw new ConfigError(`eval suite ${folder} has no tasks: each task is a folder with ${TASK_FILE} ({"task", "verify"}) and its fixture in repo/`);
  return { name: dir.split(/[\\/]/).at(-1) ?? dir, dir, tasks };
}

function loadTask(dir: string, name: string): EvalTask {
  let parsed: z.infer<typeof taskSchema>;
  try {
    parsed = taskSchema.parse(JSON.parse(readFileSync(join(dir, TASK_FILE), 'utf8')));
  } catch (error) {
    const why = error instanceof z.ZodError ? error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; ') : (error as Error).message;
    throw new ConfigError(`eval task ${join(dir, TASK_FILE)} is invalid (${why}): it needs {"task": "...", "verify": "a shell command"}`);
  }
  const repo = join(dir, 'repo');
  if (!existsSync(repo) || !statSync(repo).isDirectory()) throw new ConfigError(`eval task ${name} has no fixture: put the repository to start from in ${repo}`);
  const scripts: Partial<Record<EvalMode, string>> = {};
  for (const mode of EVAL_MODES) {
    const script = join(dir, `script.${mode}.json`);
    if (existsSync(script)) scripts[mode] = script;
  }
  return { name, dir, repo, task: parsed.task, verify: parsed.verify, scripts };
}
