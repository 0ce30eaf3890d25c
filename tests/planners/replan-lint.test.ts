import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  approvePlan,
  createRun,
  currentPlan,
  executeRun,
  readEvents,
  savePlan,
  type Approver,
  type NodeRuntime,
  type Plan,
  type PlanLinter,
  type PlanNode,
  type Planner,
  type Store,
} from '../../engine/index.js';
import { createScriptedProvider } from '../../engine/model/scripted-provider.js';
import { createLanguageService, lintPlanWithReferences, scanRepository, type WorkspaceLanguageService } from '../../planners/index.js';
import { FakeNodeFiles } from '../helpers/fake-node-files.js';
import { FakeTools } from '../helpers/fake-tools.js';
import { openTempStore } from '../helpers/temp-store.js';
import { copyFixtureRepo } from './fixture-repo.js';

/**
 * A replan writes a new plan version in the middle of a run. That version is linted like any
 * other, with the planners' linter against the workspace (the members fixture): its findings are
 * recorded in `plan/amended`, and a version with lint errors is not run — the run pauses for review.
 */

let root: string;
let cleanupRepo: () => void;
let languageService: WorkspaceLanguageService;
let store: Store;
let cleanupStore: () => Promise<void>;

beforeAll(() => {
  ({ root, cleanup: cleanupRepo } = copyFixtureRepo('members'));
  languageService = createLanguageService({ workspace: root });
});
afterAll(() => {
  languageService.dispose();
  cleanupRepo();
});
beforeEach(async () => ({ store, cleanup: cleanupStore } = await openTempStore()));
afterEach(async () => cleanupStore());

const linter: PlanLinter = async (plan) => {
  const issues = await lintPlanWithReferences(plan, await scanRepository(root), { languageService: () => languageService });
  return issues.map((issue) => ({ level: issue.level, code: issue.code, message: issue.message, ...(issue.file === undefined ? {} : { file: issue.file }) }));
};

const node = (id: string, fields: Partial<PlanNode>): PlanNode => ({ id, kind: 'edit', title: id, instructions: '', reads: [], writes: [], dependsOn: [], ...fields });

const PLAN: Plan = {
  goal: 'Tidy the report',
  rationale: '',
  nodes: [
    node('read-report', { kind: 'read', title: 'Read the report', reads: ['src/report.ts'] }),
    node('edit-report', { title: 'Tidy the report', reads: ['src/report.ts'], writes: ['src/report.ts'], dependsOn: ['read-report'] }),
  ],
};

/** The replan renames Invoice.total(), but only in the class: five files call it (one through inference). */
const RENAME_IN_CLASS_ONLY = node('rename-total', {
  title: 'Rename Invoice.total() to grandTotal()',
  reads: ['src/invoice.ts'],
  writes: ['src/invoice.ts'],
  changes: ['src/invoice.ts#Invoice.total'],
});

/** The replan retries the report edit: nothing it changes has users elsewhere (and no test runs after it: a warning). */
const RETRY_REPORT = node('edit-report-again', { title: 'Tidy the report, carefully', reads: ['src/report.ts'], writes: ['src/report.ts'] });

async function runReplanningTo(appended: PlanNode): Promise<{ runId: string; status: string }> {
  const run = await createRun(store.db, { task: PLAN.goal, workspace: root, mode: 'plan' });
  await savePlan(store.db, run.id, { plan: PLAN, reason: 'planned' });
  await approvePlan(store.db, run.id);
  const planner: Planner = { plan: async () => PLAN, amend: async () => ({ kind: 'append', nodes: [appended] }) };
  const provider = createScriptedProvider({
    script: { agents: { 'node:read-report': [{ text: 'read' }], 'node:edit-report': [{ error: { status: 400, message: 'the model refused' } }], [`node:${appended.id}`]: [{ text: 'done' }] } },
  });
  const approver: Approver = { interactive: false, ask: async () => ({ decision: 'no' }) };
  const runtime: NodeRuntime = { workspace: root, tools: new FakeTools({}), approver, resolveModel: () => ({ provider, model: 'scripted' }), defaultTools: () => undefined };
  const result = await executeRun({
    db: store.db,
    runId: run.id,
    runtime,
    files: new FakeNodeFiles(),
    planner,
    linter,
    settings: { maxAttempts: 1 },
    signal: new AbortController().signal,
    sleep: async () => undefined,
  });
  return { runId: run.id, status: result.status };
}

async function amendedLint(runId: string): Promise<unknown> {
  const amended = await readEvents(store.db, runId, { types: ['plan/amended'] });
  expect(amended).toHaveLength(1);
  return amended[0]!.payload.lint;
}

describe('lint of a replanned version', () => {
  it('records the errors in plan/amended and pauses the run for review', async () => {
    const { runId, status } = await runReplanningTo(RENAME_IN_CLASS_ONLY);

    expect(status).toBe('paused');
    const lint = (await amendedLint(runId)) as { level: string; code: string; file?: string }[];
    const errors = lint.filter((finding) => finding.level === 'error');
    expect(errors.map((finding) => [finding.code, finding.file])).toEqual([
      ['unwritten-importer', 'src/destructuring.ts'],
      ['unwritten-importer', 'src/report.ts'],
      ['unwritten-importer', 'src/subclass-use.ts'],
      ['unwritten-importer', 'src/through-interface.ts'],
      ['unwritten-importer', 'src/totalled.ts'],
    ]);
    expect(await currentPlan(store.db, runId)).toMatchObject({ version: 2, status: 'awaiting_approval' });
    const paused = await readEvents(store.db, runId, { types: ['run/paused'] });
    expect(paused.at(-1)?.payload.reason).toMatch(/^plan v2 waits for review after a replan \(lint: src\/destructuring\.ts:3 uses Invoice\.total/);
  });

  it('records warnings in plan/amended and goes on with the new version: only errors stop a run', async () => {
    const { runId, status } = await runReplanningTo(RETRY_REPORT);

    expect(await amendedLint(runId)).toEqual([
      {
        level: 'warning',
        code: 'untested-edit',
        message: 'edit-report-again changes files but no command node runs after it: add a node that runs the tests and depends on edit-report-again',
      },
    ]);
    expect(status).toBe('succeeded');
    expect(await currentPlan(store.db, runId)).toMatchObject({ version: 2, status: 'approved' });
  });
});
