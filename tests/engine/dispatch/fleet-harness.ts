import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { expect } from 'vitest';
import type { Plan } from '../../../engine/index.js';
import { runCli } from '../../helpers/cli-harness.js';
import type { CliExit, CliProcess } from '../../helpers/crash-process.js';

/** What the fleet tests share: a database of their own on the test PostgreSQL, SQL reads of it, and waiting on processes. */

export const describeExit = (exit: CliExit): string => `exit ${exit.code ?? exit.signal}\n${exit.stdout.slice(-3000)}\n${exit.stderr.slice(-3000)}`;

/** A fresh database on the server of `postgresUrl`; returns its URL. */
export async function createDatabase(postgresUrl: string): Promise<string> {
  const name = `dagent_fleet_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  return postgresUrl.replace(/\/[^/]*$/, `/${name}`);
}

export async function query<R extends pg.QueryResultRow>(url: string, text: string, values: unknown[]): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}

export async function runStatus(url: string, runId: string): Promise<string> {
  const [row] = await query<{ status: string }>(url, 'SELECT status FROM runs WHERE id = $1', [runId]);
  return row?.status ?? 'missing';
}

/** Polls `check` until it holds; on timeout kills `processes` and fails with their output. */
export async function until(what: string, check: () => Promise<boolean>, timeoutMs: number, processes: readonly CliProcess[]): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) {
      const outputs = await Promise.all(processes.map(async (process) => { process.child.kill('SIGKILL'); return describeExit(await process.exited); }));
      throw new Error(`timed out waiting for ${what}\n${outputs.join('\n---\n')}`);
    }
    await sleep(50);
  }
}

/** `git init` and a first commit of everything in `dir`. */
export function gitInit(dir: string): void {
  const git = (...args: string[]): void => void execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@dagent.invalid', '-c', 'commit.gpgsign=false', ...args], { cwd: dir, stdio: 'ignore' });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'before the run');
}

/** An approved run of the plan in `planFile`, scripted by `scriptFile`, on a database of its own. */
export async function approvedRunOnNewDatabase(postgresUrl: string, workspace: string, planFile: string, scriptFile: string): Promise<{ url: string; runId: string; flags: string[] }> {
  const url = await createDatabase(postgresUrl);
  const flags = ['--db', url, '--model', `scripted:${scriptFile}`, '--approval', 'auto'];
  const created = await runCli(['plan', '--from', planFile, '--json', ...flags], { cwd: workspace });
  expect(created.code, created.stderr).toBe(0);
  const runId = (JSON.parse(created.stdout) as { runId: string }).runId;
  expect((await runCli(['approve', runId, ...flags], { cwd: workspace })).code).toBe(0);
  return { url, runId, flags };
}

export interface SmallRun {
  readonly workspace: string;
  readonly runId: string;
  readonly url: string;
  readonly flags: string[];
}

/** A workspace `root/name` with `files` (each "hello\n"), and an approved run of `plan` on a database of its own, scripted by `agents`. */
export async function approvedSmallRun(postgresUrl: string, root: string, name: string, plan: Plan, agents: Record<string, unknown[]>, files: readonly string[]): Promise<SmallRun> {
  const workspace = join(root, name);
  for (const path of files) {
    mkdirSync(join(workspace, path, '..'), { recursive: true });
    writeFileSync(join(workspace, path), 'hello\n');
  }
  const planFile = join(root, `${name}-plan.json`);
  const scriptFile = join(root, `${name}-script.json`);
  writeFileSync(planFile, JSON.stringify(plan));
  writeFileSync(scriptFile, JSON.stringify({ agents }));
  const { url, runId, flags } = await approvedRunOnNewDatabase(postgresUrl, workspace, planFile, scriptFile);
  return { workspace, runId, url, flags };
}

export interface LoggedEvent {
  readonly seq: number;
  readonly node_id: string | null;
  readonly type: string;
  readonly payload: Record<string, unknown>;
}

/** The run's log, read with SQL. */
export async function runEvents(run: Pick<SmallRun, 'url' | 'runId'>): Promise<LoggedEvent[]> {
  const rows = await query<{ seq: number; node_id: string | null; type: string; payload: string }>(run.url, 'SELECT seq, node_id, type, payload FROM events WHERE run_id = $1 ORDER BY seq', [run.runId]);
  return rows.map((row) => ({ ...row, seq: Number(row.seq), payload: JSON.parse(row.payload) as Record<string, unknown> }));
}
