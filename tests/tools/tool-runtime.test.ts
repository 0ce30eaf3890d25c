import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { DatabaseError, type ApprovalAnswer } from '../../engine/index.js';
import {
  LocalToolRuntime,
  ToolError,
  createNonInteractiveApprover,
  createScriptedApprover,
  createToolRuntime,
  defineTool,
  toolResultToJson,
  type Tool,
} from '../../tools/index.js';
import { openToolTestBed, type ToolTestBed } from '../helpers/tools-test-bed.js';

let bed: ToolTestBed;
beforeEach(async () => {
  bed = await openToolTestBed();
});
afterEach(async () => bed.cleanup());

const echoTool = defineTool({
  name: 'echo_text',
  description: 'Echoes its text.',
  args: z.strictObject({ text: z.string(), times: z.number().int().min(1).optional() }),
  risk: 'read',
  async execute(args) {
    return { content: args.text.repeat(args.times ?? 1), meta: { path: 'echo.txt', contentType: 'text/plain' } };
  },
});

const touchTool = defineTool({
  name: 'touch_thing',
  description: 'Pretends to write.',
  args: z.strictObject({ name: z.string() }),
  risk: 'write',
  summarize: (args) => `touch_thing ${args.name}`,
  async execute(args) {
    return { content: `touched ${args.name}` };
  },
});

function runtimeWith(tools: readonly Tool[], options: ConstructorParameters<typeof LocalToolRuntime>[0] = {}): LocalToolRuntime {
  return new LocalToolRuntime({ ...options, tools });
}

async function typesOf(): Promise<string[]> {
  return (await bed.events()).map((event) => event.type).filter((type) => type.startsWith('approval/') || type === 'tool/call');
}

describe('LocalToolRuntime: names and arguments', () => {
  it('lists specs sorted, limited to an allow-list, with JSON Schema arguments', () => {
    const runtime = runtimeWith([touchTool, echoTool]);
    expect(runtime.specs().map((spec) => spec.name)).toEqual(['echo_text', 'touch_thing']);
    expect(runtime.specs(['touch_thing']).map((spec) => spec.name)).toEqual(['touch_thing']);
    expect(runtime.specs()[0]!.parameters).toMatchObject({ type: 'object', required: ['text'], additionalProperties: false });
    expect(runtime.specs()[0]!.parameters).not.toHaveProperty('$schema');
  });

  it('answers an unknown tool with the available ones', async () => {
    const result = await bed.call(runtimeWith([echoTool, touchTool]), 'nope', {});
    expect(result).toMatchObject({ isError: true, meta: { outcome: 'unknown-tool' } });
    expect(result.content).toBe('unknown tool "nope". Available tools: echo_text, touch_thing');
  });

  it('refuses a tool outside the node allow-list, naming the allowed ones', async () => {
    const result = await bed.call(runtimeWith([echoTool, touchTool]), 'touch_thing', { name: 'x' }, { allowedTools: ['echo_text'] });
    expect(result.meta.outcome).toBe('not-allowed');
    expect(result.content).toBe('tool touch_thing is not allowed in this node. Allowed tools: echo_text');
    expect(await typesOf()).toEqual([]);
  });

  it('returns zod issues with their paths and the expected shape', async () => {
    const result = await bed.call(runtimeWith([echoTool]), 'echo_text', { times: 0, txt: 'a' });
    expect(result.meta).toMatchObject({ outcome: 'invalid-args', args: { times: 0, txt: 'a' } });
    expect(result.content).toBe(
      [
        'invalid arguments for echo_text:',
        '- text: Invalid input: expected string, received undefined',
        '- times: Too small: expected number to be >=1',
        '- (arguments): Unrecognized key: "txt"',
        'Expected: { text: string, times?: integer >= 1 }',
      ].join('\n'),
    );
  });

  it('reports arguments that were not valid JSON with the parse error', async () => {
    const result = await runtimeWith([echoTool]).execute({ id: 'c1', name: 'echo_text', args: undefined, argsText: '{"text": "a"' }, bed.context());
    expect(result.meta.outcome).toBe('invalid-args');
    expect(result.content).toBe(
      "the arguments of echo_text are not valid JSON: Expected ',' or '}' after property value in JSON at position 12. Send one JSON object matching the tool's schema: { text: string, times?: integer >= 1 }",
    );
  });

  it('reports broken JSON the model layer stood in `{}` for as invalid JSON with its position, not as a missing field', async () => {
    const runtime = runtimeWith([echoTool]);
    const cases: [string, string][] = [
      ['{"text": "a", }', "Expected double-quoted property name in JSON at position 14"],
      ['{"text": }', "Unexpected token '}' in JSON at position 9"],
      ['{"text": "a"}}', 'Unexpected non-whitespace character after JSON at position 13'],
      ['{"text": "a"', "Expected ',' or '}' after property value in JSON at position 12"],
      ['{"text": tru', 'Unexpected end of JSON input at position 12'],
    ];
    for (const [argsText, fault] of cases) {
      const result = await runtime.execute({ id: 'c1', name: 'echo_text', args: {}, argsText }, bed.context());
      expect(result.meta.outcome, argsText).toBe('invalid-args');
      expect(result.content, argsText).toBe(`the arguments of echo_text are not valid JSON: ${fault}. Send one JSON object matching the tool's schema: { text: string, times?: integer >= 1 }`);
    }
  });

  it('accepts arguments sent as JSON text', async () => {
    const result = await runtimeWith([echoTool]).execute({ id: 'c1', name: 'echo_text', args: '{"text":"hi"}' }, bed.context());
    expect(result).toMatchObject({ content: 'hi', isError: false });
  });
});

describe('LocalToolRuntime: results', () => {
  it('returns the content with meta: outcome, timing, arguments, tool meta; appends tool/call', async () => {
    const result = await bed.call(runtimeWith([echoTool]), 'echo_text', { text: 'hi' });
    expect(result).toMatchObject({ content: 'hi', isError: false });
    expect(result.meta).toMatchObject({ outcome: 'ok', truncated: false, originalLength: 2, args: { text: 'hi' }, path: 'echo.txt', contentType: 'text/plain' });
    expect(result.meta.durationMs).toBeGreaterThanOrEqual(0);
    const calls = (await bed.events()).filter((event) => event.type === 'tool/call');
    expect(calls.map((event) => [event.payload, event.nodeId, event.turn, event.step])).toEqual([[{ toolCallId: 'call-1', name: 'echo_text', args: { text: 'hi' } }, 'node-a', 1, 1]]);
  });

  it('truncates long output keeping head and tail, with the original length in meta', async () => {
    const runtime = runtimeWith([echoTool], { limits: { maxChars: 1_000, maxLines: 50 } });
    const text = Array.from({ length: 400 }, (_, index) => `line ${index + 1}`).join('\n');
    const result = await runtime.execute({ id: 'c1', name: 'echo_text', args: { text } }, bed.context());
    expect(result.meta).toMatchObject({ truncated: true, originalLength: text.length });
    expect(result.content.startsWith('line 1\nline 2\n')).toBe(true);
    expect(result.content.endsWith('line 399\nline 400')).toBe(true);
    expect(result.content).toMatch(/\[… output truncated: \d+ lines, \d+ characters omitted \(400 lines, \d+ characters in all\); showing the start and the end …\]/);
    expect(result.content.split('\n').length).toBeLessThanOrEqual(50);
  });

  it('turns exceptions into error results: recoverable by default, fatal when the tool says so', async () => {
    const failing = defineTool({
      name: 'failing',
      description: 'Fails.',
      args: z.strictObject({ how: z.enum(['plain', 'tool', 'fatal', 'database', 'enoent']) }),
      risk: 'read',
      async execute(args) {
        if (args.how === 'plain') throw new Error('boom');
        if (args.how === 'tool') throw new ToolError('nothing to see');
        if (args.how === 'database') throw new DatabaseError('database is locked', 'sqlite://x');
        if (args.how === 'enoent') throw Object.assign(new Error('ENOENT: x'), { code: 'ENOENT', path: `${bed.workspace}/src/gone.ts` });
        throw new ToolError('disk full', { fatal: true });
      },
    });
    const runtime = runtimeWith([failing]);
    const plain = await bed.call(runtime, 'failing', { how: 'plain' });
    expect(plain).toMatchObject({ content: 'error: boom', isError: true, meta: { outcome: 'error' } });
    expect(plain.meta.fatal).toBeUndefined();
    expect((await bed.call(runtime, 'failing', { how: 'tool' })).content).toBe('error: nothing to see');
    expect((await bed.call(runtime, 'failing', { how: 'fatal' })).meta).toMatchObject({ outcome: 'error', fatal: true });
    expect((await bed.call(runtime, 'failing', { how: 'database' })).meta.fatal).toBe(true);
    expect((await bed.call(runtime, 'failing', { how: 'enoent' })).content).toBe('error: src/gone.ts: no such file or directory');
  });

  it('stops a tool at its deadline and reports a timeout', async () => {
    let sawAbort = false;
    const slow = defineTool({
      name: 'slow',
      description: 'Never finishes on its own.',
      args: z.strictObject({}),
      risk: 'read',
      timeoutMs: 50,
      execute: (_args, context) =>
        new Promise((resolve) => {
          context.signal.addEventListener('abort', () => {
            sawAbort = true;
            resolve({ content: 'partial output' });
          });
        }),
    });
    // The deadline passes on a fake clock, advanced while the call is under way: no real 50 ms to race.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let result: Awaited<ReturnType<typeof bed.call>>;
    try {
      const pending = bed.call(runtimeWith([slow]), 'slow', {});
      await vi.waitFor(() => expect(sawAbort).toBe(true));
      result = await pending;
    } finally {
      vi.useRealTimers();
    }
    expect(sawAbort).toBe(true);
    expect(result).toMatchObject({ isError: true, meta: { outcome: 'timeout' } });
    expect(result.content).toBe('timeout: the call did not finish within 50 ms and was stopped\npartial output');
  });

  it('stops a tool when the run is cancelled', async () => {
    const controller = new AbortController();
    const waiting = defineTool({
      name: 'waiting',
      description: 'Waits for the signal.',
      args: z.strictObject({}),
      risk: 'read',
      execute: (_args, context) =>
        new Promise((_resolve, reject) => {
          context.signal.addEventListener('abort', () => reject(new Error('stopped')));
          // Cancelled once the tool runs, whatever the machine's load.
          controller.abort();
        }),
    });
    const pending = bed.call(runtimeWith([waiting]), 'waiting', {}, { signal: controller.signal });
    const result = await pending;
    expect(result).toMatchObject({ content: 'aborted: the run was cancelled and the call was stopped', meta: { outcome: 'aborted' } });
  });

  it('renders results as the JSON of `dagent tool`', async () => {
    const runtime = runtimeWith([echoTool]);
    expect(toolResultToJson(await bed.call(runtime, 'echo_text', { text: 'ok' }))).toMatchObject({ ok: true, output: 'ok' });
    expect(toolResultToJson(await bed.call(runtime, 'nope', {}))).toMatchObject({ ok: false, error: 'unknown-tool: unknown tool "nope". Available tools: echo_text' });
  });
});

describe('LocalToolRuntime: approval', () => {
  it('runs reads without asking and asks for writes under the default policy, recording the answer', async () => {
    const approver = createScriptedApprover([{ decision: 'yes' }]);
    const runtime = runtimeWith([echoTool, touchTool]);
    await bed.call(runtime, 'echo_text', { text: 'a' }, { approver });
    const result = await bed.call(runtime, 'touch_thing', { name: 'x' }, { approver });
    expect(result.content).toBe('touched x');
    expect(approver.requests).toEqual([
      { runId: bed.runId, nodeId: 'node-a', toolCallId: 'call-2', tool: 'touch_thing', args: { name: 'x' }, summary: 'touch_thing x', policy: 'suggest' },
    ]);
    expect(await typesOf()).toEqual(['tool/call', 'approval/requested', 'approval/granted', 'tool/call']);
    const granted = (await bed.events()).find((event) => event.type === 'approval/granted')!;
    expect(granted.payload).toEqual({ toolCallId: 'call-2', by: 'scripted', tool: 'touch_thing' });
  });

  it('turns a denial into a result the model can adapt to, and records it', async () => {
    const approver = createScriptedApprover([{ decision: 'no', reason: 'use the existing helper' }]);
    const result = await bed.call(runtimeWith([touchTool]), 'touch_thing', { name: 'x' }, { approver });
    expect(result).toMatchObject({ isError: true, meta: { outcome: 'denied', args: { name: 'x' } } });
    expect(result.content).toBe(
      'the user rejected this operation (use the existing helper): touch_thing x. It was not run. Do not repeat it; adapt your approach, or finish and explain what is left.',
    );
    expect(await typesOf()).toEqual(['approval/requested', 'approval/denied']);
    const denied = (await bed.events()).find((event) => event.type === 'approval/denied')!;
    expect(denied.payload).toEqual({ toolCallId: 'call-1', by: 'scripted', tool: 'touch_thing', reason: 'use the existing helper' });
  });

  it('denies and records every question in a non-interactive run', async () => {
    const result = await bed.call(runtimeWith([touchTool]), 'touch_thing', { name: 'x' }, { approver: createNonInteractiveApprover() });
    expect(result.meta.outcome).toBe('denied');
    expect(result.content).toMatch(/^the user rejected this operation \(no terminal to ask\)/);
    const events = (await bed.events()).filter((event) => event.type.startsWith('approval/'));
    expect(events.map((event) => [event.type, event.payload])).toEqual([
      ['approval/requested', { toolCallId: 'call-1', tool: 'touch_thing', args: { name: 'x' }, policy: 'suggest', reason: 'approval policy suggest', summary: 'touch_thing x' }],
      ['approval/denied', { toolCallId: 'call-1', by: 'non-interactive', tool: 'touch_thing', reason: 'no terminal to ask' }],
    ]);
  });

  it('remembers `always` for the rest of the run, per tool, from the log', async () => {
    const approver = createScriptedApprover([{ decision: 'always' }]);
    const runtime = runtimeWith([touchTool]);
    expect((await bed.call(runtime, 'touch_thing', { name: 'a' }, { approver })).content).toBe('touched a');
    expect((await bed.call(runtime, 'touch_thing', { name: 'b' }, { approver })).content).toBe('touched b');
    expect(approver.requests).toHaveLength(1);
    // A new runtime (a resumed process) still honours it.
    expect((await bed.call(runtimeWith([touchTool]), 'touch_thing', { name: 'c' }, { approver })).content).toBe('touched c');
    expect(approver.requests).toHaveLength(1);
  });

  it('applies per-tool and general policies: auto runs, never asks even for safe calls', async () => {
    const approver = createScriptedApprover([]);
    const auto = runtimeWith([touchTool], { approval: 'auto' });
    expect((await bed.call(auto, 'touch_thing', { name: 'x' }, { approver })).content).toBe('touched x');
    const strictEcho = runtimeWith([echoTool], { toolApproval: { echo_text: 'never' } });
    expect((await bed.call(strictEcho, 'echo_text', { text: 'x' }, { approver })).meta.outcome).toBe('denied');
    expect(approver.requests.map((request) => request.policy)).toEqual(['never']);
  });

  it('refuses a call the tool judges dangerous under every policy, without asking', async () => {
    const guarded = defineTool({
      name: 'guarded',
      description: 'Refuses the word danger.',
      args: z.strictObject({ word: z.string() }),
      risk: 'command',
      assess: (args) => (args.word === 'danger' ? { level: 'dangerous', reason: 'it is dangerous' } : { level: 'safe' }),
      async execute(args) {
        return { content: `ran ${args.word}` };
      },
    });
    const answers: ApprovalAnswer[] = [{ decision: 'always' }];
    for (const approval of ['auto', 'suggest', 'never'] as const) {
      const approver = createScriptedApprover(answers);
      const result = await bed.call(runtimeWith([guarded], { approval }), 'guarded', { word: 'danger' }, { approver });
      expect(result).toMatchObject({ isError: true, meta: { outcome: 'refused' } });
      expect(result.content).toBe('refused: it is dangerous. This is refused under every approval policy; do not retry it, find another way.');
      expect(approver.requests).toEqual([]);
    }
    expect((await bed.call(runtimeWith([guarded]), 'guarded', { word: 'fine' }, { approver: createScriptedApprover([]) })).content).toBe('ran fine');
    expect(await typesOf()).toEqual(['tool/call']);
  });

  it('stops waiting for an approver that ignores the cancelled run', async () => {
    const controller = new AbortController();
    // The run is cancelled while the approver is being asked (and never answers).
    const silent = {
      interactive: true,
      ask: () => {
        controller.abort();
        return new Promise<ApprovalAnswer>(() => undefined);
      },
    };
    const pending = bed.call(runtimeWith([touchTool]), 'touch_thing', { name: 'x' }, { approver: silent, signal: controller.signal });
    const result = await pending;
    expect(result).toMatchObject({ content: 'aborted: the run was cancelled before this call ran', meta: { outcome: 'aborted' } });
    expect(await typesOf()).toEqual(['approval/requested', 'approval/denied']);
    const denied = (await bed.events()).find((event) => event.type === 'approval/denied')!;
    expect(denied.payload).toMatchObject({ by: 'user', reason: 'the run was cancelled' });
  });

  it('lists a tool registered after its names and specs were read (an MCP server that connected late)', () => {
    const runtime = createToolRuntime();
    expect(runtime.specs().map((spec) => spec.name)).not.toContain('echo_text');
    const listed = runtime.names();
    listed.push('not-a-tool');

    runtime.register(echoTool);

    expect(runtime.names()).toEqual(['echo_text', 'edit_file', 'grep', 'list_files', 'read_file', 'recall_history', 'run_command', 'write_file']);
    expect(runtime.specs(['echo_text', 'grep']).map((spec) => spec.name)).toEqual(['echo_text', 'grep']);
  });

  it('registers the default tools under the names of the architecture', () => {
    expect(createToolRuntime().names()).toEqual(['edit_file', 'grep', 'list_files', 'read_file', 'recall_history', 'run_command', 'write_file']);
    expect(createToolRuntime().policyFor('run_command')).toBe('suggest');
    expect(createToolRuntime({ approval: 'never' }).policyFor('read_file')).toBe('auto');
  });
});
