import { describe, expect, it } from 'vitest';
import { applyEvents, createDashboardState, moveSelection, plainText, renderScreen, stageRows, tailLines, type DashboardState } from '../../dashboard/index.js';
import { emptyRunView, type EventDraft, type SessionEvent } from '../../engine/index.js';

const START = Date.parse('2026-11-30T10:00:00.000Z');

function events(drafts: readonly EventDraft[]): SessionEvent[] {
  return drafts.map(
    (draft, index) =>
      ({ seq: index + 1, runId: 'r-1', nodeId: draft.nodeId ?? null, turn: 0, step: 0, type: draft.type, payload: draft.payload, createdAt: new Date(START + index * 1000).toISOString() }) as SessionEvent,
  );
}

const plan = {
  nodes: [
    { id: 'edit-channel', kind: 'edit', title: 'Rename send() on Channel', dependsOn: [] },
    { id: 'edit-email', kind: 'edit', title: 'EmailChannel implements deliver()', dependsOn: ['edit-channel'] },
    { id: 'edit-sms', kind: 'edit', title: 'SmsChannel implements deliver()', dependsOn: ['edit-channel'] },
    { id: 'edit-digest', kind: 'edit', title: 'The digest calls deliver()', dependsOn: ['edit-email'] },
    { id: 'test', kind: 'command', title: 'Compile and run the tests', dependsOn: ['edit-email', 'edit-sms', 'edit-digest'] },
  ],
};
const usage = { input: 4000, output: 200, cacheHit: 3000, reasoning: 0 };

const middleOfTheDemo = events([
  { type: 'run/created', payload: { task: 'Rename Channel.send() to Channel.deliver()', workspace: '/w', mode: 'plan' } },
  { type: 'plan/created', payload: { version: 1, plan, hash: 'h1' } },
  { type: 'run/started', payload: { planVersion: 1 } },
  { type: 'node/started', nodeId: 'edit-channel', payload: { attempt: 1 } },
  { type: 'assistant/message', nodeId: 'edit-channel', payload: { content: 'done', toolCalls: [], finishReason: 'stop', provider: 'scripted', model: 'm', usage, costUsd: 0.002 } },
  { type: 'node/succeeded', nodeId: 'edit-channel', payload: { result: 'renamed' } },
  { type: 'node/started', nodeId: 'edit-email', payload: { attempt: 1 } },
  { type: 'node/started', nodeId: 'edit-sms', payload: { attempt: 1 } },
  { type: 'node/succeeded', nodeId: 'edit-email', payload: { result: 'ok' } },
  { type: 'node/started', nodeId: 'edit-digest', payload: { attempt: 1 } },
  { type: 'request/context', nodeId: 'edit-digest', payload: { messageSeqs: [], estimatedTokens: 11_826, surfaceGeneration: 0, compactionThresholdTokens: 6250 } },
  {
    type: 'assistant/message',
    nodeId: 'edit-digest',
    payload: { content: 'The format notes first.', toolCalls: [{ id: 'c1', name: 'read_file', args: { path: 'docs/digest-format.md' } }], finishReason: 'tool-calls', provider: 'scripted', model: 'm', usage, costUsd: 0.002 },
  },
  { type: 'compaction/start', nodeId: 'edit-digest', payload: { compactionId: 'k1', trigger: 'threshold', range: { start: 1, end: 9 }, tokensBefore: 11_826 } },
  { type: 'compaction/end', nodeId: 'edit-digest', payload: { compactionId: 'k1', outcome: 'committed', tokensAfter: 4067 } },
  { type: 'request/context', nodeId: 'edit-digest', payload: { messageSeqs: [], estimatedTokens: 4067, surfaceGeneration: 1, compactionThresholdTokens: 6250 } },
  { type: 'work/reported', nodeId: 'edit-digest', payload: { title: 'Rename send() in WebhookChannel', files: ['src/webhook-channel.ts'], reason: 'missed' } },
  { type: 'replan/started', nodeId: null, payload: { trigger: 'missed-work', progress: 0.6, mode: 'append', nodeId: 'edit-digest' } },
  {
    type: 'plan/amended',
    payload: {
      version: 2,
      reason: 'edit-digest reported missed work',
      hash: 'h2',
      plan: { nodes: [...plan.nodes.slice(0, 4), { ...plan.nodes[4]!, dependsOn: ['edit-email', 'edit-sms', 'edit-digest', 'edit-webhook'] }, { id: 'edit-webhook', kind: 'edit', title: 'WebhookChannel implements deliver()', dependsOn: ['edit-channel'] }] },
      diff: { addedNodes: [{ id: 'edit-webhook' }], removedNodes: [], addedEdges: [{ from: 'edit-channel', to: 'edit-webhook' }, { from: 'edit-webhook', to: 'test' }], removedEdges: [] },
    },
  },
  { type: 'replan/finished', payload: { outcome: 'amended', version: 2 } },
  { type: 'approval/requested', nodeId: 'edit-sms', payload: { toolCallId: 't9', tool: 'run_command', args: { command: 'npm test' }, policy: 'suggest', summary: 'run_command npm test' } },
]);

function screenOf(state: DashboardState, width = 80, height = 24): string[] {
  return renderScreen(state, { width, height }, { color: false, now: START + 30_000 }).lines.map(plainText);
}

describe('the time left', () => {
  const commandsPlan = {
    nodes: [
      { id: 'edit', kind: 'edit', title: 'Rename', dependsOn: [] },
      { id: 'build', kind: 'command', title: 'Build', command: 'npm run build', dependsOn: ['edit'] },
      { id: 'lint', kind: 'command', title: 'Lint', command: 'npm run lint', dependsOn: ['build'] },
      { id: 'test', kind: 'command', title: 'Test', command: 'npm test', dependsOn: ['lint'] },
    ],
  };
  const at = (seconds: number, draft: EventDraft): SessionEvent => ({ ...events([draft])[0]!, createdAt: new Date(START + seconds * 1000).toISOString() });
  const progressLine = (drafts: SessionEvent[], nowSeconds: number): string => {
    const state = applyEvents(createDashboardState(emptyRunView('r-1'), { attached: false }), drafts.map((event, index) => ({ ...event, seq: index + 1 })));
    return renderScreen(state, { width: 100, height: 30 }, { color: false, now: START + nowSeconds * 1000 }).lines.map(plainText).find((line) => line.includes('elapsed'))!;
  };
  const editDone = [
    at(0, { type: 'run/created', payload: { task: 'Rename', workspace: '/w', mode: 'plan' } }),
    at(0, { type: 'plan/created', payload: { version: 1, plan: commandsPlan, hash: 'h1' } }),
    at(0, { type: 'run/started', payload: { planVersion: 1 } }),
    at(0, { type: 'node/started', nodeId: 'edit', payload: { attempt: 1 } }),
    at(27, { type: 'node/succeeded', nodeId: 'edit', payload: { result: 'renamed' } }),
    at(27, { type: 'node/started', nodeId: 'build', payload: { attempt: 1 } }),
  ];

  it('counts three commands after a 27 s edit as seconds of work, not three more edits (~1:21 by the pace so far)', () => {
    expect(progressLine(editDone, 28)).toMatch(/1\/4 nodes · 0:28 elapsed · ~0:14 left/);
  });

  it('times the commands still to run by the ones that ran', () => {
    const buildDone = [...editDone, at(30, { type: 'node/succeeded', nodeId: 'build', payload: { result: 'ok' } }), at(30, { type: 'node/started', nodeId: 'lint', payload: { attempt: 1 } })];
    expect(progressLine(buildDone, 31)).toMatch(/2\/4 nodes · 0:31 elapsed · ~0:05 left/);
  });
});

describe('the dashboard screen', () => {
  const state = applyEvents(createDashboardState(emptyRunView('r-1'), { attached: false }), middleOfTheDemo);

  it('shows the DAG by stage, progress, totals, the replan with what changed and the pending approval at 80×24', () => {
    const lines = screenOf(state);
    expect(lines).toHaveLength(24);
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(80);
    const screen = lines.join('\n');
    expect(screen).toContain('dagent r-1 · running · plan v2');
    // Left: the overdue edit-sms, then the tests (a command, 5 s before one has run), not 4 more nodes at 14 s each.
    expect(screen).toMatch(/2\/6 nodes · 0:28 elapsed · ~0:11 left/);
    expect(screen).toContain('tokens 8.0K in (75% cache hit) · 400 out · 2 model calls');
    expect(screen).toContain('1 replan');
    for (const stage of ['Stage 1', 'Stage 2', 'Stage 3', 'Stage 4']) expect(screen).toContain(stage);
    for (const id of ['edit-channel', 'edit-email', 'edit-sms', 'edit-digest', 'test', 'edit-webhook']) expect(screen).toContain(id);
    expect(screen).toContain('⟳ replan → plan v2: +edit-webhook · edges +edit-channel→edit-webhook');
    expect(screenOf(state, 160, 40).join('\n')).toContain('(append at 60%, missed-work in edit-digest)');
    expect(screen).toContain('? edit-sms asks: run_command npm test');
    expect(lines.at(-1)).toContain('? help · q detach');
  });

  it("follows the active node; a selected node shows its gauge against the compaction threshold, the compaction before → after, its live events", () => {
    // The last event came from edit-sms (it asks for an approval): the selection followed it.
    expect(state.selected).toBe('edit-sms');
    const order = renderScreen(state, { width: 120, height: 40 }, { color: false, now: START }).rowOrder;
    const digest = moveSelection(state, order, order.indexOf('edit-digest') - order.indexOf('edit-sms'));
    const screen = screenOf(digest, 120, 40).join('\n');
    expect(screen).toMatch(/context [█░]+ 4\.1K\/6\.3K 65%/);
    expect(screen).toContain('compactions: ⇣ 12K → 4.1K');
    expect(screen).toContain('» The format notes first.');
    expect(screen).toContain('→ read_file docs/digest-format.md');
    expect(screen).toMatch(/edit-digest +edit +0:\d\d +65%⇣/);
  });

  it('says a command node calls no model instead of waiting for its first request', () => {
    const order = renderScreen(state, { width: 120, height: 40 }, { color: false, now: START }).rowOrder;
    const test = moveSelection(state, order, order.indexOf('test') - order.indexOf('edit-sms'));
    const screen = screenOf(test, 120, 40).join('\n');
    expect(screen).toContain('context none: this node runs its command without a model');
    expect(screen).not.toContain('no model request yet');
  });

  it('says when the selected node went on from a step of an earlier attempt instead of starting over', () => {
    const resumed = applyEvents(state, [
      ...events([
        {
          type: 'step/resumed',
          nodeId: 'edit-sms',
          payload: { attempt: 1, fromStep: 3, rerun: 'none', interrupted: ['t9'], restored: ['src/sms-channel.ts'], modelCalls: 3, saved: usage, savedCostUsd: 0.006 },
        },
      ]).map((event) => ({ ...event, seq: middleOfTheDemo.length + 1 })),
    ]);
    expect(resumed.selected).toBe('edit-sms');
    expect(screenOf(resumed, 160, 40).join('\n')).toMatch(/edit-sms · edit · running 0:\d\d · attempt 1 · resumed from step 3/);
    expect(screenOf(state, 120, 40).join('\n')).not.toContain('resumed from step');
  });

  it('shows what a pending node waits on', () => {
    expect(screenOf(state, 120, 40).join('\n')).toMatch(/· test +command .*⟵ edit-sms,edit-dig/);
  });

  it('moves the selection with the keys and stops following activity', () => {
    const order = renderScreen(state, { width: 80, height: 24 }, { color: false, now: START }).rowOrder;
    const moved = moveSelection(state, order, -1);
    expect(moved.selected).toBe(order[order.indexOf('edit-sms') - 1]);
    expect(moved.following).toBe(false);
    const later = applyEvents(moved, events([{ type: 'node/started', nodeId: 'test', payload: { attempt: 1 } }]).map((event) => ({ ...event, seq: 100 })));
    expect(later.selected).toBe(moved.selected);
  });

  it('marks colour with tags only when colour is on (NO_COLOR)', () => {
    const colored = renderScreen(state, { width: 80, height: 24 }, { color: true, now: START }).lines.join('\n');
    const plain = renderScreen(state, { width: 80, height: 24 }, { color: false, now: START }).lines.join('\n');
    expect(colored).toContain('{green-fg}');
    expect(plain).not.toMatch(/\{(green|red|yellow|cyan|magenta|gray)-fg\}/);
  });

  it('collapses finished stages and scrolls to the selection for a run of 60 or more nodes', () => {
    const nodes = Array.from({ length: 80 }, (_, index) => ({ id: `n${String(index).padStart(2, '0')}`, kind: 'edit', title: `node ${index}`, dependsOn: index < 10 ? [] : [`n${String(index - 10).padStart(2, '0')}`] }));
    const drafts: EventDraft[] = [{ type: 'plan/created', payload: { version: 1, plan: { nodes }, hash: 'h' } }, { type: 'run/started', payload: {} }];
    for (const node of nodes.slice(0, 50)) drafts.push({ type: 'node/started', nodeId: node.id, payload: { attempt: 1 } }, { type: 'node/succeeded', nodeId: node.id, payload: { result: 'ok' } });
    drafts.push({ type: 'node/started', nodeId: 'n55', payload: { attempt: 1 } });
    const big = applyEvents(createDashboardState(emptyRunView('r-1'), { attached: false }), events(drafts));
    const lines = screenOf(big);
    expect(lines).toHaveLength(24);
    const screen = lines.join('\n');
    expect(screen).toContain('▸ Stage 5 · 10/10 done');
    expect(screen).toContain('n55');
    expect(screen).toContain('50/80 nodes');
    expect(stageRows(big.view, big.selected, 40, 17, START).filter((row) => row.nodeId !== undefined)).toHaveLength(30);
  });

  it('turns events into short live lines: tool calls by their main argument, results by their first line', () => {
    const [result] = tailLines(events([{ type: 'tool/result', nodeId: 'a', payload: { toolCallId: 'c', name: 'grep', content: '\nsrc/webhook-channel.ts:8: send(', isError: false, meta: { outcome: 'ok', truncated: false, originalLength: 10 } } }]).at(0)!);
    expect(result?.text).toBe('← grep ok: src/webhook-channel.ts:8: send(');
  });

  it("lists a node's hook runs among its live lines: a block with the hook's reason", () => {
    const ran = { event: 'PreToolUse', matcher: 'run_command', command: 'guard.sh', toolCallId: 'c', tool: 'run_command', exitCode: 2, durationMs: 12, stdout: '', sandbox: 'bubblewrap' } as const;
    const lines = events([
      { type: 'hook/ran', nodeId: 'a', payload: { ...ran, outcome: 'blocked', stderr: 'publishing is for humans\n', effect: 'blocked' } },
      { type: 'hook/ran', nodeId: 'a', payload: { ...ran, event: 'PostToolUse', outcome: 'ok', exitCode: 0, stdout: 'formatted src/a.ts\n', stderr: '', effect: 'context' } },
    ]).flatMap((event) => tailLines(event));
    expect(lines.map((line) => [line.kind, line.text])).toEqual([
      ['approval', '⚑ hook PreToolUse run_command blocked (exit 2): publishing is for humans'],
      ['state', '⚑ hook PostToolUse run_command ok: formatted src/a.ts'],
    ]);
  });

  it('shows escapes in a plan title and the model text as escapes, never as raw control characters', () => {
    const hostile = events([
      { type: 'plan/created', payload: { version: 1, plan: { nodes: [{ id: 'notes', kind: 'edit', title: 'Notes\u001b]52;c;cm0gLXJmIH4=\u0007\r\u001b[2Kfine', dependsOn: [] }] }, hash: 'h' } },
      { type: 'run/started', payload: {} },
      { type: 'node/started', nodeId: 'notes', payload: { attempt: 1 } },
      { type: 'assistant/message', nodeId: 'notes', payload: { content: 'Done\u001b]0;owned\u0007\u009b2J', toolCalls: [], finishReason: 'stop', provider: 'scripted', model: 'm', usage, costUsd: 0 } },
    ]);
    const screen = screenOf(applyEvents(createDashboardState(emptyRunView('r-1'), { attached: false }), hostile), 160, 24).join('\n');
    expect(screen).toContain('Notes\\e]52;c;');
    expect(screen).toContain('Done\\e]0;owned\\x07\\x9b2J');
    expect(screen).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
  });
});

describe('a run paused at its budget', () => {
  const paused = applyEvents(
    createDashboardState(emptyRunView('r-1'), { attached: false }),
    events([
      { type: 'run/created', payload: { task: 'Rename Channel.send() to Channel.deliver()', workspace: '/w', mode: 'plan' } },
      { type: 'plan/created', payload: { version: 1, plan, hash: 'h1' } },
      { type: 'budget/set', payload: { maxTokens: 20_000, source: 'flags' } },
      { type: 'run/started', payload: { planVersion: 1 } },
      { type: 'node/started', nodeId: 'edit-channel', payload: { attempt: 1 } },
      { type: 'assistant/message', nodeId: 'edit-channel', payload: { content: 'done', toolCalls: [], finishReason: 'stop', provider: 'scripted', model: 'm', usage: { ...usage, input: 17_476 }, costUsd: 0 } },
      { type: 'budget/reached', nodeId: 'edit-channel', payload: { scope: 'run', measure: 'tokens', spent: 17_676, estimate: 5_529, cap: 20_000 } },
      { type: 'run/paused', payload: { reason: "the run's budget is reached: spent 17676 tokens of 20000 tokens; the next model call (about 5529 tokens) would cross it", cause: 'budget' } },
    ]),
  );

  it('shows the spend as the pause line does, and a resume cap with room for the nodes left, as status does', () => {
    const screen = screenOf(paused, 240, 40).join('\n');
    expect(screen).toContain('budget 17676 of 20000 tokens (88%)');
    expect(screen).toContain('spent 17676 tokens of 20000 tokens');
    // 17 676 spent + the 5 529 call + a call's worth for each of the four edits left (the tests run no model) = 45 321.
    expect(screen).toContain('resume with a higher cap: dagent resume r-1 --max-tokens 46000');
  });
});

describe('a run that ended', () => {
  const ended = (draft: EventDraft): DashboardState =>
    applyEvents(
      createDashboardState(emptyRunView('r-1'), { attached: false }),
      events([
        { type: 'run/created', payload: { task: 'Rename Channel.send() to Channel.deliver()', workspace: '/w', mode: 'plan' } },
        { type: 'plan/created', payload: { version: 1, plan, hash: 'h1' } },
        { type: 'run/started', payload: { planVersion: 1 } },
        draft,
      ]),
    );

  // The line says how the run ended with the glyph the node list gives that outcome (■ is cancelled).
  it.each([
    ['succeeded', { type: 'run/succeeded', payload: {} }, /^✓ run succeeded in 0:01 · q to exit/],
    ['failed', { type: 'run/failed', payload: { error: 'a node failed' } }, /^✗ run failed in 0:01: a node failed · q to exit/],
    ['cancelled', { type: 'run/cancelled', payload: {} }, /^■ run cancelled in 0:01 · q to exit/],
  ] as const)('%s', (_status, draft, line) => {
    const lines = screenOf(ended(draft as EventDraft));
    expect(lines.at(-2)).toMatch(line);
  });
});

describe('a pending approval on a narrow terminal', () => {
  const command = 'touch built.txt && echo built the shapes module with a long command line && rm -f dist/old-shapes.js';
  const asking = applyEvents(
    createDashboardState(emptyRunView('r-1'), { attached: false }),
    events([
      { type: 'run/created', payload: { task: 'Rename Channel.send() to Channel.deliver()', workspace: '/w', mode: 'plan' } },
      { type: 'plan/created', payload: { version: 1, plan, hash: 'h1' } },
      { type: 'run/started', payload: { planVersion: 1 } },
      { type: 'node/started', nodeId: 'edit-channel', payload: { attempt: 1 } },
      { type: 'approval/requested', nodeId: 'edit-channel', payload: { toolCallId: 't1', tool: 'run_command', args: { command }, policy: 'suggest', summary: `run_command ${command}` } },
    ]),
  );

  it('shows the whole command that a would approve, wrapped to 80 columns', () => {
    const lines = screenOf(asking);
    expect(lines).toHaveLength(24);
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(80);
    const at = lines.findIndex((line) => line.startsWith('? edit-channel asks: run_command touch built.txt'));
    expect(at).toBeGreaterThan(0);
    const shown = lines.slice(at, -1).map((line) => line.trim()).join('').replace('a approve · d deny', '');
    expect(shown.replace(/\s+/g, '')).toBe(`?edit-channelasks:run_command${command}`.replace(/\s+/g, ''));
  });
});
