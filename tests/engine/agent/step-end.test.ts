import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventLog, Session, SystemPrompt, createRun, runAgent, type Approver, type Store } from '../../../engine/index.js';
import type { RunAgentOptions } from '../../../engine/agent/run-agent-options.js';
import { FakeModel } from '../../helpers/fake-model.js';
import { FakeTools, toolOk } from '../../helpers/fake-tools.js';
import { openTempStore } from '../../helpers/temp-store.js';
import { until } from '../../helpers/wait-until.js';

const denyAll: Approver = { interactive: false, ask: async () => ({ decision: 'no', reason: 'no terminal' }) };

let store: Store;
let cleanup: () => Promise<void>;
let runId: string;
beforeEach(async () => {
  ({ store, cleanup } = await openTempStore());
  runId = (await createRun(store.db, { task: 't', workspace: '/w', mode: 'react' })).id;
});
afterEach(async () => cleanup());

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

/** An agent that edits a file in its first step and answers in its second. */
async function editingAgent(overrides: Partial<RunAgentOptions>) {
  const log = new EventLog(store.db, runId);
  const appended: string[] = [];
  log.onAppend((events) => appended.push(...events.map((event) => event.type)));
  const session = await Session.open(log, 'react');
  const model = new FakeModel([{ toolCalls: [{ name: 'write_file', args: { path: 'src/a.ts', content: 'x' } }] }, { text: 'Edited src/a.ts.' }]);
  const tools = new FakeTools({ write_file: () => toolOk('wrote src/a.ts') });
  const prompt = new SystemPrompt().addSection({ id: 'identity', text: 'You are a coding agent.' }).addTools('fake', () => tools.specs());
  const running = runAgent({
    agent: 'react',
    session,
    prompt,
    provider: model,
    model: 'fake-1',
    tools,
    toolContext: { runId, nodeId: 'react', workspace: '/w', approver: denyAll },
    instruction: 'Edit src/a.ts.',
    signal: new AbortController().signal,
    ...overrides,
  });
  running.catch(() => undefined);
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
