import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RUN_VIEW_EVENT_TYPES, approvePlan, createRun, currentPlan, executeRun, foldRunView, readEvents, runLog, savePlan, type Approver, type NodeRuntime, type Plan, type Planner, type Store, type ToolRuntime } from '../../../../engine/index.js';
import { createScriptedProvider } from '../../../../engine/model/scripted-provider.js';
import { PlanChangedError, PlanNotApprovedError } from '../../../../engine/run/storage/plan-store.js';
import { FakeNodeFiles } from '../../../helpers/fake-node-files.js';
import { FakeTools, toolFailed, toolOk } from '../../../helpers/fake-tools.js';
import { openTempStore } from '../../../helpers/temp-store.js';

const ok = toolOk;
const failed = toolFailed;

const approver: Approver = { interactive: false, ask: async () => ({ decision: 'no' }) };

/** The canonical refactor shape of SPEC §2.1. */
const REFACTOR: Plan = {
  goal: 'Rename Shape.area() to Shape.getArea() and keep the tests green',
  rationale: 'A declares the interface; B and C implement it; D calls B.',
  nodes: [
    { id: 'read-all', kind: 'read', title: 'Read the shapes', instructions: '', reads: ['src/*.ts'], writes: [], dependsOn: [] },
    { id: 'edit-a', kind: 'edit', title: 'Interface A', instructions: '', reads: ['src/a.ts'], writes: ['src/a.ts'], dependsOn: ['read-all'] },
    { id: 'edit-b', kind: 'edit', title: 'Implement in B', instructions: '', reads: ['src/b.ts'], writes: ['src/b.ts'], dependsOn: ['edit-a'] },
    { id: 'edit-c', kind: 'edit', title: 'Implement in C', instructions: '', reads: ['src/c.ts'], writes: ['src/c.ts'], dependsOn: ['edit-a'] },
    { id: 'edit-d', kind: 'edit', title: 'Caller D', instructions: '', reads: ['src/d.ts'], writes: ['src/d.ts'], dependsOn: ['edit-b'] },
    { id: 'test', kind: 'command', title: 'Run the tests', instructions: '', command: 'npm test', reads: [], writes: [], dependsOn: ['edit-c', 'edit-d'] },
  ],
};

const answers = (...ids: string[]): Record<string, { text: string }[]> => Object.fromEntries(ids.map((id) => [`node:${id}`, [{ text: `${id} done` }]]));

let store: Store;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ store, cleanup } = await openTempStore()));
afterEach(async () => cleanup());

async function approvedRun(plan: Plan): Promise<string> {
  const run = await createRun(store.db, { task: plan.goal, workspace: '/repo', mode: 'plan' });
  await savePlan(store.db, run.id, { plan, reason: 'planned' });
  await approvePlan(store.db, run.id);
  return run.id;
}

function runtimeWith(script: Record<string, unknown[]>, tools: ToolRuntime): NodeRuntime {
  const provider = createScriptedProvider({ script: { agents: script } });
  return {
    workspace: '/repo',
    tools,
    approver,
    resolveModel: () => ({ provider, model: 'scripted' }),
    defaultTools: () => undefined,
  };
}

describe('executeRun', () => {
  it('runs the refactor shape in dependency order, handing results to dependents, and succeeds', async () => {
    const runId = await approvedRun(REFACTOR);
    const tools = new FakeTools({ run_command: () => ok('exit code 0\n12 tests passed') });
    const files = new FakeNodeFiles();
    files.changed.set('edit-b', ['src/b.ts']);

    const result = await executeRun({ db: store.db, runId, runtime: runtimeWith(answers('read-all', 'edit-a', 'edit-b', 'edit-c', 'edit-d'), tools), files, signal: new AbortController().signal });

    expect(result.status).toBe('succeeded');
    expect(result.nodes.every((node) => node.status === 'succeeded' && node.attempts === 1)).toBe(true);
    const events = await readEvents(store.db, runId);
    const finished = (id: string) => events.findIndex((event) => event.type === 'node/succeeded' && event.nodeId === id);
    const started = (id: string) => events.findIndex((event) => event.type === 'node/started' && event.nodeId === id);
    for (const node of REFACTOR.nodes) for (const dependency of node.dependsOn) expect(finished(dependency)).toBeLessThan(started(node.id));

    const handoff = events.find((event) => event.nodeId === 'edit-d' && event.type === 'user/message' && event.payload.source === 'handoff');
    expect(handoff?.payload).toMatchObject({ content: 'Result of edit-b (Implement in B):\nedit-b done\nFiles changed: src/b.ts' });
    expect(tools.calls).toEqual([{ node: 'test', name: 'run_command', args: { command: 'npm test' } }]);

    const view = foldRunView(runId, await readEvents(store.db, runId, { types: RUN_VIEW_EVENT_TYPES }));
    expect(view.status).toBe('succeeded');
    const rows = await store.db.selectFrom('nodes').select(['node_id', 'status']).where('run_id', '=', runId).execute();
    expect(rows.every((row) => row.status === 'succeeded')).toBe(true);
  });

  it('with one slot, starts the node with the costliest work ahead of it by the plan\'s estimates first', async () => {
    // Two quick side reads listed first; the interface edit leads a long chain (its caller's edit).
    const plan: Plan = {
      goal: 'Rename Shape.area()',
      rationale: 'the interface first, its caller after it; two side reads',
      nodes: [
        { id: 'read-docs', kind: 'read', title: 'Read the docs', instructions: '', reads: [], writes: [], dependsOn: [], estimate: 2_000 },
        { id: 'read-notes', kind: 'read', title: 'Read the notes', instructions: '', reads: [], writes: [], dependsOn: [], estimate: 2_000 },
        { id: 'edit-a', kind: 'edit', title: 'Interface A', instructions: '', reads: [], writes: ['src/a.ts'], dependsOn: [], estimate: 3_000 },
        { id: 'edit-d', kind: 'edit', title: 'Caller D', instructions: '', reads: [], writes: ['src/d.ts'], dependsOn: ['edit-a'], estimate: 40_000 },
      ],
    };
    const runId = await approvedRun(plan);
    const files = new FakeNodeFiles();
    files.changed.set('edit-a', ['src/a.ts']);
    files.changed.set('edit-d', ['src/d.ts']);

    const runtime = runtimeWith(answers('read-docs', 'read-notes', 'edit-a', 'edit-d'), new FakeTools({}));
    const result = await executeRun({ db: store.db, runId, runtime, files, settings: { concurrency: 1 }, signal: new AbortController().signal });

    expect(result.status).toBe('succeeded');
    const starts = (await readEvents(store.db, runId, { types: ['node/started'] })).map((event) => event.nodeId);
    expect(starts).toEqual(['edit-a', 'edit-d', 'read-docs', 'read-notes']);
  });

  it('gives every node of the run the same system prompt, so siblings share a cached prefix', async () => {
    const runId = await approvedRun(REFACTOR);
    const tools = new FakeTools({ run_command: () => ok('ok'), read_file: () => ok('x') });
    await executeRun({ db: store.db, runId, runtime: runtimeWith(answers('read-all', 'edit-a', 'edit-b', 'edit-c', 'edit-d'), tools), files: new FakeNodeFiles(), signal: new AbortController().signal });
    const headers = await readEvents(store.db, runId, { types: ['request/header'] });
    expect(headers).toHaveLength(5);
    expect(new Set(headers.map((event) => event.type === 'request/header' && event.payload.systemHash)).size).toBe(1);
  });

  it('fails the run when the tests fail, skipping nothing that could still run', async () => {
    const runId = await approvedRun(REFACTOR);
    const tools = new FakeTools({ run_command: () => failed('exit code 1\n1 test failed: getArea is not a function') });
    const result = await executeRun({ db: store.db, runId, runtime: runtimeWith(answers('read-all', 'edit-a', 'edit-b', 'edit-c', 'edit-d'), tools), files: new FakeNodeFiles(), signal: new AbortController().signal });
    expect(result.status).toBe('failed');
    expect(result.error).toBe('node test failed: `npm test` exited with code 1: 1 test failed: getArea is not a function');
    expect(result.nodes.find((node) => node.id === 'test')).toMatchObject({ status: 'failed', attempts: 1 });
    expect((await readEvents(store.db, runId, { types: ['run/failed'] }))).toHaveLength(1);
  });

  it('skips the dependents of a node that failed after its retries', async () => {
    const runId = await approvedRun(REFACTOR);
    const script = { ...answers('read-all', 'edit-b', 'edit-c', 'edit-d'), 'node:edit-a': [{ error: { status: 400, message: 'bad request' } }, { error: { status: 400, message: 'bad request' } }] };
    const result = await executeRun({ db: store.db, runId, runtime: runtimeWith(script, new FakeTools({})), files: new FakeNodeFiles(), signal: new AbortController().signal, sleep: async () => undefined });
    expect(result.status).toBe('failed');
    expect(Object.fromEntries(result.nodes.map((node) => [node.id, node.status]))).toEqual({
      'read-all': 'succeeded',
      'edit-a': 'failed',
      'edit-b': 'skipped',
      'edit-c': 'skipped',
      'edit-d': 'skipped',
      test: 'skipped',
    });
    expect(result.nodes.find((node) => node.id === 'edit-a')?.attempts).toBe(2);
  });

  it('appends a node for missed work, rewires the tests to wait for it, and goes on (no planner: a default edit node)', async () => {
    const runId = await approvedRun(REFACTOR);
    const tools = new FakeTools({
      run_command: () => ok('ok'),
      report_missing_work: async (args, context) => {
        await context.session.append({ type: 'work/reported', payload: { title: String(args.title), files: args.files as string[], reason: String(args.reason) } });
        return ok('recorded: the plan will get a node for it');
      },
    });
    const script = {
      ...answers('read-all', 'edit-a', 'edit-c', 'edit-d', 'edit-src-e-ts'),
      'node:edit-b': [
        { toolCalls: [{ name: 'report_missing_work', args: { title: 'Update E', files: ['src/e.ts'], reason: 'E also implements Shape' } }] },
        { text: 'edit-b done; reported E' },
      ],
    };
    const result = await executeRun({ db: store.db, runId, runtime: runtimeWith(script, tools), files: new FakeNodeFiles(), signal: new AbortController().signal });

    expect(result.status).toBe('succeeded');
    expect(result.planVersion).toBe(2);
    expect(result.replans).toBe(1);
    const plan = (await currentPlan(store.db, runId)).plan;
    expect(plan.nodes.find((node) => node.id === 'edit-src-e-ts')).toMatchObject({ kind: 'edit', writes: ['src/e.ts'], dependsOn: ['edit-b'] });
    expect(plan.nodes.find((node) => node.id === 'edit-d')?.dependsOn).toEqual(['edit-b', 'edit-src-e-ts']);
    const events = await readEvents(store.db, runId);
    const index = (type: string, nodeId?: string) => events.findIndex((event) => event.type === type && (nodeId === undefined || event.nodeId === nodeId));
    expect(index('node/succeeded', 'edit-src-e-ts')).toBeLessThan(index('node/started', 'test'));
    expect(events.find((event) => event.type === 'plan/amended')?.payload).toMatchObject({ version: 2, reason: 'replan (append): edit-b reported missed work: Update E' });
  });

  it('replans a failed node with the planner: at or above half done, append and rewire', async () => {
    const runId = await approvedRun(REFACTOR);
    const amends: string[] = [];
    const planner: Planner = {
      plan: async () => REFACTOR,
      amend: async (input) => {
        amends.push(`${input.mode} ${input.trigger.kind} ${input.trigger.nodeId}`);
        return { kind: 'append', nodes: [{ id: 'edit-d-again', kind: 'edit', title: 'Caller D, carefully', instructions: '', reads: ['src/d.ts'], writes: ['src/d.ts'], dependsOn: ['edit-d'] }] };
      },
    };
    const script = { ...answers('read-all', 'edit-a', 'edit-b', 'edit-c', 'edit-d-again'), 'node:edit-d': [{ error: { status: 400, message: 'nope' } }, { error: { status: 400, message: 'nope' } }] };
    const tools = new FakeTools({ run_command: () => ok('ok') });
    const result = await executeRun({ db: store.db, runId, runtime: runtimeWith(script, tools), files: new FakeNodeFiles(), planner, signal: new AbortController().signal, sleep: async () => undefined });

    expect(amends).toEqual(['append failure edit-d']);
    expect(result.status).toBe('succeeded');
    const plan = (await currentPlan(store.db, runId)).plan;
    expect(plan.nodes.map((node) => node.id)).not.toContain('edit-d');
    expect(plan.nodes.find((node) => node.id === 'edit-d-again')?.dependsOn).toEqual(['edit-b']);
    expect(plan.nodes.find((node) => node.id === 'test')?.dependsOn).toEqual(['edit-c', 'edit-d-again']);
  });

  it('replans in full when less than half is done, keeping the finished nodes', async () => {
    const runId = await approvedRun(REFACTOR);
    const modes: string[] = [];
    const planner: Planner = {
      plan: async () => REFACTOR,
      amend: async (input) => {
        modes.push(input.mode);
        return {
          kind: 'replace',
          plan: {
            goal: REFACTOR.goal,
            rationale: 'do it in one go',
            nodes: [
              { id: 'read-all', kind: 'read', title: 'changed title is ignored: it finished', instructions: '', reads: [], writes: [], dependsOn: [] },
              { id: 'edit-all', kind: 'edit', title: 'Everything', instructions: '', reads: ['src/*.ts'], writes: ['src/*.ts'], dependsOn: ['read-all'] },
            ],
          },
        };
      },
    };
    const script = { ...answers('read-all', 'edit-all'), 'node:edit-a': [{ error: { status: 400, message: 'x' } }, { error: { status: 400, message: 'x' } }] };
    const result = await executeRun({ db: store.db, runId, runtime: runtimeWith(script, new FakeTools({})), files: new FakeNodeFiles(), planner, signal: new AbortController().signal, sleep: async () => undefined });
    expect(modes).toEqual(['full']);
    expect(result.status).toBe('succeeded');
    const plan = (await currentPlan(store.db, runId)).plan;
    expect(plan.nodes.map((node) => node.id)).toEqual(['read-all', 'edit-all']);
    expect(plan.nodes[0]!.title).toBe('Read the shapes');
  });

  it('stops replanning at the maximum and lets the failure stand', async () => {
    const runId = await approvedRun(REFACTOR);
    let calls = 0;
    const planner: Planner = {
      plan: async () => REFACTOR,
      amend: async () => {
        calls += 1;
        return { kind: 'append', nodes: [{ id: 'retry-d', kind: 'edit', title: 'D again', instructions: '', reads: [], writes: ['src/d.ts'], dependsOn: [] }] };
      },
    };
    const failing = [{ error: { status: 400, message: 'x' } }];
    const script = { ...answers('read-all', 'edit-a', 'edit-b', 'edit-c'), 'node:edit-d': failing, 'node:retry-d': failing, 'node:retry-d-2': failing };
    const result = await executeRun({
      db: store.db, runId, runtime: runtimeWith(script, new FakeTools({})), files: new FakeNodeFiles(), planner,
      settings: { maxReplans: 2, maxAttempts: 1 }, signal: new AbortController().signal,
    });
    expect(calls).toBe(2);
    expect(result).toMatchObject({ status: 'failed', replans: 2 });
    const finished = await readEvents(store.db, runId, { types: ['replan/finished'] });
    expect(finished.map((event) => event.type === 'replan/finished' && event.payload.outcome)).toEqual(['amended', 'amended', 'gave-up']);
  });

  it('pauses for review after a replan when asked to', async () => {
    const runId = await approvedRun(REFACTOR);
    const planner: Planner = { plan: async () => REFACTOR, amend: async () => ({ kind: 'append', nodes: [{ id: 'fix-d', kind: 'edit', title: 'Fix D', instructions: '', reads: [], writes: ['src/d.ts'], dependsOn: [] }] }) };
    const script = { ...answers('read-all', 'edit-a', 'edit-b', 'edit-c'), 'node:edit-d': [{ error: { status: 400, message: 'x' } }] };
    const result = await executeRun({ db: store.db, runId, runtime: runtimeWith(script, new FakeTools({})), files: new FakeNodeFiles(), planner, settings: { reviewReplans: true, maxAttempts: 1 }, signal: new AbortController().signal });
    expect(result.status).toBe('paused');
    const stored = await currentPlan(store.db, runId);
    expect(stored).toMatchObject({ version: 2, status: 'awaiting_approval' });
    const run = await store.db.selectFrom('runs').select('status').where('id', '=', runId).executeTakeFirstOrThrow();
    expect(run.status).toBe('awaiting_approval');
  });

  it('a replan that adds a command waits for approval: the approval of the first plan does not cover it, even without a terminal', async () => {
    const added = { id: 'clean', kind: 'command' as const, title: 'Clean up', instructions: '', command: 'rm -rf canary', reads: [], writes: [], dependsOn: [] };
    const planner: Planner = { plan: async () => REFACTOR, amend: async () => ({ kind: 'append', nodes: [added] }) };
    const script = () => ({ ...answers('read-all', 'edit-a', 'edit-b', 'edit-c'), 'node:edit-d': [{ error: { status: 400, message: 'x' } }] });
    const replanned = async (settings: { reviewCommandChanges?: boolean }) => {
      const runId = await approvedRun(REFACTOR);
      const tools = new FakeTools({ run_command: () => ok('exit code 0') });
      const result = await executeRun({ db: store.db, runId, runtime: runtimeWith(script(), tools), files: new FakeNodeFiles(), planner, settings: { maxAttempts: 1, ...settings }, signal: new AbortController().signal });
      const commands = tools.calls.filter((call) => call.name === 'run_command').map((call) => (call.args as { command?: string }).command);
      return { runId, result, commands };
    };

    const reviewed = await replanned({});
    expect(reviewed.result.status).toBe('paused');
    expect(reviewed.commands).not.toContain('rm -rf canary');
    expect(await currentPlan(store.db, reviewed.runId)).toMatchObject({ version: 2, status: 'awaiting_approval' });

    // Under an `auto` policy for commands (no review), the same amendment runs the command at once.
    const unreviewed = await replanned({ reviewCommandChanges: false });
    expect(unreviewed.commands).toContain('rm -rf canary');
  });

  it('resumes a cancelled run without running succeeded nodes again', async () => {
    const runId = await approvedRun(REFACTOR);
    const controller = new AbortController();
    const tools = new FakeTools({ run_command: () => ok('ok') });
    const firstScript = { ...answers('read-all', 'edit-a', 'edit-b'), 'node:edit-c': [{ text: 'slow', latencyMs: 10_000 }] };
    const files = new FakeNodeFiles();
    // Ctrl-C once edit-c has started (its row is appended to the live log), whatever the machine's load.
    const cancelled = new Promise<void>((resolve) => {
      const stop = runLog(store.db, runId).onAppend((events) => {
        if (!events.some((event) => event.type === 'node/started' && event.nodeId === 'edit-c')) return;
        stop();
        controller.abort(new Error('Ctrl-C'));
        resolve();
      });
    });
    const first = await executeRun({ db: store.db, runId, runtime: runtimeWith(firstScript, tools), files, signal: controller.signal });
    await cancelled;
    expect(first.status).toBe('cancelled');
    const succeededBefore = first.nodes.filter((node) => node.status === 'succeeded').map((node) => node.id);
    expect(succeededBefore).toContain('read-all');

    const second = await executeRun({ db: store.db, runId, runtime: runtimeWith(answers('edit-b', 'edit-c', 'edit-d'), tools), files, signal: new AbortController().signal });
    expect(second.status).toBe('succeeded');
    const started = (await readEvents(store.db, runId, { types: ['node/started'] })).map((event) => event.nodeId);
    for (const id of succeededBefore) expect(started.filter((node) => node === id)).toHaveLength(1);
    expect(files.calls).toContain('restore edit-c');
  });

  it('refuses an unapproved plan and a plan changed since its approval', async () => {
    const run = await createRun(store.db, { task: 't', workspace: '/repo', mode: 'plan' });
    await savePlan(store.db, run.id, { plan: REFACTOR, reason: 'planned' });
    const options = { db: store.db, runId: run.id, runtime: runtimeWith({}, new FakeTools({})), files: new FakeNodeFiles(), signal: new AbortController().signal };
    await expect(executeRun(options)).rejects.toBeInstanceOf(PlanNotApprovedError);
    const approved = await approvePlan(store.db, run.id);
    await expect(executeRun({ ...options, approvedHash: 'deadbeef' })).rejects.toBeInstanceOf(PlanChangedError);
    expect(approved.hash).toMatch(/^[0-9a-f]{16}$/);
  });
});
