import { afterEach, describe, expect, it } from 'vitest';
import { applyPlanPatch, reconstructRequest, type AmendInput, type CompletedNode, type PlanNode, type ReplanTrigger } from '../../engine/index.js';
import { PlanningFailedError } from '../../planners/index.js';
import { GOOD_PLAN, openPlannerBed, planInput, planText, type PlannerBed, type PlannerTurnScript } from './llm-planner-harness.js';

let bed: PlannerBed | undefined;
afterEach(async () => {
  await bed?.cleanup();
  bed = undefined;
});

const MISSED: ReplanTrigger = { kind: 'missed-work', nodeId: 'edit-a', title: 'Update the report', files: ['src/report.ts'], reason: 'src/report.ts calls Shape.area()' };
const FAILED: ReplanTrigger = { kind: 'failure', nodeId: 'edit-b', error: "src/b.ts(3,5): error TS2416: Property 'area' in type 'Circle' is not assignable" };
const DONE: readonly CompletedNode[] = [{ nodeId: 'read-all', result: 'Shape is declared in src/a.ts; Circle implements it.', filesChanged: [] }];

const EDIT_REPORT = { id: 'edit-report', kind: 'edit', title: 'Update the report', instructions: 'Call getArea().', reads: ['src/report.ts'], writes: ['src/report.ts'], dependsOn: ['edit-a'] };

function amendInput(target: PlannerBed, mode: 'append' | 'full', trigger: ReplanTrigger = MISSED): AmendInput {
  return { runId: target.runId, task: 'Rename Shape to Figure', workspace: target.workspace, plan: GOOD_PLAN, mode, trigger, completed: DONE, signal: new AbortController().signal };
}

const nodesText = (...nodes: readonly object[]): string => JSON.stringify({ nodes });

/** A bed whose planner has planned already (turn 1), then answers the amend turns given. */
async function plannedBed(amendTurns: readonly PlannerTurnScript[]): Promise<PlannerBed> {
  const opened = await openPlannerBed({ turns: [{ text: planText() }, ...amendTurns] });
  await opened.planner.plan(planInput(opened));
  return opened;
}

describe('createLlmPlanner: amend()', () => {
  it('appends new nodes after a rejected answer that reused an existing id, as a new turn of the planner', async () => {
    bed = await plannedBed([{ text: nodesText({ ...EDIT_REPORT, id: 'edit-a' }) }, { text: `Adding one node:\n${nodesText(EDIT_REPORT)}` }]);

    const patch = await bed.planner.amend(amendInput(bed, 'append'));

    expect(patch).toEqual({ kind: 'append', nodes: [EDIT_REPORT] });
    const notes = await bed.userMessages('note');
    expect(notes).toHaveLength(1);
    expect(notes[0]).toContain('nodes[0] (edit-a).id: "edit-a" is already the id of a node of the plan; new nodes need new ids');
    expect(notes[0]).toContain('{ "nodes": [...] }');

    const [, amendFirst, amendRepair] = bed.provider.requests;
    expect(amendFirst!.messages).toHaveLength(1);
    const instruction = amendFirst!.messages[0]!.content;
    expect(instruction).toContain('Node edit-a reported work the plan missed:\n- title: Update the report\n- files: src/report.ts\n- reason: src/report.ts calls Shape.area()');
    expect(instruction).toContain('# Current plan');
    expect(instruction).toContain(`\n    ${JSON.stringify(GOOD_PLAN.nodes[2])},\n`);
    expect(JSON.parse(/# Current plan\n\n```json\n([\s\S]*?)\n```/.exec(instruction)![1]!)).toEqual(GOOD_PLAN);
    expect(instruction).toContain('- read-all succeeded (no files changed). Its result:\n  Shape is declared in src/a.ts; Circle implements it.');
    expect(instruction).toContain('The nodes that waited for edit-a will also wait for your nodes.');
    expect(amendRepair!.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);

    const headers = (await bed.plannerEvents()).filter((event) => event.type === 'request/header');
    expect(headers.map((event) => [event.turn, event.step])).toEqual([
      [1, 1],
      [2, 2],
      [2, 3],
    ]);
    const rebuilt = await reconstructRequest(bed.store.db, bed.runId, 'planner', 2);
    expect(rebuilt.messages).toEqual(amendFirst!.messages);
    expect(rebuilt.turn).toBe(2);
  });

  const rejected: readonly [string, string, string][] = [
    ['a dependency on no node', nodesText({ ...EDIT_REPORT, dependsOn: ['edit-z'] }), 'nodes[0] (edit-report).dependsOn: unknown node "edit-z" (neither in the plan nor among the new nodes)'],
    [
      'a write conflict once appended',
      nodesText({ ...EDIT_REPORT, writes: ['src/a.ts'], dependsOn: ['read-all'] }),
      'write conflict: edit-a and edit-report both write src/a.ts and no dependency orders them; make one depend on the other',
    ],
    ['a misspelt field', nodesText({ ...EDIT_REPORT, depends: ['edit-a'] }), 'nodes[0] (edit-report): unknown field "depends"'],
    ['a whole plan instead of new nodes', planText(), 'nodes[0] (read-all).id: "read-all" is already the id of a node of the plan'],
    ['an answer without nodes', JSON.stringify({ node: EDIT_REPORT }), 'nodes: is required'],
    ['an empty list', nodesText(), 'nodes: give at least one new node'],
    ['two new nodes with one id', nodesText(EDIT_REPORT, { ...EDIT_REPORT, dependsOn: [] }), 'nodes[1] (edit-report).id: "edit-report" is already the id of nodes[0]'],
  ];

  it.each(rejected)('rejects an append with %s, with the exact error, then takes the fix', async (_name, invalid, error) => {
    bed = await plannedBed([{ text: invalid }, { text: nodesText(EDIT_REPORT) }]);

    const patch = await bed.planner.amend(amendInput(bed, 'append'));

    expect(patch).toEqual({ kind: 'append', nodes: [EDIT_REPORT] });
    const [note] = await bed.userMessages('note');
    expect(note).toContain(error);
    expect(bed.provider.requests.at(-1)!.messages.at(-1)!.content).toBe(note);
  });

  it('after a failure, appends replacement nodes that the engine wires in place of the failed node', async () => {
    const fix = { id: 'fix-b', kind: 'edit', title: 'Fix Circle', instructions: 'Rename area() in Circle too.', reads: ['src/b.ts'], writes: ['src/b.ts'], dependsOn: ['edit-a'] };
    bed = await plannedBed([{ text: nodesText(fix) }]);

    const patch = await bed.planner.amend(amendInput(bed, 'append', FAILED));

    expect(patch).toEqual({ kind: 'append', nodes: [fix] });
    const instruction = bed.provider.requests[1]!.messages[0]!.content;
    expect(instruction).toContain("Node edit-b failed after its retries. Its error:\n\n```\nsrc/b.ts(3,5): error TS2416");
    expect(instruction).toContain('Your nodes replace the failed node edit-b');
    const next = applyPlanPatch(GOOD_PLAN, patch, FAILED, { frozenNodeIds: new Set(['read-all']), completedNodeIds: new Set(['read-all']) });
    expect(next.nodes.map((node) => node.id)).toEqual(['read-all', 'edit-a', 'test', 'fix-b']);
    expect(next.nodes.find((node) => node.id === 'test')!.dependsOn).toEqual(['fix-b']);
  });

  it('replans in full mode: a cycle goes back with its error, the fixed whole plan replaces the old one', async () => {
    const replanned = planText((nodes) => {
      nodes[2]!['title'] = 'Rename in Circle, area() included';
      nodes[2]!['instructions'] = 'Use Figure, and rename area() to getArea().';
    });
    const cyclic = planText((nodes) => void (nodes[1]!['dependsOn'] = ['edit-b']));
    bed = await plannedBed([{ text: cyclic }, { text: replanned }]);

    const patch = await bed.planner.amend(amendInput(bed, 'full', FAILED));

    expect(patch.kind).toBe('replace');
    const plan = (patch as Extract<typeof patch, { kind: 'replace' }>).plan;
    expect(plan.nodes.map((node: PlanNode) => node.id)).toEqual(['read-all', 'edit-a', 'edit-b', 'test']);
    expect(plan.nodes[2]!.title).toBe('Rename in Circle, area() included');
    const [note] = await bed.userMessages('note');
    expect(note).toContain('dependency cycle edit-a → edit-b → edit-a');
    expect(note).toContain('whole corrected plan document');
    const instruction = bed.provider.requests[1]!.messages[0]!.content;
    expect(instruction).toContain('Answer with a whole new plan document as one JSON object. Keep the nodes that already succeeded (read-all) with the same ids');
  });

  it('rejects a full replan that breaks once the succeeded nodes are put back', async () => {
    // edit-a succeeded; a plan that drops it and writes src/a.ts again elsewhere conflicts with it once the engine keeps it.
    const dropsDone = planText((nodes) => {
      nodes[1]!['id'] = 'edit-a2';
      nodes[2]!['dependsOn'] = ['edit-a2'];
    });
    bed = await plannedBed([{ text: dropsDone }, { text: planText() }]);
    const completed: CompletedNode[] = [...DONE, { nodeId: 'edit-a', result: 'Renamed Shape to Figure.', filesChanged: ['src/a.ts'] }];

    const patch = await bed.planner.amend({ ...amendInput(bed, 'full', FAILED), completed });

    expect(patch).toEqual({ kind: 'replace', plan: GOOD_PLAN });
    const [note] = await bed.userMessages('note');
    expect(note).toContain('write conflict: edit-a and edit-a2 both write src/a.ts and no dependency orders them');
  });

  it('gives up an amendment after 3 repairs with PlanningFailedError naming the operation', async () => {
    const invalid = nodesText({ ...EDIT_REPORT, id: 'edit-a' });
    bed = await plannedBed([{ text: invalid }, { text: invalid }, { text: invalid }, { text: invalid }]);

    const error = (await bed.planner.amend(amendInput(bed, 'append')).catch((caught: unknown) => caught)) as PlanningFailedError;

    expect(error).toBeInstanceOf(PlanningFailedError);
    expect(error).toMatchObject({ operation: 'amend', attempts: 4 });
    expect(error.message).toMatch(/^amending the plan failed: no valid plan after 4 attempts \(3 repairs\)/);
  });

  it('runs concurrent amendments one after the other, each on a surface of its own', async () => {
    const other = { ...EDIT_REPORT, id: 'edit-other', writes: ['src/other.ts'], reads: ['src/other.ts'] };
    bed = await plannedBed([{ text: nodesText(EDIT_REPORT) }, { text: nodesText(other) }]);

    const [first, second] = await Promise.all([bed.planner.amend(amendInput(bed, 'append')), bed.planner.amend(amendInput(bed, 'append', FAILED))]);

    expect(first).toEqual({ kind: 'append', nodes: [EDIT_REPORT] });
    expect(second).toEqual({ kind: 'append', nodes: [other] });
    const requests = bed.provider.requests;
    expect(requests.map((request) => request.messages.length)).toEqual([1, 1, 1]);
    expect(requests[1]!.messages[0]!.content).toContain('reported work the plan missed');
    expect(requests[2]!.messages[0]!.content).toContain('Node edit-b failed');
    const turns = (await bed.plannerEvents()).filter((event) => event.type === 'user/message').map((event) => event.turn);
    expect(turns).toEqual([1, 2, 3]);
  });
});
