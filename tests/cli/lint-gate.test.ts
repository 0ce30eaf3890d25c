import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { approvePlan, openDatabase, readEvents, type SessionEvent } from '../../engine/index.js';
import { DAGENT_BIN } from '../helpers/crash-process.js';
import { tempDir } from '../helpers/temp-store.js';

/**
 * Lint that binds, through the built binary: a plan whose check reads a file that does not exist
 * has a lint error. `approve`, `plan --yes` and `run` refuse it with exit 2, naming the finding and
 * the flag that lets it through; `--allow-lint CODE` lets it through and the log records it.
 */

const PLAN = {
  goal: 'Check the release notes',
  nodes: [{ id: 'check', kind: 'command', title: 'Check the notes', command: 'echo checked', reads: ['notes/release.md'], writes: [] }],
};
const FINDING = 'missing-file: check reads notes/release.md, which is not in the repository scan (missing, or hidden by .gitignore) and no node creates';

let workspace: string;
let home: string;
const cleanups: (() => void)[] = [];

beforeEach(() => {
  const made = tempDir('dagent-lint-gate-');
  cleanups.push(made.cleanup);
  workspace = join(made.dir, 'repo');
  home = join(made.dir, 'home');
  mkdirSync(workspace);
  mkdirSync(home);
  writeFileSync(join(workspace, 'plan.json'), JSON.stringify(PLAN));
});
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

vi.setConfig({ testTimeout: 120_000 });

function dagent(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [DAGENT_BIN, '--no-sandbox', ...args], {
    cwd: workspace,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: home, NO_COLOR: '1' },
    timeout: 90_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function planned(): string {
  const result = dagent('--json', 'plan', '--from', 'plan.json');
  expect(result.status, result.stderr).toBe(0);
  return (JSON.parse(result.stdout) as { runId: string }).runId;
}

async function withStore<T>(work: (db: Awaited<ReturnType<typeof openDatabase>>['db']) => Promise<T>): Promise<T> {
  const store = await openDatabase(join(workspace, '.dagent', 'dagent.db'));
  try {
    return await work(store.db);
  } finally {
    await store.close();
  }
}

const eventsOf = (runId: string, type: SessionEvent['type']) => withStore((db) => readEvents(db, runId, { types: [type] }));

const refusal = (runId: string): string => `dagent: plan v1 has 1 lint error:\n  ${FINDING}\nfix the plan (dagent edit ${runId}), or allow with --allow-lint missing-file\n`;

describe('a plan version with a lint error', () => {
  it('is not approved (exit 2, the finding and the flag named); approve --allow-lint approves it and records the code', async () => {
    const runId = planned();

    const refused = dagent('approve', runId);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toBe(refusal(runId));
    expect(await eventsOf(runId, 'plan/approved')).toEqual([]);

    const approved = dagent('approve', runId, '--allow-lint', 'missing-file');
    expect(approved.status, approved.stderr).toBe(0);
    expect(approved.stdout).toMatch(new RegExp(`^approved plan v1 of run ${runId} · hash \\w+ · lint errors allowed: missing-file\\n`));
    const [approval] = await eventsOf(runId, 'plan/approved');
    expect(approval?.payload).toMatchObject({ version: 1, allowedLint: ['missing-file'] });

    // The approval's allowance holds for the run: no flag needed again.
    const ran = dagent('run', runId);
    expect(ran.status, ran.stderr).toBe(0);
    expect(ran.stdout).toContain(`run ${runId} succeeded`);
  });

  it('warns of an --allow-lint code that lets nothing through, and still refuses', () => {
    const runId = planned();

    const typo = dagent('approve', runId, '--allow-lint', 'missing-fle');

    expect(typo.status).toBe(2);
    expect(typo.stderr).toBe(`dagent: warning: --allow-lint missing-fle lets nothing through: plan v1 has no lint error missing-fle (its errors: missing-file)\n${refusal(runId)}`);
  });

  it('is not run: plan --yes and run (of a version approved elsewhere) exit 2; run --allow-lint runs it and records the code', async () => {
    const yes = dagent('plan', '--from', 'plan.json', '--yes');
    expect(yes.status).toBe(2);
    const runId = /plan v1 has 1 lint error[^]*dagent edit (\S+)\)/.exec(yes.stderr)?.[1] ?? '';
    expect(yes.stderr).toBe(refusal(runId));

    // Approved without the CLI's gate (as another client could): `run` still checks.
    await withStore((db) => approvePlan(db, runId));
    const refused = dagent('run', runId);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toBe(refusal(runId));
    expect(await eventsOf(runId, 'run/started')).toEqual([]);

    const ran = dagent('run', runId, '--allow-lint', 'missing-file');
    expect(ran.status, ran.stderr).toBe(0);
    const [started] = await eventsOf(runId, 'run/started');
    expect(started?.payload).toMatchObject({ planVersion: 1, allowedLint: ['missing-file'] });
  });
});
