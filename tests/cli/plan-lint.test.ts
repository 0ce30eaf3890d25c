import { LINT_CODES } from '../../planners/index.js';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CliContext } from '../../cli/context/cli-context.js';
import type { CliIo } from '../../cli/context/cli-io.js';
import { checkLintGate, lintForReview } from '../../cli/plans/plan-lint.js';
import { lintOptions } from '../../engine/config/lint-options.js';
import { createRun, savePlan, type Plan, type PlanNode } from '../../engine/index.js';
import { copyFixtureRepo, writeFiles } from '../planners/fixture-repo.js';
import { tempDir } from '../helpers/temp-store.js';

function contextFor(workspace: string): CliContext {
  const io: CliIo = { stdout: new PassThrough(), stderr: new PassThrough(), stdin: new PassThrough(), env: {}, cwd: workspace, interrupt: new AbortController().signal };
  return new CliContext(io, {});
}

function node(id: string, kind: PlanNode['kind'], fields: Partial<Omit<PlanNode, 'id' | 'kind'>> = {}): PlanNode {
  return { id, kind, title: id, instructions: '', reads: [], writes: [], dependsOn: [], ...fields };
}

const RENAME = 'Rename Invoice.total() to Invoice.grandTotal() and update its callers in this file.';

/** Mei's plan from the user stories: it misses src/jobs/reminder.ts. */
const storyPlan: Plan = {
  goal: 'Rename Invoice.total() to Invoice.grandTotal() everywhere; keep tests green',
  rationale: '',
  nodes: [
    node('read-models', 'read', { reads: ['src/models/*.ts'] }),
    node('edit-invoice', 'edit', { reads: ['src/models/invoice.ts'], writes: ['src/models/invoice.ts'], dependsOn: ['read-models'], instructions: RENAME }),
    node('edit-pdf', 'edit', { writes: ['src/render/pdf.ts'], dependsOn: ['edit-invoice'], instructions: RENAME }),
    node('edit-api', 'edit', { writes: ['src/api/invoices.ts'], dependsOn: ['edit-invoice'], instructions: RENAME }),
    node('test', 'command', { command: 'npm test', dependsOn: ['edit-pdf', 'edit-api'] }),
  ],
};

const REMINDER_WARNING = {
  level: 'warning',
  code: 'unwritten-importer',
  message: 'src/jobs/reminder.ts:5 uses Invoice.total (src/models/invoice.ts#Invoice.total, changed by edit-invoice — inferred from its instructions; declare `changes:` to make it exact) but no node writes it: return `Invoice ${invoice.id} is due: ${invoice.total()}`;',
  nodeId: 'edit-invoice',
  file: 'src/jobs/reminder.ts',
  symbol: 'src/models/invoice.ts#Invoice.total',
  line: 5,
  text: 'return `Invoice ${invoice.id} is due: ${invoice.total()}`;',
};

function withNodes(plan: Plan, ...nodes: PlanNode[]): Plan {
  return { ...plan, nodes: [...plan.nodes, ...nodes] };
}

describe('lintForReview', () => {
  let root: string;
  let cleanup: () => void;
  beforeEach(() => ({ root, cleanup } = copyFixtureRepo('billing')));
  afterEach(() => cleanup());

  it('lints the plan against the scan of the workspace (the user story)', async () => {
    expect(await lintForReview(contextFor(root), storyPlan)).toEqual([REMINDER_WARNING]);
  });

  it('is silent when every importer is written', async () => {
    const complete: Plan = {
      ...storyPlan,
      nodes: [
        ...storyPlan.nodes.filter((candidate) => candidate.id !== 'test'),
        node('edit-reminder', 'edit', { writes: ['src/jobs/reminder.ts'], dependsOn: ['edit-invoice'], instructions: RENAME }),
        node('test', 'command', { command: 'npm test', dependsOn: ['edit-pdf', 'edit-api', 'edit-reminder'] }),
      ],
    };
    expect(await lintForReview(contextFor(root), complete)).toEqual([]);
  });

  it('raises the codes the config lists under lint.errors', async () => {
    writeFiles(root, { '.dagent/config.json': JSON.stringify({ lint: { errors: ['unwritten-importer'] } }) });
    expect(await lintForReview(contextFor(root), storyPlan)).toEqual([{ ...REMINDER_WARNING, level: 'error' }]);
  });

  it('scans once per CLI context', async () => {
    const plan = withNodes(storyPlan, node('read-new', 'read', { reads: ['src/new.ts'] }));
    const context = contextFor(root);
    const missing = (findings: readonly { code: string }[]): number => findings.filter((finding) => finding.code === 'missing-file').length;
    expect(missing(await lintForReview(context, plan))).toBe(1);
    writeFiles(root, { 'src/new.ts': 'export const created = true;\n' });
    expect(missing(await lintForReview(context, plan))).toBe(1);
    expect(missing(await lintForReview(contextFor(root), plan))).toBe(0);
  });
});

describe('the lint gate after the repository changed', () => {
  let root: string;
  let cleanup: () => void;
  const contexts: CliContext[] = [];
  beforeEach(() => ({ root, cleanup } = copyFixtureRepo('billing')));
  afterEach(async () => {
    for (const context of contexts.splice(0)) await context.close();
    cleanup();
  });
  /** One CLI invocation: its own context, so its own scan. */
  const invocation = (): CliContext => {
    const context = contextFor(root);
    contexts.push(context);
    return context;
  };

  /** Mei's plan with every caller of Invoice.total() written: clean when planned. */
  const complete: Plan = {
    ...storyPlan,
    nodes: [
      ...storyPlan.nodes.filter((candidate) => candidate.id !== 'test'),
      node('edit-reminder', 'edit', { writes: ['src/jobs/reminder.ts'], dependsOn: ['edit-invoice'], instructions: RENAME }),
      node('test', 'command', { command: 'npm test', dependsOn: ['edit-pdf', 'edit-api', 'edit-reminder'] }),
    ],
  };

  it('lints again when a file was edited after planning: a new caller of the changed method blocks approval', async () => {
    writeFiles(root, { '.dagent/config.json': JSON.stringify({ lint: { errors: ['unwritten-importer'] } }) });
    const planning = invocation();
    const { db } = await planning.store();
    const run = await createRun(db, { task: complete.goal, workspace: root, mode: 'plan' });
    await savePlan(db, run.id, { plan: complete, reason: 'planned', lint: await lintForReview(planning, complete) });
    expect(await checkLintGate(invocation(), run.id)).toEqual([]);

    // After `plan`, someone starts calling Invoice.total() in a file no node writes.
    writeFiles(root, { 'src/lazy.ts': "import { Invoice } from './models/invoice.js';\n\nexport const due = (invoice: Invoice): number => invoice.total();\n" });
    await expect(checkLintGate(invocation(), run.id)).rejects.toThrow(
      'plan v1 has 1 lint error (linted again: the repository changed since it was planned):\n' +
        '  unwritten-importer: src/lazy.ts:3 uses Invoice.total (src/models/invoice.ts#Invoice.total, changed by edit-invoice — inferred from its instructions; declare `changes:` to make it exact) but no node writes it: export const due = (invoice: Invoice): number => invoice.total();\n' +
        `fix the plan (dagent edit ${run.id}), or allow with --allow-lint unwritten-importer`,
    );
  });
});

describe('lintForReview when the workspace is not a TypeScript repository or cannot be scanned', () => {
  let workspace: string;
  let cleanup: () => void;
  beforeEach(() => {
    ({ dir: workspace, cleanup } = tempDir('dagent-lint-'));
    writeFiles(workspace, { 'app/main.py': 'print("hi")\n', 'README.md': '# app\n' });
  });
  afterEach(() => cleanup());

  const plan: Plan = {
    goal: 'Add a greeting',
    rationale: '',
    nodes: [
      node('read', 'read', { reads: ['app/main.py', 'app/missing.py'] }),
      node('edit', 'edit', { writes: ['app/main.py'], dependsOn: ['read'] }),
      node('test', 'command', { command: 'python -m pytest', dependsOn: ['edit'] }),
    ],
  };

  it('still checks that the files exist', async () => {
    expect(await lintForReview(contextFor(workspace), plan)).toEqual([
      {
        level: 'error',
        code: 'missing-file',
        message: 'read reads app/missing.py, which is not in the repository scan (missing, or hidden by .gitignore) and no node creates',
        nodeId: 'read',
        file: 'app/missing.py',
      },
    ]);
  });

  it('falls back to a file listing when a file cannot be read, and says so', async () => {
    mkdirSync(join(workspace, 'app', 'nested'));
    // A .gitignore that is a link to itself: reading it fails with ELOOP, even for root.
    symlinkSync('.gitignore', join(workspace, 'app', 'nested', '.gitignore'));
    const findings = await lintForReview(contextFor(workspace), plan);
    expect(findings.map((finding) => [finding.code, finding.file])).toEqual([
      ['scan-failed', undefined],
      ['missing-file', 'app/missing.py'],
    ]);
    expect(findings[0]).toMatchObject({ level: 'warning', message: expect.stringMatching(/^the repository scan failed \(.*ELOOP.*\): lint checked only/) });
  });

  it('never throws, even when the workspace vanishes after the command started', async () => {
    const context = contextFor(workspace);
    cleanup();
    const findings = await lintForReview(context, plan);
    expect(findings[0]).toMatchObject({ level: 'warning', code: 'scan-failed' });
  });
});

describe('lintOptions', () => {
  it.each([
    [undefined, {}],
    [[], { errors: [] }],
    [['missing-file', 'unwritten-importer'], { errors: ['unwritten-importer', 'missing-file'] }],
    [['untested-edit', 'no-such-code'], { errors: ['untested-edit'] }],
    [['missing-file', 'all'], { errors: 'all' }],
  ])('lint.errors %j → %j', (errors, expected) => {
    expect(lintOptions(errors, LINT_CODES)).toEqual(expected);
  });
});
