import { execFile } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/cli-harness.js';
import { tempDir } from '../helpers/temp-store.js';

/**
 * The review round trip of SPEC §2.3, entirely through the CLI, on the offline demo: plan with the
 * scripted model → show (json, mermaid, dot) → export → edit the document → import (diff, new
 * version, lint) → edit in $EDITOR → run refused → approve → run with the approved hash → diff,
 * and the demo's own tests green afterwards.
 */

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SCRIPT = join(ROOT, 'examples', 'billing.script.json');
const MODEL = `scripted:${SCRIPT}`;
const TASK = 'Rename Invoice.total() to Invoice.grandTotal() everywhere; keep tests green';
const ORIGINAL_ORDER = ['read-models', 'edit-models', 'edit-pdf', 'edit-api', 'edit-reminder', 'edit-tests', 'test'];
const NEW_PDF_TITLE = 'Call grandTotal() when rendering the PDF';
const REMINDER_LINE = 'body: `Dear ${invoice.customer.name}, invoice ${invoice.id} for ${formatCents(invoice.total())} was due on ${invoice.dueDate}. Please pay it at your earliest convenience.`,';
const REMINDER_WARNING = `src/jobs/reminder.js:25 uses Invoice.total (src/models/invoice.js#Invoice.total, changed by edit-models — inferred from its instructions; declare \`changes:\` to make it exact) but no node writes it: ${REMINDER_LINE}`;

interface PlanNodeDocument {
  id: string;
  kind: string;
  title: string;
  dependsOn: string[];
  reads: string[];
  writes: string[];
  [key: string]: unknown;
}
interface PlanDocument {
  goal: string;
  nodes: PlanNodeDocument[];
  [key: string]: unknown;
}

const runFile = promisify(execFile);

let workspace: string;
let scratch: string;
const cleanups: (() => void)[] = [];
const cli = (args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> => runCli(args, { cwd: workspace, env });
const readPlan = (file: string): PlanDocument => JSON.parse(readFileSync(join(workspace, file), 'utf8')) as PlanDocument;

beforeAll(() => {
  const copy = tempDir('dagent-review-');
  const other = tempDir('dagent-review-editor-');
  cleanups.push(copy.cleanup, other.cleanup);
  workspace = copy.dir;
  scratch = other.dir;
  cpSync(join(ROOT, 'examples', 'billing'), workspace, { recursive: true });
});
afterAll(() => {
  for (const cleanup of cleanups) cleanup();
});

describe('the review round trip of the billing demo, from the CLI', () => {
  let runId = '';
  let original: PlanDocument;
  let approvedHash = '';

  // Planning lints the plan with the language service: a cold start of the compiler, slow on a busy machine.
  it('plans the task with the scripted model: a run id, awaiting approval, the rendered plan', async () => {
    const result = await cli(['plan', TASK, '--model', MODEL]);
    expect(result.code, result.stderr).toBe(0);
    const header = /^run (\S+) · plan v1 · awaiting approval$/m.exec(result.stdout);
    expect(header).not.toBeNull();
    runId = header![1]!;
    expect(result.stdout).toMatch(/^stage 3 {2}edit-pdf .*┐ parallel$/m);
    expect(result.stdout).toContain('critical path: read-models → edit-models → edit-pdf → edit-tests → test · width 3');
    expect(result.stdout).toMatch(/^plan hash [0-9a-f]+$/m);
    expect(result.stdout).toContain(`next: dagent approve ${runId}`);

    const status = JSON.parse((await cli(['status', runId, '--json'])).stdout);
    expect(status.run).toMatchObject({ id: runId, status: 'awaiting_approval', planVersion: 1 });
  }, 60_000);

  it('shows the plan as JSON with stages, critical path, width, estimate and lint', async () => {
    const result = await cli(['show', runId, '--json']);
    expect(result.code, result.stderr).toBe(0);
    const shown = JSON.parse(result.stdout);
    expect(shown).toMatchObject({ runId, planVersion: 1, status: 'awaiting_approval', goal: TASK });
    expect(shown.nodes.map((node: PlanNodeDocument) => node.id)).toEqual(ORIGINAL_ORDER);
    expect(shown.stages).toEqual([['read-models'], ['edit-models'], ['edit-pdf', 'edit-api', 'edit-reminder'], ['edit-tests'], ['test']]);
    expect(shown.criticalPath).toEqual(['read-models', 'edit-models', 'edit-pdf', 'edit-tests', 'test']);
    expect(shown.width).toBe(3);
    // Estimated from the sizes of the files each node reads and writes; the command node runs no model.
    expect(shown.estimate.tokens).toBeGreaterThan(0);
    expect(shown.estimate.tokens).toBe(shown.estimate.inputTokens + shown.estimate.outputTokens);
    expect(shown.estimate.nodes.map((node: { nodeId: string }) => node.nodeId)).toEqual(ORIGINAL_ORDER);
    expect(shown.estimate.nodes.find((node: { nodeId: string }) => node.nodeId === 'edit-models').files).toEqual(
      expect.arrayContaining(['src/models/invoice.js', 'src/models/standard-invoice.js', 'src/models/discounted-invoice.js']),
    );
    expect(shown.estimate.nodes.find((node: { nodeId: string }) => node.nodeId === 'test').tokens).toBe(0);
    expect(shown.lint).toEqual([]);
    expect(typeof shown.hash).toBe('string');
  });

  it('renders the plan as mermaid and as dot', async () => {
    const mermaid = await cli(['show', runId, '--format', 'mermaid']);
    expect(mermaid.code).toBe(0);
    expect(mermaid.stdout).toMatch(/^flowchart TD\n/);
    expect(mermaid.stdout).toContain('subgraph stage_3["stage 3"]');
    expect(mermaid.stdout).toContain('n_edit_models --> n_edit_reminder');
    const dot = await cli(['show', runId, '--format', 'dot']);
    expect(dot.code).toBe(0);
    expect(dot.stdout).toMatch(/^digraph plan \{\n/);
    expect(dot.stdout).toContain('"edit-reminder" -> "edit-tests";');
    expect(dot.stdout.trimEnd().endsWith('}')).toBe(true);
    const asJson = await cli(['show', runId, '--format', 'mermaid', '--json']);
    expect(asJson.code).toBe(0);
    expect(JSON.parse(asJson.stdout)).toMatchObject({ runId, planVersion: 1, format: 'mermaid', diagram: mermaid.stdout.trimEnd() });
  });

  it('exports the plan, and imports an edited document as v2 with its diff and the lint warning', async () => {
    const exported = await cli(['export', runId, 'plan.json']);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stderr).toBe(`wrote plan v1 of run ${runId} to plan.json\n`);
    original = readPlan('plan.json');
    expect(original.nodes.map((node) => node.id)).toEqual(ORIGINAL_ORDER);

    // A hurried reviewer: retitles a node and drops the reminder job, rewiring the nodes after it.
    const edited: PlanDocument = {
      ...original,
      nodes: original.nodes
        .filter((node) => node.id !== 'edit-reminder')
        .map((node) => ({
          ...node,
          ...(node.id === 'edit-pdf' ? { title: NEW_PDF_TITLE } : {}),
          dependsOn: node.dependsOn.filter((id) => id !== 'edit-reminder'),
        })),
    };
    writeFileSync(join(workspace, 'plan.json'), JSON.stringify(edited, null, 2));
    const imported = await cli(['import', runId, 'plan.json']);
    expect(imported.code, imported.stderr).toBe(0);
    const lines = imported.stdout.split('\n');
    expect(lines[0]).toBe('plan v1 → v2 (imported from plan.json)');
    expect(lines).toContain('- edit-reminder (edit) Call grandTotal() in the reminder job · writes src/jobs/reminder.js');
    expect(lines).toContain(`~ edit-pdf.title: "Call grandTotal() in the PDF renderer" → "${NEW_PDF_TITLE}"`);
    expect(lines).toContain('- edge edit-models → edit-reminder');
    expect(lines).toContain('- edge edit-reminder → edit-tests');
    expect(lines).toContain('- edge edit-reminder → test');
    expect(imported.stdout).toContain(`lint: ${REMINDER_WARNING}`);
    expect(imported.stdout).toContain(`run ${runId} · plan v2 · awaiting approval`);

    const shown = JSON.parse((await cli(['show', runId, '--json'])).stdout);
    expect(shown.planVersion).toBe(2);
    expect(shown.lint).toEqual([
      { level: 'warning', code: 'unwritten-importer', message: REMINDER_WARNING, nodeId: 'edit-models', file: 'src/jobs/reminder.js', symbol: 'src/models/invoice.js#Invoice.total', line: 25, text: REMINDER_LINE },
    ]);
  });

  it('edits the plan in $EDITOR: the reminder node comes back as v3 and the lint is clean', async () => {
    const reminder = original.nodes.find((node) => node.id === 'edit-reminder')!;
    const editor = join(scratch, 'restore-reminder.mjs');
    // The "editor": puts the reminder node back after edit-api and rewires edit-tests and test to it.
    writeFileSync(
      editor,
      [
        "import { readFileSync, writeFileSync } from 'node:fs';",
        'const file = process.argv[2];',
        "const plan = JSON.parse(readFileSync(file, 'utf8'));",
        `const reminder = ${JSON.stringify(reminder)};`,
        "const at = plan.nodes.findIndex((node) => node.id === 'edit-api') + 1;",
        'plan.nodes.splice(at, 0, reminder);',
        'for (const node of plan.nodes) {',
        "  if (node.id === 'edit-tests') node.dependsOn = ['edit-pdf', 'edit-api', 'edit-reminder'];",
        "  if (node.id === 'test') node.dependsOn = ['edit-models', 'edit-pdf', 'edit-api', 'edit-reminder', 'edit-tests'];",
        '}',
        'writeFileSync(file, JSON.stringify(plan, null, 2));',
        '',
      ].join('\n'),
    );
    const result = await cli(['edit', runId], { EDITOR: `"${process.execPath}" "${editor}"` });
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toBe('plan v2 → v3 (edited)');
    expect(lines).toContain('+ edit-reminder (edit) Call grandTotal() in the reminder job · writes src/jobs/reminder.js');
    expect(lines).toContain('+ edge edit-reminder → edit-tests');
    expect(result.stdout).not.toContain('lint:');

    const shown = JSON.parse((await cli(['show', runId, '--json'])).stdout);
    expect(shown).toMatchObject({ planVersion: 3, status: 'awaiting_approval', lint: [] });
    expect(shown.nodes.map((node: PlanNodeDocument) => node.id)).toEqual(ORIGINAL_ORDER);
    expect(shown.nodes.find((node: PlanNodeDocument) => node.id === 'edit-pdf').title).toBe(NEW_PDF_TITLE);
    expect(shown.stages).toEqual([['read-models'], ['edit-models'], ['edit-pdf', 'edit-api', 'edit-reminder'], ['edit-tests'], ['test']]);
  });

  it('refuses to run the plan before it is approved', async () => {
    const result = await cli(['run', runId, '--approval', 'auto', '--model', MODEL]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `dagent: plan v3 of run ${runId} is awaiting approval: review it with \`dagent show ${runId}\`, then \`dagent approve ${runId}\` (\`dagent plan --yes\` approves a new plan as it is made)\n`,
    );
  });

  it('approves the plan and records its hash', async () => {
    const result = await cli(['approve', runId]);
    expect(result.code, result.stderr).toBe(0);
    const approved = /^approved plan v3 of run (\S+) · hash ([0-9a-f]+)$/m.exec(result.stdout);
    expect(approved?.[1]).toBe(runId);
    approvedHash = approved![2]!;
    const shown = JSON.parse((await cli(['show', runId, '--json'])).stdout);
    expect(shown).toMatchObject({ status: 'approved', hash: approvedHash, planVersion: 3 });
  });

  it('refuses --approved with a hash other than the approved one', async () => {
    const wrong = approvedHash.replace(/^./, (first) => (first === '0' ? '1' : '0'));
    const result = await cli(['run', runId, '--approved', wrong, '--approval', 'auto', '--model', MODEL]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr.trim()).toBe(`dagent: --approved ${wrong} is the hash of no plan of run ${runId}, and the approved plan is v3 (hash ${approvedHash}): review it with \`dagent show ${runId}\`, then \`dagent run ${runId} --approved ${approvedHash}\``);
    expect(readFileSync(join(workspace, 'src', 'models', 'invoice.js'), 'utf8')).toMatch(/\btotal\(\)/);
  });

  it('refuses an --approved hash too short to pin a plan, such as an unset variable', async () => {
    for (const pinned of ['', approvedHash.slice(0, 3)]) {
      const result = await cli(['run', runId, '--approved', pinned, '--approval', 'auto', '--model', MODEL]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`is the hash of no plan of run ${runId}, and the approved plan is v3`);
    }
  });

  it('runs the approved plan with the scripted node queues: every node succeeds', async () => {
    const result = await cli(['run', runId, '--approved', approvedHash, '--approval', 'auto', '--model', MODEL]);
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(result.stdout).toContain(`run ${runId} succeeded · plan v3 · 7/7 nodes succeeded`);
    for (const id of ORIGINAL_ORDER) expect(result.stdout).toMatch(new RegExp(`✓ ${id} `));

    const status = JSON.parse((await cli(['status', runId, '--json'])).stdout);
    expect(status.run).toMatchObject({ id: runId, status: 'succeeded', planVersion: 3 });
    expect(status.nodes.map((node: { id: string; status: string }) => [node.id, node.status])).toEqual(ORIGINAL_ORDER.map((id) => [id, 'succeeded']));
  }, 90_000);

  it('shows the change with diff --stat, and the demo\'s own tests pass on it', async () => {
    const result = await cli(['diff', runId, '--stat']);
    expect(result.code, result.stderr).toBe(0);
    for (const [file, node] of <[string, string][]>[
      ['src/api/invoices.js', 'edit-api'],
      ['src/jobs/reminder.js', 'edit-reminder'],
      ['src/models/discounted-invoice.js', 'edit-models'],
      ['src/models/invoice.js', 'edit-models'],
      ['src/models/standard-invoice.js', 'edit-models'],
      ['src/render/pdf.js', 'edit-pdf'],
      ['test/api.test.js', 'edit-tests'],
      ['test/invoice.test.js', 'edit-tests'],
    ]) {
      expect(result.stdout).toMatch(new RegExp(`^ ${file.replace(/[.]/g, '\\.')} +\\| \\+\\d+ -\\d+ +${node}$`, 'm'));
    }
    expect(result.stdout).toMatch(/^ 8 files changed, \d+ insertions?\(\+\), \d+ deletions?\(-\)$/m);
    expect(readFileSync(join(workspace, 'src', 'jobs', 'reminder.js'), 'utf8')).toContain('invoice.grandTotal()');

    const test = await runFile(process.execPath, ['--test'], { cwd: workspace, timeout: 60_000 });
    expect(test.stdout).toMatch(/^# fail 0$/m);
    expect(test.stdout).toMatch(/^# pass [1-9]\d*$/m);
  }, 90_000);

  it('rejects another run\'s plan: the run is rejected and cannot be run', async () => {
    const planned = await cli(['plan', '--from', 'plan.json']);
    expect(planned.code, planned.stderr).toBe(0);
    const other = /^run (\S+) · plan v1 · awaiting approval$/m.exec(planned.stdout)?.[1];
    expect(other).toBeDefined();
    expect(other).not.toBe(runId);

    const rejected = await cli(['reject', other!, '--reason', 'forgets the reminder job']);
    expect(rejected.code, rejected.stderr).toBe(0);
    expect(rejected.stdout).toBe(`rejected plan v1 of run ${other}: forgets the reminder job\na new version: dagent edit ${other} (or dagent import ${other} FILE), then dagent approve ${other}\n`);
    const status = JSON.parse((await cli(['status', other!, '--json'])).stdout);
    expect(status.run.status).toBe('rejected');
    const log = (await cli(['log', other!, '--type', 'plan/', '--json'])).stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(log.map((event: { type: string }) => event.type)).toEqual(['plan/created', 'plan/rejected']);
    expect(log[1].payload).toMatchObject({ version: 1, reason: 'forgets the reminder job' });

    const refused = await cli(['run', other!, '--approval', 'auto', '--model', MODEL]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(`dagent: plan v1 of run ${other} was rejected: make a new version with \`dagent edit ${other}\` or \`dagent import ${other} FILE\`, then \`dagent approve ${other}\`\n`);
  });
});
