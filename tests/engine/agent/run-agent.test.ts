import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventLog, Session, SystemPrompt, createRun, runAgent, type AgentCompactor, type Approver, type Store, type ToolResult } from '../../../engine/index.js';
import type { RunAgentOptions } from '../../../engine/agent/run-agent-options.js';
import { ContextOverflowError, ModelRequestError } from '../../../engine/model/model-errors.js';
import { FakeModel, type FakeTurn } from '../../helpers/fake-model.js';
import { FakeTools, toolOk, type FakeToolHandler } from '../../helpers/fake-tools.js';
import { openTempStore } from '../../helpers/temp-store.js';
import { until } from '../../helpers/wait-until.js';

const ok = toolOk;
type Handler = FakeToolHandler;
const denyAll: Approver = { interactive: false, ask: async () => ({ decision: 'no', reason: 'no terminal' }) };

let store: Store;
let cleanup: () => Promise<void>;
let runId: string;
beforeEach(async () => {
  ({ store, cleanup } = await openTempStore());
  runId = (await createRun(store.db, { task: 't', workspace: '/w', mode: 'react' })).id;
});
afterEach(async () => cleanup());

async function agentWith(turns: readonly FakeTurn[], tools: FakeTools, overrides: Partial<RunAgentOptions> = {}) {
  const { running, model, session } = await startAgent(turns, tools, overrides);
  return { outcome: await running, model, session };
}

/** The agent under way: `running` is its outcome to come. */
async function startAgent(turns: readonly FakeTurn[], tools: FakeTools, overrides: Partial<RunAgentOptions> = {}) {
  const session = overrides.session ?? (await Session.open(new EventLog(store.db, runId), 'react'));
  const model = new FakeModel(turns);
  const prompt = new SystemPrompt().addSection({ id: 'identity', text: 'You are a coding agent.' }).addTools('fake', () => tools.specs());
  const running = runAgent({
    agent: 'react',
    session,
    prompt,
    provider: model,
    model: 'fake-1',
    tools,
    toolContext: { runId, nodeId: 'react', workspace: '/w', approver: denyAll },
    instruction: 'Rename area() to getArea().',
    signal: new AbortController().signal,
    ...overrides,
  });
  running.catch(() => undefined); // awaited by the story; handled here so a failure cannot go unhandled meanwhile
  return { running, model, session };
}

describe('runAgent', () => {
  it('calls tools, feeds their results back, and ends with the answer when the model stops calling tools', async () => {
    const tools = new FakeTools({ read_file: ({ path }) => ok(`contents of ${String(path)}`) });
    const { outcome, model, session } = await agentWith(
      [{ toolCalls: [{ name: 'read_file', args: { path: 'src/a.ts' } }] }, { text: 'Renamed in src/a.ts.' }],
      tools,
    );

    expect(outcome).toMatchObject({ reason: 'done', answer: 'Renamed in src/a.ts.', steps: 2, usage: { input: 200, output: 20 } });
    expect(model.requests[1]!.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
    expect(model.requests[1]!.messages[2]).toMatchObject({ role: 'tool', content: 'contents of src/a.ts' });
    const types = (await session.log.read({ nodeId: 'react' })).map((event) => event.type);
    expect(types).toEqual([
      'user/message',
      'prompt/recorded',
      'request/header',
      'request/context',
      'assistant/message',
      'tool/result',
      'request/header',
      'request/context',
      'assistant/message',
      'agent/finished',
    ]);
  });

  it('stores its final answer and its end in one write, so the log never holds the one without the other', async () => {
    const tools = new FakeTools({ read_file: ({ path }) => ok(`contents of ${String(path)}`) });
    const writes: string[][] = [];
    const log = new EventLog(store.db, runId);
    log.onAppend((events) => writes.push(events.map((event) => event.type)));
    const { outcome } = await agentWith([{ toolCalls: [{ name: 'read_file', args: { path: 'src/a.ts' } }] }, { text: 'Renamed.' }], tools, { session: await Session.open(log, 'react') });

    expect(outcome).toMatchObject({ reason: 'done', answer: 'Renamed.', steps: 2 });
    // The answer that called a tool is a write of its own (its tool runs before anything else is known).
    expect(writes).toContainEqual(['assistant/message']);
    expect(writes.at(-1)).toEqual(['assistant/message', 'agent/finished']);
    const finished = (await log.read({ nodeId: 'react', types: ['agent/finished'] }))[0]!;
    expect(finished).toMatchObject({ turn: 1, step: 2, payload: { reason: 'done', steps: 2 } });
  });

  it('stops at the step limit', async () => {
    const tools = new FakeTools({ grep: () => ok('no match') });
    const turns = Array.from({ length: 5 }, (_, index) => ({ toolCalls: [{ name: 'grep', args: { pattern: `p${index}` } }] }));
    const { outcome } = await agentWith(turns, tools, { limits: { maxSteps: 3 } });
    expect(outcome).toMatchObject({ reason: 'max_steps', steps: 3 });
    expect(outcome.detail).toBe('reached the limit of 3 model calls');
  });

  it('counts answered model calls against the step limit, not a request its process never got an answer to', async () => {
    const tools = new FakeTools({ grep: () => ok('no match') });
    // The second request fails (as a killed process leaves it: asked, never answered).
    const first = await agentWith([{ toolCalls: [{ name: 'grep', args: { pattern: 'a' } }] }, { error: new ModelRequestError('401 invalid api key', { provider: 'fake', status: 401 }) }], tools, { limits: { maxSteps: 2 } });
    expect(first.outcome.reason).toBe('error');
    // Going on from the log: one answered call of two allowed, so one more is made.
    const { outcome, model } = await agentWith([{ text: 'No match anywhere.' }], tools, { session: first.session, limits: { maxSteps: 2 } });
    expect(model.requests).toHaveLength(1);
    expect(outcome).toMatchObject({ reason: 'done', answer: 'No match anywhere.' });
  });

  it('stops when the token budget is spent', async () => {
    const tools = new FakeTools({ grep: () => ok('no match') });
    const turns = Array.from({ length: 5 }, (_, index) => ({ toolCalls: [{ name: 'grep', args: { pattern: `p${index}` } }], usage: { input: 600, output: 100 } }));
    const { outcome } = await agentWith(turns, tools, { limits: { tokenBudget: 1000 } });
    expect(outcome).toMatchObject({ reason: 'token_budget', steps: 2 });
  });

  it('detects the same tool call three times in a row', async () => {
    const tools = new FakeTools({ read_file: () => ok('same') });
    const same = { toolCalls: [{ name: 'read_file', args: { path: 'a.ts' } }] };
    const { outcome } = await agentWith([same, same, same, same], tools);
    expect(outcome.reason).toBe('loop_detected');
    expect(outcome.detail).toContain('read_file({"path":"a.ts"})');
    expect(tools.calls).toHaveLength(3);
  });

  it('ends as aborted when the run is cancelled mid-tool', async () => {
    const controller = new AbortController();
    const tools = new FakeTools({
      run_command: (_args, context) =>
        new Promise((resolve) => {
          // Cancelled as soon as the call is under way (its abort listener below is in place by then).
          queueMicrotask(() => controller.abort());
          context.signal.addEventListener('abort', () => resolve({ content: 'aborted', isError: true, meta: { outcome: 'aborted', truncated: false, originalLength: 7, durationMs: 1 } }));
        }),
    });
    const { outcome } = await agentWith([{ toolCalls: [{ name: 'run_command', args: { command: 'npm test' } }] }, { text: 'never' }], tools, { signal: controller.signal });
    expect(outcome).toMatchObject({ reason: 'aborted', detail: 'the run was cancelled' });
  });

  it('says why it was stopped when the stop came with a reason', async () => {
    const controller = new AbortController();
    const tools = new FakeTools({
      run_command: () => {
        controller.abort(new Error('node work of run r-1: claim token 2 expired by this worker’s clock'));
        return ok('done');
      },
    });
    const { outcome } = await agentWith([{ toolCalls: [{ name: 'run_command', args: { command: 'npm test' } }] }, { text: 'never' }], tools, { signal: controller.signal });
    expect(outcome).toMatchObject({ reason: 'aborted', detail: 'node work of run r-1: claim token 2 expired by this worker’s clock' });
  });

  it('ends with error on a model failure a retry cannot fix', async () => {
    const tools = new FakeTools({});
    const { outcome } = await agentWith([{ error: new ModelRequestError('401 invalid api key', { provider: 'fake', status: 401 }) }], tools);
    expect(outcome).toMatchObject({ reason: 'error', detail: '401 invalid api key' });
  });

  it('ends with context_overflow when there is no way to compact', async () => {
    const { outcome } = await agentWith([{ error: new ContextOverflowError('prompt is too long', { provider: 'fake' }) }], new FakeTools({}));
    expect(outcome.reason).toBe('context_overflow');
  });

  it('compacts after a context overflow and retries the call once', async () => {
    let compactions = 0;
    const compactor: AgentCompactor = { preStep: async () => undefined, onContextOverflow: async () => (compactions += 1) > 0 };
    const { outcome, model } = await agentWith([{ error: new ContextOverflowError('too long', { provider: 'fake' }) }, { text: 'fits now' }], new FakeTools({}), { compactor });
    expect(outcome).toMatchObject({ reason: 'done', answer: 'fits now' });
    expect(compactions).toBe(1);
    expect(model.requests).toHaveLength(2);
  });

  it('gives up after the second overflow in a row', async () => {
    const compactor: AgentCompactor = { preStep: async () => undefined, onContextOverflow: async () => true };
    const overflow = { error: new ContextOverflowError('too long', { provider: 'fake' }) };
    const { outcome } = await agentWith([overflow, overflow], new FakeTools({}), { compactor });
    expect(outcome.reason).toBe('context_overflow');
  });

  it('runs the tool calls of one response in parallel', async () => {
    let running = 0;
    let peak = 0;
    // Each call waits for the other two to be running too: parallel calls all get there, calls run
    // one after another never would (and the test times out).
    let allRunning!: () => void;
    const together = new Promise<void>((resolve) => (allRunning = resolve));
    const slow: Handler = async () => {
      running += 1;
      peak = Math.max(peak, running);
      if (running === 3) allRunning();
      await together;
      running -= 1;
      return ok('done');
    };
    const tools = new FakeTools({ read_file: slow, grep: slow });
    const { outcome, session } = await agentWith(
      [{ toolCalls: [{ name: 'read_file', args: { path: 'a' } }, { name: 'grep', args: { pattern: 'b' } }, { name: 'read_file', args: { path: 'c' } }] }, { text: 'ok' }],
      tools,
    );
    expect(outcome.reason).toBe('done');
    expect(peak).toBe(3);
    expect(session.deriveMessages().filter((message) => message.role === 'tool')).toHaveLength(3);
  });

  it('gives a tool that outlives the batch budget a timeout result and goes on', async () => {
    const tools = new FakeTools({ run_command: () => new Promise<ToolResult>(() => undefined) });
    const { outcome, model } = await agentWith([{ toolCalls: [{ name: 'run_command', args: { command: 'sleep 999' } }] }, { text: 'it hung, moving on' }], tools, { toolBatchTimeoutMs: 30 });
    expect(outcome.reason).toBe('done');
    expect(model.requests[1]!.messages.at(-1)).toMatchObject({ role: 'tool', isError: true, content: expect.stringContaining('did not finish within') });
  });

  it('hands a denied operation back to the model, which takes another approach', async () => {
    const tools = new FakeTools({
      write_file: () => ({ content: 'the user rejected this operation', isError: true, meta: { outcome: 'denied', truncated: false, originalLength: 32, durationMs: 0 } }),
      read_file: () => ok('export const a = 1;'),
    });
    const { outcome, model } = await agentWith(
      [{ toolCalls: [{ name: 'write_file', args: { path: 'a.ts', content: 'x' } }] }, { toolCalls: [{ name: 'read_file', args: { path: 'a.ts' } }] }, { text: 'Left a.ts alone; here is a proposal.' }],
      tools,
    );
    expect(outcome.reason).toBe('done');
    expect(model.requests[1]!.messages.at(-1)).toMatchObject({ role: 'tool', content: 'the user rejected this operation' });
    expect(tools.calls.map((call) => call.name)).toEqual(['write_file', 'read_file']);
  });

  it('resumes after a crash: the open tool call is closed, the instruction is not repeated, steps go on', async () => {
    const log = new EventLog(store.db, runId);
    const crashed = await Session.open(log, 'react');
    await crashed.append({ type: 'user/message', payload: { content: 'Rename area() to getArea().', source: 'instruction' } });
    await crashed.append({ type: 'assistant/message', step: 1, payload: { content: '', toolCalls: [{ id: 'c1', name: 'read_file', args: { path: 'a' } }], finishReason: 'tool-calls', provider: 'fake', model: 'fake-1' } });
    crashed.close();

    const session = await Session.open(log, 'react');
    const { outcome, model } = await agentWith([{ text: 'done after restart' }], new FakeTools({ read_file: () => ok('x') }), { session });

    expect(outcome).toMatchObject({ reason: 'done', steps: 2 });
    const messages = model.requests[0]!.messages;
    expect(messages.filter((message) => message.role === 'user' && message.source === 'instruction')).toHaveLength(1);
    expect(messages.at(-1)).toMatchObject({ role: 'tool', toolCallId: 'c1', isError: true });
  });

  it('records model retries in the log', async () => {
    const { ModelError } = await import('../../../engine/model/model-errors.js');
    const { outcome, session } = await agentWith(
      [{ error: new ModelError('503 overloaded', { provider: 'fake', status: 503, retryable: true }) }, { text: 'ok' }],
      new FakeTools({}),
      { callOptions: { sleep: async () => undefined } },
    );
    expect(outcome.reason).toBe('done');
    const retried = await session.log.read({ types: ['model/retried'] });
    expect(retried).toHaveLength(1);
    expect(retried[0]!.payload).toMatchObject({ attempt: 1, status: 503 });
  });
});

/** A step end (as a node's checkpoint of its files) that lasts until `finish` is called. */
function heldStepEnd(outcome: 'ends' | 'fails' = 'ends') {
  const ended: number[] = [];
  let finish = (): void => undefined;
  const onStepEnd: RunAgentOptions['onStepEnd'] = async (position) => {
    await new Promise<void>((resolve) => (finish = resolve));
    if (outcome === 'fails') throw new Error('the checkpoint could not be written');
    ended.push(position.step);
  };
  return { onStepEnd, ended, finish: () => finish() };
}

/** An agent that edits a file in its first step and answers in its second; `appended` lists the types the log stored, in order. */
async function editingAgent(overrides: Partial<RunAgentOptions>) {
  const log = new EventLog(store.db, runId);
  const appended: string[] = [];
  log.onAppend((events) => appended.push(...events.map((event) => event.type)));
  const tools = new FakeTools({ write_file: () => ok('wrote src/a.ts') });
  const turns = [{ toolCalls: [{ name: 'write_file', args: { path: 'src/a.ts', content: 'x' } }] }, { text: 'Edited src/a.ts.' }];
  const { running, model } = await startAgent(turns, tools, { session: await Session.open(log, 'react'), ...overrides });
  return { running, model, appended };
}

describe('the end of a step (a node checkpointing its files)', () => {
  it('runs while the next step asks the model, and that answer is recorded only after it', async () => {
    const step = heldStepEnd();
    const { running, model, appended } = await editingAgent({ onStepEnd: step.onStepEnd });

    // The second request went out while the first step's end was still under way...
    await until('the second model call', () => model.requests.length === 2);
    expect(step.ended).toEqual([]);
    // ...but its answer waits for it: nothing after the request is recorded yet.
    expect(appended.filter((type) => type === 'assistant/message')).toHaveLength(1);

    step.finish();
    const outcome = await running;
    expect(outcome).toMatchObject({ reason: 'done', answer: 'Edited src/a.ts.', steps: 2 });
    expect(step.ended).toEqual([1]);
    expect(appended.slice(-2)).toEqual(['assistant/message', 'agent/finished']);
  });

  it('ends before the next step begins when PreCompact hooks may run commands in the workspace', async () => {
    const step = heldStepEnd();
    const { running, model } = await editingAgent({ onStepEnd: step.onStepEnd, beforeCompact: async () => undefined });

    await until('the first model call', () => model.requests.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(model.requests).toHaveLength(1);

    step.finish();
    await expect(running).resolves.toMatchObject({ reason: 'done', steps: 2 });
    expect(model.requests).toHaveLength(2);
  });

  it('fails the agent when it fails, and the answer made meanwhile is never recorded', async () => {
    const step = heldStepEnd('fails');
    const { running, model, appended } = await editingAgent({ onStepEnd: step.onStepEnd });

    await until('the second model call', () => model.requests.length === 2);
    step.finish();
    await expect(running).rejects.toThrow('the checkpoint could not be written');
    expect(appended.filter((type) => type === 'assistant/message')).toHaveLength(1);
    expect(appended).not.toContain('agent/finished');
  });
});
