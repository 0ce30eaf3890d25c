import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventLog, Session, SystemPrompt, createRun, openDatabase, reconstructRequest, type EventQuery, type Store, type ToolSpec } from '../../../engine/index.js';
import { buildRequest } from '../../../engine/context/build-request.js';
import { recordRequest } from '../../../engine/context/record-request.js';
import { projectRuntimeContext, renderRuntimeContext } from '../../../engine/context/runtime-context.js';
import { canonicalJson, contentHash } from '../../../engine/canonical-json.js';
import { openTempStore } from '../../helpers/temp-store.js';

const READ_FILE: ToolSpec = { name: 'read_file', description: 'Read a file.', parameters: { type: 'object', properties: { path: { type: 'string' } } } };
const GREP: ToolSpec = { name: 'grep', description: 'Search files.', parameters: { type: 'object', properties: { pattern: { type: 'string' } } } };

describe('SystemPrompt', () => {
  it('assembles byte-identical system text and tools on consecutive steps while dynamic state moves on', async () => {
    let step = 0;
    const prompt = new SystemPrompt()
      .addSection({ id: 'identity', text: 'You are {{role}} working in {{project}}.', order: 0 })
      .addSection({ id: 'rules', text: 'Never write outside the workspace.' })
      .addTools('fs', () => [READ_FILE, GREP])
      .addContext({ id: 'step', provide: () => step })
      .setVariable('role', 'a careful coder')
      .setVariable('project', 'billing');

    const first = await prompt.assemble();
    step += 1;
    const second = await prompt.assemble();

    expect(second.system).toBe(first.system);
    expect(second.systemHash).toBe(first.systemHash);
    expect(JSON.stringify(second.tools)).toBe(JSON.stringify(first.tools));
    expect(second.context).toEqual({ step: 1 });
    expect(first.system).toBe('You are a careful coder working in billing.\n\nNever write outside the workspace.');
    expect(first.system).not.toMatch(/\d{4}-\d{2}-\d{2}|step/);
  });

  it('orders sections static-first and tools by name, so the prefix stays cacheable', async () => {
    const prompt = new SystemPrompt()
      .addSection({ id: 'memory', text: 'Project notes.', order: 50 })
      .addSection({ id: 'identity', text: 'Identity.', order: 0 })
      .addTools('fs', () => [READ_FILE, GREP]);
    const snapshot = await prompt.assemble();
    expect(snapshot.system.indexOf('Identity.')).toBeLessThan(snapshot.system.indexOf('Project notes.'));
    expect(snapshot.tools.map((tool) => tool.name)).toEqual(['grep', 'read_file']);
    expect(Object.isFrozen(snapshot)).toBe(true);
  });

  it('shows an enabled tool in the next snapshot without the caller knowing', async () => {
    let enabled: ToolSpec[] = [READ_FILE];
    const prompt = new SystemPrompt().addTools('fs', () => enabled);
    const before = await prompt.assemble();
    enabled = [READ_FILE, GREP];
    const after = await prompt.assemble();
    expect(before.tools).toHaveLength(1);
    expect(after.tools).toHaveLength(2);
    expect(after.toolsHash).not.toBe(before.toolsHash);
  });

  it("gives every node's prompt with the same tools the same tools hash: the canonical JSON of the set, as stored logs have it", async () => {
    const first = await new SystemPrompt().addTools('fs', () => [READ_FILE, GREP]).assemble();
    const second = await new SystemPrompt().addTools('fs', () => [GREP, READ_FILE]).assemble();
    const copied = await new SystemPrompt().addTools('fs', () => [structuredClone(GREP), structuredClone(READ_FILE)]).assemble();
    expect(second.toolsHash).toBe(first.toolsHash);
    expect(copied.toolsHash).toBe(first.toolsHash);
    expect(first.toolsHash).toBe(contentHash(canonicalJson([GREP, READ_FILE])));
  });

  it("shares one tool list among the prompts of a run's nodes with the same tools, and tells a changed definition apart", async () => {
    const readFile = { ...READ_FILE };
    const grep = { ...GREP };
    const nodes = await Promise.all([1, 2, 3].map(() => new SystemPrompt().addTools('fs', () => [readFile, grep]).assemble()));
    const changed = await new SystemPrompt().addTools('fs', () => [readFile, { ...grep, description: 'Search files by a regular expression.' }]).assemble();

    expect(nodes[1]!.tools).toBe(nodes[0]!.tools);
    expect(nodes[2]!.tools).toBe(nodes[0]!.tools);
    expect(Object.isFrozen(nodes[0]!.tools)).toBe(true);
    expect(nodes.map((node) => node.toolsHash)).toEqual([nodes[0]!.toolsHash, nodes[0]!.toolsHash, nodes[0]!.toolsHash]);
    expect(changed.toolsHash).not.toBe(nodes[0]!.toolsHash);
    expect(changed.tools.find((tool) => tool.name === 'grep')!.description).toBe('Search files by a regular expression.');
  });

  it('fails clearly on an undefined template variable', async () => {
    const prompt = new SystemPrompt().addSection({ id: 'identity', text: 'You are {{role}}.' });
    await expect(prompt.assemble()).rejects.toThrow('system prompt section "identity" uses undefined variable {{role}}');
  });
});

describe('runtime context projection', () => {
  let store: Store;
  let path: string;
  let cleanup: () => Promise<void>;
  let runId: string;
  beforeEach(async () => {
    ({ store, path, cleanup } = await openTempStore());
    runId = (await createRun(store.db, { task: 't', workspace: '/w', mode: 'plan' })).id;
  });
  afterEach(async () => cleanup());

  it('writes the state once, then only when it changed, naming only what changed', async () => {
    const session = await Session.open(new EventLog(store.db, runId), 'n');
    const first = await projectRuntimeContext(session, { cwd: '/w', plan: 'node 2 of 5' }, { turn: 1, step: 1 });
    const same = await projectRuntimeContext(session, { cwd: '/w', plan: 'node 2 of 5' }, { turn: 1, step: 2 });
    const moved = await projectRuntimeContext(session, { cwd: '/w/src', plan: 'node 2 of 5' }, { turn: 1, step: 3 });

    expect(first?.payload.content).toContain('- cwd: /w');
    expect(same).toBeUndefined();
    expect(moved?.payload.content).toContain('- cwd: /w/src');
    expect(moved?.payload.content).not.toContain('plan');
    expect(moved?.step).toBe(3);
    const injected = session.deriveMessages().filter((message) => message.role === 'user' && message.source === 'runtime-context');
    expect(injected).toHaveLength(2);
  });

  it('recovers the last injected state from the log after a restart: no duplicate injection', async () => {
    const before = await Session.open(new EventLog(store.db, runId), 'n');
    await projectRuntimeContext(before, { cwd: '/w' }, { turn: 1, step: 1 });
    before.close();
    await store.close();
    store = await openDatabase(path);

    const after = await Session.open(new EventLog(store.db, runId), 'n');
    const again = await projectRuntimeContext(after, { cwd: '/w' }, { turn: 1, step: 2 });

    expect(again).toBeUndefined();
    expect((await after.log.read({ nodeId: 'n', types: ['user/message'] })).length).toBe(1);
  });

  it('renders nothing for equal states regardless of key order', () => {
    expect(renderRuntimeContext({ a: { x: 1, y: 2 } }, { a: { y: 2, x: 1 } })).toBeUndefined();
    expect(renderRuntimeContext({ a: 1 }, { a: 1, b: 2 })).toContain('- b: (no longer set)');
  });
});

describe('request recording and inspection', () => {
  let store: Store;
  let cleanup: () => Promise<void>;
  let runId: string;
  beforeEach(async () => {
    ({ store, cleanup } = await openTempStore());
    runId = (await createRun(store.db, { task: 't', workspace: '/w', mode: 'plan' })).id;
  });
  afterEach(async () => cleanup());

  it('records header, context and the prompt version once, and rebuilds the exact request', async () => {
    const session = await Session.open(new EventLog(store.db, runId), 'edit-a');
    const prompt = new SystemPrompt().addSection({ id: 'identity', text: 'You edit code.' }).addTools('fs', () => [READ_FILE]);
    await session.append({ type: 'user/message', step: 0, payload: { content: 'rename area()', source: 'instruction' } });

    const sent = [];
    for (const step of [1, 2]) {
      const snapshot = await prompt.assemble();
      const request = buildRequest({ agent: 'node:edit-a', model: 'deepseek-chat', snapshot, messages: session.deriveMessages(), sessionId: runId, parameters: { temperature: 0 } });
      await recordRequest(session, { provider: 'deepseek', request, snapshot, contextChanged: false, position: { turn: 1, step } });
      sent.push(structuredClone({ system: request.system, tools: request.tools, messages: [...request.messages] }));
      await session.append({
        type: 'assistant/message',
        step,
        payload: { content: `answer ${step}`, toolCalls: [], finishReason: 'stop', provider: 'deepseek', model: 'deepseek-chat' },
      });
    }

    const prompts = await session.log.read({ types: ['prompt/recorded'] });
    expect(prompts).toHaveLength(1);

    const first = await reconstructRequest(store.db, runId, 'edit-a', 1);
    const last = await reconstructRequest(store.db, runId, 'edit-a');
    expect({ system: first.system, tools: first.tools, messages: first.messages }).toEqual(sent[0]);
    expect({ system: last.system, tools: last.tools, messages: last.messages }).toEqual(sent[1]);
    expect(last.step).toBe(2);
    expect(last.header).toMatchObject({ agent: 'node:edit-a', provider: 'deepseek', model: 'deepseek-chat', parameters: { temperature: 0 }, toolNames: ['read_file'] });
    expect(last.estimatedTokens).toBeGreaterThan(0);
  });

  it("records the prompt once for nodes that append through their own views of the run's log, and looks it up once", async () => {
    const log = new EventLog(store.db, runId);
    const prompt = new SystemPrompt().addSection({ id: 'identity', text: 'You edit code.' }).addTools('fs', () => [READ_FILE]);
    const lookups: string[] = [];
    for (const nodeId of ['edit-a', 'edit-b', 'edit-c']) {
      // A worker's node appends through a view of the run's log (its claim's fence); here, one with no-op effects.
      const view = log.withEffects(async () => undefined);
      const read = view.read.bind(view);
      view.read = (async (query: EventQuery = {}) => {
        if (query.types?.some((type) => type === 'prompt/recorded')) lookups.push(nodeId);
        return read(query);
      }) as typeof view.read;
      const session = await Session.open(view, nodeId);
      await session.append({ type: 'user/message', step: 0, payload: { content: `task of ${nodeId}`, source: 'instruction' } });
      const snapshot = await prompt.assemble();
      const request = buildRequest({ agent: `node:${nodeId}`, model: 'deepseek-chat', snapshot, messages: session.deriveMessages(), sessionId: runId, parameters: {} });
      await recordRequest(session, { provider: 'deepseek', request, snapshot, contextChanged: false, position: { turn: 1, step: 1 } });
    }

    expect(await log.read({ types: ['prompt/recorded'] })).toHaveLength(1);
    expect(await log.read({ types: ['request/header'] })).toHaveLength(3);
    expect(lookups).toEqual(['edit-a']);
  });

  it('names the steps that exist when asked for one that does not', async () => {
    const session = await Session.open(new EventLog(store.db, runId), 'n');
    const snapshot = await new SystemPrompt().addSection({ id: 's', text: 'x' }).assemble();
    const request = buildRequest({ agent: 'node:n', model: 'm', snapshot, messages: session.deriveMessages(), sessionId: runId });
    await recordRequest(session, { provider: 'p', request, snapshot, contextChanged: false, position: { turn: 1, step: 1 } });
    await expect(reconstructRequest(store.db, runId, 'n', 7)).rejects.toThrow(/no model request for node n at step 7; steps with requests: 1/);
    await expect(reconstructRequest(store.db, runId, 'other')).rejects.toThrow(/no model request for node other/);
  });
});
