import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventLog, Session, SystemPrompt, createRun, runAgent, type Store } from '../../../engine/index.js';
import { createScriptedProvider } from '../../../engine/model/scripted-provider.js';
import { createNonInteractiveApprover, createScriptedApprover, createToolRuntime } from '../../../tools/index.js';
import { openTempStore, tempDir } from '../../helpers/temp-store.js';

/** The agent loop with the real tool runtime and the scripted model: what `dagent react` runs. */
let store: Store;
let cleanupStore: () => Promise<void>;
let workspace: string;
let cleanupDir: () => void;
let runId: string;

beforeEach(async () => {
  ({ store, cleanup: cleanupStore } = await openTempStore());
  ({ dir: workspace, cleanup: cleanupDir } = tempDir('dagent-agent-'));
  mkdirSync(join(workspace, 'src'));
  writeFileSync(join(workspace, 'src', 'shape.ts'), 'export interface Shape {\n  area(): number;\n}\n');
  runId = (await createRun(store.db, { task: 'rename', workspace, mode: 'react' })).id;
});
afterEach(async () => {
  await cleanupStore();
  cleanupDir();
});

async function run(turns: unknown[], approver = createNonInteractiveApprover(), approval: 'auto' | 'suggest' = 'auto') {
  const tools = createToolRuntime({ approval });
  const session = await Session.open(new EventLog(store.db, runId), 'react');
  const provider = createScriptedProvider({ script: { agents: { react: turns } } });
  const prompt = new SystemPrompt().addSection({ id: 'identity', text: 'You are a coding agent.' }).addTools('all', () => tools.specs());
  const outcome = await runAgent({
    agent: 'react',
    session,
    prompt,
    provider,
    model: 'scripted',
    tools,
    toolContext: { runId, nodeId: 'react', workspace, approver },
    instruction: 'Rename area() to getArea() in src/shape.ts',
    signal: new AbortController().signal,
  });
  return { outcome, messages: session.deriveMessages(), session };
}

describe('runAgent with the real tools', () => {
  it('gets invalid arguments back as a validation error and corrects them on the next turn', async () => {
    const { outcome, messages } = await run([
      { toolCalls: [{ name: 'edit_file', args: { file: 'src/shape.ts', old: 'area()', new: 'getArea()' } }] },
      { toolCalls: [{ name: 'edit_file', args: { path: 'src/shape.ts', old_string: 'area(): number', new_string: 'getArea(): number' } }] },
      { text: 'Renamed area() to getArea() in src/shape.ts.' },
    ]);
    expect(outcome.reason).toBe('done');
    const results = messages.filter((message) => message.role === 'tool');
    expect(results[0]).toMatchObject({ isError: true });
    expect(results[0]!.role === 'tool' && results[0]!.content).toMatch(/path/);
    expect(results[1]).toMatchObject({ isError: false });
    expect(readFileSync(join(workspace, 'src', 'shape.ts'), 'utf8')).toContain('getArea(): number');
  });

  it('reports an old_string that is not in the file, and the model retries with the right one', async () => {
    const { outcome, messages } = await run([
      { toolCalls: [{ name: 'edit_file', args: { path: 'src/shape.ts', old_string: 'area(): string', new_string: 'getArea(): string' } }] },
      { toolCalls: [{ name: 'edit_file', args: { path: 'src/shape.ts', old_string: 'area(): number', new_string: 'getArea(): number' } }] },
      { text: 'done' },
    ]);
    expect(outcome.reason).toBe('done');
    const first = messages.find((message) => message.role === 'tool');
    expect(first?.role === 'tool' && first.content).toMatch(/not found|no match|does not contain/i);
  });

  it('without a terminal, denies a write under "suggest", records it, and the model takes another approach', async () => {
    const { outcome, messages, session } = await run(
      [
        { toolCalls: [{ name: 'write_file', args: { path: 'src/shape.ts', content: 'broken' } }] },
        { toolCalls: [{ name: 'read_file', args: { path: 'src/shape.ts' } }] },
        { text: 'I could not write; here is the change to make by hand.' },
      ],
      createNonInteractiveApprover(),
      'suggest',
    );
    expect(outcome.reason).toBe('done');
    expect(readFileSync(join(workspace, 'src', 'shape.ts'), 'utf8')).toContain('area(): number');
    const denied = messages.find((message) => message.role === 'tool');
    expect(denied).toMatchObject({ isError: true });
    expect(denied?.role === 'tool' && denied.content).toMatch(/rejected/);
    const approvals = await session.log.read({ types: ['approval/requested', 'approval/denied'] });
    expect(approvals.map((event) => event.type)).toEqual(['approval/requested', 'approval/denied']);
  });

  it('asks a human, who says yes', async () => {
    const approver = createScriptedApprover([{ decision: 'yes' }]);
    const { outcome } = await run(
      [{ toolCalls: [{ name: 'edit_file', args: { path: 'src/shape.ts', old_string: 'area(): number', new_string: 'getArea(): number' } }] }, { text: 'done' }],
      approver,
      'suggest',
    );
    expect(outcome.reason).toBe('done');
    expect(approver.requests).toHaveLength(1);
    expect(readFileSync(join(workspace, 'src', 'shape.ts'), 'utf8')).toContain('getArea');
  });

  it('refuses a path outside the workspace whatever the policy', async () => {
    const { outcome, messages } = await run([{ toolCalls: [{ name: 'read_file', args: { path: '../../etc/passwd' } }] }, { text: 'ok' }]);
    expect(outcome.reason).toBe('done');
    const result = messages.find((message) => message.role === 'tool');
    expect(result).toMatchObject({ isError: true });
    expect(result?.role === 'tool' && result.content).toMatch(/outside the workspace/);
  });
});

describe('parallel tool calls on one file', () => {
  it('applies two edits of the same file in one response one after the other, losing neither', async () => {
    writeFileSync(join(workspace, 'src', 'shape.ts'), 'one\ntwo\n');
    const { outcome } = await run([
      {
        toolCalls: [
          { name: 'edit_file', args: { path: 'src/shape.ts', old_string: 'one', new_string: 'ONE' } },
          { name: 'edit_file', args: { path: './src/shape.ts', old_string: 'two', new_string: 'TWO' } },
        ],
      },
      { text: 'done' },
    ]);
    expect(outcome.reason).toBe('done');
    expect(readFileSync(join(workspace, 'src', 'shape.ts'), 'utf8')).toBe('ONE\nTWO\n');
  });
});
