import { execFile } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planStages, type Plan } from '../../engine/index.js';
import { readScriptFile, type ScriptedModelScript } from '../../engine/model/scripted-script.js';
import { PLANNER_TOOL_NAMES, checkPlanAnswer, findImporters, lintPlan, patternCovers, scanRepository, type RepoMap } from '../../planners/index.js';
import { editFileTool, grepTool, listFilesTool, planEdit, readFileTool } from '../../tools/index.js';
import { tempDir } from '../helpers/temp-store.js';

const EXAMPLES = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'examples');
const DEMO = join(EXAMPLES, 'billing');
const SCRIPT = join(EXAMPLES, 'billing.script.json');

const TOOL_ARGS = { list_files: listFilesTool.args, read_file: readFileTool.args, grep: grepTool.args, edit_file: editFileTool.args };
const runFile = promisify(execFile);

let script: ScriptedModelScript;
let plan: Plan;
let map: RepoMap;

beforeAll(async () => {
  script = readScriptFile(SCRIPT, (path) => readFileSync(path, 'utf8'));
  const answer = script.agents['planner']?.at(-1)?.text ?? '';
  const check = checkPlanAnswer(answer);
  if (!check.ok) throw new Error(`the planner's answer is not a valid plan: ${check.issues.map((issue) => issue.message).join('; ')}`);
  plan = check.value;
  map = await scanRepository(DEMO);
});

function turnsOf(agent: string): NonNullable<ScriptedModelScript['agents'][string]> {
  const turns = script.agents[agent];
  if (turns === undefined) throw new Error(`the script has no queue for ${agent}`);
  return turns;
}

/** The demo's files after every node's `edit_file` calls, applied in plan order with the tool's own `planEdit`. */
function editedFiles(): Map<string, string> {
  const files = new Map<string, string>();
  for (const id of planStages(plan).flat()) {
    const node = plan.nodes.find((candidate) => candidate.id === id)!;
    if (node.kind === 'command') continue;
    for (const turn of turnsOf(`node:${id}`)) {
      for (const call of turn.toolCalls ?? []) {
        if (call.name !== 'edit_file') continue;
        const args = editFileTool.args.parse(call.args);
        const before = files.get(args.path) ?? readFileSync(join(DEMO, args.path), 'utf8');
        files.set(args.path, planEdit(before, args.old_string, args.new_string, args.replace_all === true, args.path).after);
      }
    }
  }
  return files;
}

describe('examples/billing.script.json', () => {
  it('plans the rename with read-only tools, then answers with a valid plan', () => {
    const turns = turnsOf('planner');
    const calls = turns.flatMap((turn) => turn.toolCalls ?? []);
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) expect(PLANNER_TOOL_NAMES).toContain(call.name);
    expect(plan.goal).toBe('Rename Invoice.total() to Invoice.grandTotal() everywhere; keep tests green');
    expect(plan.nodes.map((node) => [node.id, node.kind])).toEqual([
      ['read-models', 'read'],
      ['edit-models', 'edit'],
      ['edit-pdf', 'edit'],
      ['edit-api', 'edit'],
      ['edit-reminder', 'edit'],
      ['edit-tests', 'edit'],
      ['test', 'command'],
    ]);
    expect(plan.nodes.find((node) => node.id === 'test')?.dependsOn).toEqual(['edit-models', 'edit-pdf', 'edit-api', 'edit-reminder', 'edit-tests']);
  });

  it('gives every model node a queue of valid tool calls that ends with a text answer', () => {
    const agents = plan.nodes.filter((node) => node.kind !== 'command').map((node) => `node:${node.id}`);
    expect(Object.keys(script.agents).sort()).toEqual(['planner', 'summarizer', ...agents].sort());
    for (const agent of ['planner', ...agents]) {
      const turns = turnsOf(agent);
      expect(turns.at(-1)?.text, agent).toBeTruthy();
      expect(turns.at(-1)?.toolCalls, agent).toBeUndefined();
      for (const call of turns.flatMap((turn) => turn.toolCalls ?? [])) {
        const schema = TOOL_ARGS[call.name as keyof typeof TOOL_ARGS];
        expect(schema, `${agent} calls ${call.name}`).toBeDefined();
        expect(schema.safeParse(call.args).success, `${agent}: ${call.name} ${JSON.stringify(call.args)}`).toBe(true);
      }
    }
  });

  it('edits only files the node may write, one edit per file in each parallel batch', () => {
    for (const node of plan.nodes) {
      for (const [index, turn] of (script.agents[`node:${node.id}`] ?? []).entries()) {
        const paths = (turn.toolCalls ?? []).filter((call) => call.name === 'edit_file').map((call) => editFileTool.args.parse(call.args).path);
        expect(new Set(paths).size, `${node.id}, turn ${index + 1}`).toBe(paths.length);
        for (const path of paths) expect(node.writes.some((pattern) => patternCovers(pattern, path)), `${node.id} edits ${path}`).toBe(true);
      }
    }
  });

  it('has a summary in the compaction template for the summarizer', () => {
    const [summary] = turnsOf('summarizer');
    for (const heading of ['Primary request and intent', 'Files and code', 'Commands and results', 'Errors and fixes', 'Decisions and constraints', 'Pending work and next step', 'Critical context']) {
      expect(summary?.text).toContain(`## ${heading}`);
    }
  });

  it('leaves no call of total() once every edit is applied in plan order', () => {
    const files = editedFiles();
    expect([...files.keys()].sort()).toEqual([
      'src/api/invoices.js',
      'src/jobs/reminder.js',
      'src/models/discounted-invoice.js',
      'src/models/invoice.js',
      'src/models/standard-invoice.js',
      'src/render/pdf.js',
      'test/api.test.js',
      'test/invoice.test.js',
    ]);
    for (const [path, text] of files) expect(text, path).not.toMatch(/\btotal\(/);
    expect(files.get('src/models/invoice.js')).toContain('subtotal() {');
    expect(files.get('src/api/invoices.js')).toContain('totalCents: invoice.grandTotal(),');
  });
});

describe('examples/billing', () => {
  it('shows the reminder job among the importers of Invoice', () => {
    expect(findImporters(map, 'src/models/invoice.js#Invoice').map((importer) => importer.file)).toEqual(['src/jobs/reminder.js', 'src/models/standard-invoice.js', 'test/invoice.test.js']);
  });

  it('lints the scripted plan clean', () => {
    expect(lintPlan(plan, map)).toEqual([]);
  });

  it('warns about the reminder job, and only about it, when the plan forgets it', () => {
    const forgetful = {
      nodes: plan.nodes
        .filter((node) => node.id !== 'edit-reminder')
        .map((node) => ({ ...node, dependsOn: node.dependsOn.filter((id) => id !== 'edit-reminder') })),
    };
    expect(lintPlan(forgetful, map)).toEqual([
      expect.objectContaining({
        level: 'warning',
        code: 'unwritten-importer',
        message: expect.stringMatching(/^src\/jobs\/reminder\.js:\d+ uses Invoice\.total \(src\/models\/invoice\.js#Invoice\.total, changed by edit-models — inferred from its instructions; declare `changes:` to make it exact\) but no node writes it: /),
        nodeId: 'edit-models',
        file: 'src/jobs/reminder.js',
        symbol: 'src/models/invoice.js#Invoice.total',
      }),
    ]);
  });

  describe('its own tests (npm test: node --test, no dependencies)', () => {
    let copy: { dir: string; cleanup: () => void };
    beforeAll(() => {
      copy = tempDir('dagent-demo-');
      cpSync(DEMO, copy.dir, { recursive: true });
    });
    afterAll(() => copy.cleanup());

    it('pass before the rename and after every scripted edit', async () => {
      const test = (): Promise<{ stdout: string }> => runFile(process.execPath, ['--test'], { cwd: copy.dir, timeout: 60_000 });
      expect((await test()).stdout).toMatch(/^# fail 0$/m);
      for (const [path, text] of editedFiles()) writeFileSync(join(copy.dir, path), text);
      expect((await test()).stdout).toMatch(/^# fail 0$/m);
    }, 90_000);
  });
});
