import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  approvePlan,
  createRun,
  executeRun,
  readEvents,
  reconstructRequest,
  savePlan,
  type Approver,
  type ModelProvider,
  type ModelRequest,
  type Plan,
  type Store,
} from '../../../../engine/index.js';
import { anthropicRequestBody } from '../../../../engine/model/anthropic-request.js';
import { requestParts, requestText } from '../../../../engine/model/request-text.js';
import { createScriptedProvider } from '../../../../engine/model/scripted-provider.js';
import { FakeNodeFiles } from '../../../helpers/fake-node-files.js';
import { FakeTools, toolOk } from '../../../helpers/fake-tools.js';
import { openTempStore } from '../../../helpers/temp-store.js';

/**
 * The prompt cache only pays when requests share their leading bytes. Sibling nodes must send the
 * same system prompt and tools whatever their role (the role goes into the instruction), nodes
 * with fewer tools send the leading part of the others' tool list, and every step of a node must
 * extend its previous request byte for byte, with an Anthropic breakpoint where that request ended.
 */
const PLAN: Plan = {
  goal: 'Document area() of the shapes',
  rationale: '',
  nodes: [
    { id: 'read', kind: 'read', title: 'Read the shapes', instructions: '', reads: ['src/a.ts'], writes: [], dependsOn: [] },
    { id: 'edit-a', kind: 'edit', role: 'coder', title: 'Document A', instructions: 'Add a doc comment.', reads: ['src/a.ts'], writes: ['src/a.ts'], dependsOn: ['read'] },
    { id: 'edit-b', kind: 'edit', title: 'Document B', instructions: 'Add a doc comment.', reads: ['src/b.ts'], writes: ['src/b.ts'], dependsOn: ['read'] },
    { id: 'review', kind: 'read', role: 'reviewer', title: 'Review the shapes', instructions: '', reads: ['src/b.ts'], writes: [], dependsOn: ['read'] },
  ],
};

const READ_TOOLS = ['grep', 'read_file'];
const approver: Approver = { interactive: false, ask: async () => ({ decision: 'yes' }) };

let store: Store;
let cleanup: () => Promise<void>;
/** The run `requestsOfRun` made last. */
let runId: string;
beforeEach(async () => ({ store, cleanup } = await openTempStore()));
afterEach(async () => cleanup());

/** Runs the plan with a scripted model; returns every request each node sent, in order. */
async function requestsOfRun(): Promise<Map<string, ModelRequest[]>> {
  const run = await createRun(store.db, { task: PLAN.goal, workspace: '/repo', mode: 'plan' });
  runId = run.id;
  await savePlan(store.db, run.id, { plan: PLAN, reason: 'planned' });
  await approvePlan(store.db, run.id);
  const readThenAnswer = (id: string, path: string) => [
    { toolCalls: [{ id: `${id}-1`, name: 'read_file', args: { path } }, { id: `${id}-2`, name: 'grep', args: { pattern: 'area' } }] },
    { toolCalls: [{ id: `${id}-3`, name: 'read_file', args: { path } }] },
    { text: `${id} done` },
  ];
  const scripted = createScriptedProvider({
    script: { agents: { 'node:read': readThenAnswer('read', 'src/a.ts'), 'node:edit-a': readThenAnswer('edit-a', 'src/a.ts'), 'node:edit-b': readThenAnswer('edit-b', 'src/b.ts'), 'node:review': readThenAnswer('review', 'src/b.ts') } },
  });
  const sent = new Map<string, ModelRequest[]>();
  const provider: ModelProvider = {
    id: scripted.id,
    contextWindow: (model) => scripted.contextWindow(model),
    stream: (request, signal) => {
      // The history array grows in place as the node goes on: keep this request as it was sent.
      sent.set(request.agent, [...(sent.get(request.agent) ?? []), { ...request, messages: [...request.messages] }]);
      return scripted.stream(request, signal);
    },
  };
  const tools = new FakeTools({
    write_file: () => toolOk('written'),
    read_file: (args) => toolOk(`1\texport function area() {} // ${String(args['path'])}`),
    grep: () => toolOk('src/a.ts:1: export function area() {}'),
    run_command: () => toolOk('exit code 0'),
    edit_file: () => toolOk('edited'),
  });
  const result = await executeRun({
    db: store.db,
    runId: run.id,
    runtime: { workspace: '/repo', tools, approver, resolveModel: () => ({ provider, model: 'scripted' }), defaultTools: (kind) => (kind === 'read' ? READ_TOOLS : undefined) },
    files: new FakeNodeFiles(),
    signal: new AbortController().signal,
  });
  expect(result.status).toBe('succeeded');
  return sent;
}

/** The Anthropic body up to and including its static breakpoint (tools, then the system block), as bytes. */
function staticAnthropicPrefix(request: ModelRequest): Buffer {
  const body = anthropicRequestBody(request);
  return Buffer.from(JSON.stringify({ tools: body['tools'], system: body['system'] }));
}

function staticText(request: ModelRequest): string {
  return requestParts(request).filter((part) => part.kind !== 'message').map((part) => part.text).join('');
}

function sharedBytes(a: Buffer, b: Buffer): number {
  let index = 0;
  while (index < a.length && index < b.length && a[index] === b[index]) index++;
  return index;
}

function withoutBreakpoints(messages: unknown): unknown {
  return JSON.parse(JSON.stringify(messages), (key, value: unknown) => (key === 'cache_control' ? undefined : value));
}

describe('prompt prefix', () => {
  it('records each prompt version the nodes send once, before the run starts, so no request carries one', async () => {
    const sent = await requestsOfRun();
    const events = await readEvents(store.db, runId);
    const started = events.find((event) => event.type === 'run/started')!;
    const prompts = events.filter((event) => event.type === 'prompt/recorded');
    const headers = events.filter((event) => event.type === 'request/header');

    // Two versions: the read nodes' tools, and the edit nodes' longer list.
    expect(prompts).toHaveLength(2);
    expect(prompts.every((event) => event.seq < started.seq && event.nodeId === null)).toBe(true);
    const recorded = new Set(prompts.map((event) => (event.type === 'prompt/recorded' ? `${event.payload.systemHash}:${event.payload.toolsHash}` : '')));
    expect(headers).toHaveLength([...sent.values()].flat().length);
    for (const header of headers) if (header.type === 'request/header') expect(recorded.has(`${header.payload.systemHash}:${header.payload.toolsHash}`)).toBe(true);
    // `dagent inspect` rebuilds a request from the log alone, its prompt taken from before the run.
    const inspected = await reconstructRequest(store.db, runId, 'edit-a');
    const last = sent.get('node:edit-a')!.at(-1)!;
    expect(inspected.system).toBe(last.system);
    expect(inspected.tools).toEqual(last.tools);
  });

  it('sibling nodes of one kind share their first request up to the static breakpoint, whatever their role', async () => {
    const sent = await requestsOfRun();
    const coder = sent.get('node:edit-a')![0]!;
    const plain = sent.get('node:edit-b')![0]!;

    expect(staticAnthropicPrefix(coder).equals(staticAnthropicPrefix(plain))).toBe(true);
    const shared = sharedBytes(Buffer.from(requestText(coder)), Buffer.from(requestText(plain)));
    expect(shared).toBeGreaterThanOrEqual(Buffer.byteLength(staticText(coder)));
    // The role is still told, right after the node's own line, in the instruction.
    expect(coder.system).not.toContain('Role: coder');
    expect(coder.messages[0]!.content).toContain('This is an edit node: make the change in the files you may write, then check it (e.g. read the result back).\n\nRole: coder.');
  });

  it('a read node sends the leading part of an edit node\'s tool list, ending in a breakpoint, and a reviewer the same prefix as a plain read node', async () => {
    const sent = await requestsOfRun();
    const read = sent.get('node:read')![0]!;
    const review = sent.get('node:review')![0]!;
    const edit = sent.get('node:edit-b')![0]!;

    expect(read.tools.map((tool) => tool.name)).toEqual(['grep', 'read_file']);
    expect(edit.tools.map((tool) => tool.name)).toEqual(['grep', 'read_file', 'edit_file', 'run_command', 'write_file']);
    expect(edit.system).toBe(read.system);
    expect(staticText(edit).startsWith(staticText(read))).toBe(true);
    expect(staticText(review)).toBe(staticText(read));
    // Anthropic reads tools first: the read node's list ends with a breakpoint the edit node's request can read back.
    const readTools = anthropicRequestBody(read)['tools'] as Record<string, unknown>[];
    const editTools = anthropicRequestBody(edit)['tools'] as Record<string, unknown>[];
    expect(readTools.at(-1)!['cache_control']).toEqual({ type: 'ephemeral' });
    expect(withoutBreakpoints(editTools.slice(0, readTools.length))).toEqual(withoutBreakpoints(readTools));
  });

  it('each request of a node extends its previous one byte for byte, with a breakpoint where the previous one ended', async () => {
    const sent = await requestsOfRun();
    const steps = sent.get('node:edit-a')!;
    expect(steps).toHaveLength(3);
    for (let step = 1; step < steps.length; step++) {
      const previous = Buffer.from(requestText(steps[step - 1]!));
      const current = Buffer.from(requestText(steps[step]!));
      expect(current.length).toBeGreaterThan(previous.length);
      expect(sharedBytes(previous, current)).toBe(previous.length);

      const before = anthropicRequestBody(steps[step - 1]!)['messages'] as { content: Record<string, unknown>[] }[];
      const after = anthropicRequestBody(steps[step]!)['messages'] as { content: Record<string, unknown>[] }[];
      expect(withoutBreakpoints(after.slice(0, before.length))).toEqual(withoutBreakpoints(before));
      expect(before.at(-1)!.content.at(-1)!['cache_control']).toEqual({ type: 'ephemeral' });
      expect(after[before.length - 1]!.content.at(-1)!['cache_control']).toEqual({ type: 'ephemeral' });
      expect(after.at(-1)!.content.at(-1)!['cache_control']).toEqual({ type: 'ephemeral' });
    }
  });
});
