import { afterEach, describe, expect, it } from 'vitest';
import { DagentError, reconstructRequest, type SessionEvent } from '../../engine/index.js';
import { validatePlan } from '../../engine/plan/validate-plan.js';
import { PlanningFailedError } from '../../planners/index.js';
import { createToolRuntime } from '../../tools/index.js';
import { GOOD_PLAN, openPlannerBed, planInput, planText, type PlannerBed } from './llm-planner-harness.js';

let bed: PlannerBed | undefined;
afterEach(async () => {
  await bed?.cleanup();
  bed = undefined;
});

const types = (events: readonly SessionEvent[]): string[] => events.map((event) => event.type);

describe('createLlmPlanner: plan()', () => {
  it('returns the plan of a first answer that is a fenced JSON document with prose around it', async () => {
    const answer = `Here is the plan I propose.\n\n\`\`\`json\n${planText()}\n\`\`\`\n\nIt edits the interface first.`;
    bed = await openPlannerBed({ turns: [{ text: answer }] });

    const plan = await bed.planner.plan(planInput(bed));

    expect(plan).toEqual(GOOD_PLAN);
    expect(validatePlan(plan)).toEqual([]);
    const events = await bed.plannerEvents();
    expect(types(events)).toEqual(['user/message', 'prompt/recorded', 'request/header', 'request/context', 'assistant/message', 'agent/finished']);
    expect(events.every((event) => event.nodeId === 'planner' && event.turn === 1)).toBe(true);
    const [request] = bed.provider.requests;
    expect(request!.agent).toBe('planner');
    expect(request!.model).toBe('big-model');
    expect(request!.tools).toEqual([]);
    expect(request!.system).toContain('# What a plan is');
    expect(request!.system).toContain('"additionalProperties":false');
    expect(request!.system).toContain('You have no tools');
    expect(request!.messages).toHaveLength(1);
    expect(request!.messages[0]).toMatchObject({ role: 'user', source: 'instruction' });
    const instruction = request!.messages[0]!.content;
    expect(instruction).toContain('# Task\n\nRename Shape to Figure');
    expect(instruction).toContain('src/a.ts (300 B) exports Shape');
    expect(instruction).toContain('src/b.ts (200 B) exports Circle\n  → src/a.ts');
    expect(instruction).toContain('- src/a.ts#Shape ← src/b.ts');
  });

  it('puts project memory in the system prompt after the rules, the same for every request', async () => {
    bed = await openPlannerBed({
      turns: [{ text: '{}' }, { text: planText() }],
      planner: { projectMemory: '# Project memory\n\nTests run with `npm run test:unit`.' },
    });
    await bed.planner.plan(planInput(bed));
    const [first, second] = bed.provider.requests;
    expect(first!.system.indexOf('Tests run with `npm run test:unit`.')).toBeGreaterThan(first!.system.indexOf('# Rules'));
    expect(second!.system).toBe(first!.system);
  });

  const repairs: readonly [string, string, string][] = [
    ['bad JSON', planText().replace('"goal":', '"goal"'), 'not valid JSON'],
    [
      'a misspelt field',
      planText((nodes) => {
        nodes[1]!['depends_on'] = nodes[1]!['dependsOn'];
        delete nodes[1]!['dependsOn'];
      }),
      'nodes[1] (edit-a): unknown field "depends_on" (did you mean "dependsOn"?)',
    ],
    ['an unknown dependency', planText((nodes) => void (nodes[1]!['dependsOn'] = ['read-z'])), 'nodes[1] (edit-a).dependsOn: unknown node "read-z"'],
    [
      'a cycle',
      planText((nodes) => void (nodes[0]!['dependsOn'] = ['edit-b'])),
      'dependency cycle read-all → edit-a → edit-b → read-all: each node waits for the one before it, so none can start; remove one of these dependencies',
    ],
    [
      'a write conflict',
      planText((nodes) => {
        nodes[2]!['writes'] = ['src/a.ts'];
        nodes[2]!['dependsOn'] = ['read-all'];
      }),
      'write conflict: edit-a and edit-b both write src/a.ts and no dependency orders them; make one depend on the other',
    ],
    ['a command node without a command', planText((nodes) => void delete nodes[3]!['command']), 'nodes[3] (test).command: a command node needs the command to run (e.g. "npm test")'],
    ['no JSON at all', 'I would first read the files, then edit them.', 'the answer holds no JSON object'],
  ];

  it.each(repairs)('sends %s back with the exact error, then takes the corrected plan', async (_name, invalid, error) => {
    bed = await openPlannerBed({ turns: [{ text: invalid }, { text: planText() }] });

    const plan = await bed.planner.plan(planInput(bed));

    expect(plan).toEqual(GOOD_PLAN);
    const notes = await bed.userMessages('note');
    expect(notes).toHaveLength(1);
    expect(notes[0]).toContain(error);
    expect(notes[0]).toContain('repair 1 of 3');
    const received = bed.provider.requests[1]!.messages;
    expect(received.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(received[1]!.content).toBe(invalid);
    expect(received[2]).toMatchObject({ role: 'user', source: 'note' });
    expect(received[2]!.content).toBe(notes[0]);
    const steps = (await bed.plannerEvents()).filter((event) => event.type === 'request/header').map((event) => event.step);
    expect(steps).toEqual([1, 2]);
  });

  it('gives up after 3 repairs with PlanningFailedError, every attempt kept in the log', async () => {
    const invalid = planText((nodes) => void (nodes[1]!['dependsOn'] = ['read-z']));
    bed = await openPlannerBed({ turns: [{ text: invalid }, { text: 'still thinking' }, { text: invalid }, { text: invalid }, { text: planText() }] });

    const failure = await bed.planner.plan(planInput(bed)).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(PlanningFailedError);
    expect(failure).toBeInstanceOf(DagentError);
    const error = failure as PlanningFailedError;
    expect(error).toMatchObject({ runId: bed.runId, operation: 'plan', attempts: 4, exitCode: 1, stopped: undefined });
    expect(error.issues.map((issue) => issue.code)).toEqual(['unknown-dependency']);
    expect(error.message).toContain('no valid plan after 4 attempts (3 repairs)');
    expect(error.message).toContain(`\`dagent log ${bed.runId} --node planner\` shows every attempt`);
    expect(error.message).toContain('nodes[1] (edit-a).dependsOn: unknown node "read-z"');
    const events = await bed.plannerEvents();
    const answers = events.flatMap((event) => (event.type === 'assistant/message' ? [event.payload.content] : []));
    expect(answers).toEqual([invalid, 'still thinking', invalid, invalid]);
    const notes = await bed.userMessages('note');
    expect(notes.map((note) => /repair (\d) of 3/.exec(note)?.[1])).toEqual(['1', '2', '3']);
    expect(notes[1]).toContain('the answer holds no JSON object');
    expect(bed.provider.requests).toHaveLength(4);
  });

  it('fails with the reason when the planner agent stops before answering', async () => {
    bed = await openPlannerBed({ turns: [{ error: { status: 401, message: 'invalid api key' } }] });

    const error = (await bed.planner.plan(planInput(bed)).catch((caught: unknown) => caught)) as PlanningFailedError;

    expect(error).toBeInstanceOf(PlanningFailedError);
    expect(error.stopped?.reason).toBe('error');
    expect(error.attempts).toBe(1);
    expect(error.message).toMatch(/^planning failed: the planner stopped before answering \(error: .*invalid api key.*\) in attempt 1/);
    expect(types(await bed.plannerEvents())).toContain('agent/finished');
  });

  it('rethrows the abort reason when the run is cancelled', async () => {
    bed = await openPlannerBed({ turns: [{ text: planText() }] });
    const controller = new AbortController();
    controller.abort(new Error('cancelled by the user'));
    await expect(bed.planner.plan({ ...planInput(bed), signal: controller.signal })).rejects.toThrow('cancelled by the user');
    expect(await bed.plannerEvents()).toEqual([]);
  });

  it('names @path files in the instruction without their content, and reads them with read-only tools', async () => {
    const secret = 'export interface Shape { area(): number } // CONTENT-MARKER-7731';
    bed = await openPlannerBed({
      files: { 'src/shape.ts': `${secret}\n`, 'src/circle.ts': "import type { Shape } from './shape.js';\n" },
      turns: [
        { toolCalls: [{ id: 'call-read', name: 'read_file', args: { path: 'src/shape.ts' } }] },
        { toolCalls: [{ id: 'call-write', name: 'write_file', args: { path: 'src/shape.ts', content: 'oops' } }] },
        { text: planText() },
      ],
      repoMap: 'scan',
      planner: { tools: createToolRuntime({ approval: 'auto' }) },
    });

    const plan = await bed.planner.plan(planInput(bed, 'Rename Shape in @src/shape.ts to Figure', ['src/shape.ts']));

    expect(plan).toEqual(GOOD_PLAN);
    const [first, , third] = bed.provider.requests;
    expect(first!.tools.map((tool) => tool.name)).toEqual(['grep', 'list_files', 'read_file']);
    expect(first!.system).toContain('You may use list_files, read_file, grep');
    const instruction = first!.messages[0]!.content;
    expect(instruction).toContain('# Files the task names');
    expect(instruction).toContain('read them with read_file');
    expect(instruction).toContain('\n- src/shape.ts\n');
    expect(instruction).not.toContain('CONTENT-MARKER-7731');
    expect(instruction).toContain('src/circle.ts'); // the scanned map
    const toolMessages = third!.messages.filter((message) => message.role === 'tool');
    expect(toolMessages[0]).toMatchObject({ toolCallId: 'call-read', isError: false });
    expect(toolMessages[0]!.content).toContain('CONTENT-MARKER-7731');
    expect(toolMessages[1]).toMatchObject({ toolCallId: 'call-write', isError: true });
    const results = (await bed.plannerEvents()).filter((event): event is SessionEvent<'tool/result'> => event.type === 'tool/result');
    expect(results.map((event) => event.payload.meta.outcome)).toEqual(['ok', 'not-allowed']);
  });

  it('is reconstructible from the log alone: dagent inspect --node planner gets the exact requests', async () => {
    bed = await openPlannerBed({ turns: [{ text: planText((nodes) => void (nodes[0]!['dependsOn'] = ['edit-b'])) }, { text: planText() }] });
    await bed.planner.plan(planInput(bed));
    const [first, second] = bed.provider.requests;

    const last = await reconstructRequest(bed.store.db, bed.runId, 'planner');
    const atStepOne = await reconstructRequest(bed.store.db, bed.runId, 'planner', 1);

    for (const [rebuilt, sent] of [
      [last, second!],
      [atStepOne, first!],
    ] as const) {
      expect(rebuilt.system).toBe(sent.system);
      expect(rebuilt.tools).toEqual(sent.tools);
      expect(rebuilt.messages).toEqual(sent.messages);
      expect(rebuilt.header).toMatchObject({ agent: 'planner', provider: 'scripted', model: 'big-model' });
    }
    expect(last).toMatchObject({ nodeId: 'planner', turn: 1, step: 2 });
  });
});
