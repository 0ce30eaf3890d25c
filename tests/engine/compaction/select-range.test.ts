import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { groupTurns, selectRange } from '../../../engine/index.js';
import { validateRange } from '../../../engine/compaction/select-range.js';
import type { SurfaceEvent } from '../../../engine/session/surface.js';
import { SurfaceBuilder } from './fixtures.js';

const kinds = (events: readonly SurfaceEvent[]): string =>
  events.map((event) => (event.type === 'user/message' ? (event.payload.source === 'instruction' ? 'I' : 'U') : event.type === 'assistant/message' ? 'A' : 'R')).join('');

describe('groupTurns', () => {
  it.each([
    { name: 'instruction then tool turns', build: (b: SurfaceBuilder) => b.instruction().turn().turn([{}, {}]), pinned: 1, turns: [[1, 2], [3, 5]] },
    {
      name: 'a user message opens the next turn',
      build: (b: SurfaceBuilder) => b.instruction().turn().user('ctx', 'runtime-context').turn(),
      pinned: 1,
      turns: [[1, 2], [3, 5]],
    },
    { name: 'hand-overs stay pinned', build: (b: SurfaceBuilder) => b.instruction().user('dep result', 'handoff').turn(), pinned: 2, turns: [[2, 3]] },
    {
      name: 'a runtime context before the instruction is pinned with it',
      build: (b: SurfaceBuilder) => b.user('ctx', 'runtime-context').instruction().turn(),
      pinned: 2,
      turns: [[2, 3]],
    },
    { name: 'trailing messages form an open turn', build: (b: SurfaceBuilder) => b.instruction().turn().user('ctx', 'runtime-context'), pinned: 1, turns: [[1, 2], [3, 3]] },
    { name: 'a final answer is a turn of its own', build: (b: SurfaceBuilder) => b.instruction().turn().answer('done'), pinned: 1, turns: [[1, 2], [3, 3]] },
  ])('$name', ({ build, pinned, turns }) => {
    const layout = groupTurns(build(new SurfaceBuilder()).events);
    expect(layout.pinned).toBe(pinned);
    expect(layout.turns.map((turn) => [turn.first, turn.last])).toEqual(turns);
  });
});

describe('selectRange', () => {
  it('keeps the instruction and the last 3 turns', () => {
    const { events } = new SurfaceBuilder().instruction().turn().turn().user('ctx', 'runtime-context').turn().turn().turn().turn();
    expect(kinds(events)).toBe('IARARUARARARAR');
    expect(selectRange(events)).toEqual({ kind: 'range', range: { first: 1, last: 7 }, turns: 3 });
  });

  it.each([
    { name: 'three turns', build: (b: SurfaceBuilder) => b.instruction().turn().turn().turn(), reason: 'too-few-turns' },
    { name: 'an open turn does not count', build: (b: SurfaceBuilder) => b.instruction().turn().turn().turn().user('next'), reason: 'too-few-turns' },
    { name: 'only the instruction', build: (b: SurfaceBuilder) => b.instruction(), reason: 'too-few-turns' },
  ])('selects nothing with $name', ({ build, reason }) => {
    expect(selectRange(build(new SurfaceBuilder()).events)).toEqual({ kind: 'none', reason });
  });

  it('takes only the oldest turns that fit the budget', () => {
    const { events } = new SurfaceBuilder().instruction().turn().turn().turn().turn().turn().turn();
    expect(selectRange(events, { maxTokens: 20, tokensOf: () => 5 })).toEqual({ kind: 'range', range: { first: 1, last: 4 }, turns: 2 });
    expect(selectRange(events, { maxTokens: 4, tokensOf: () => 5 })).toEqual({ kind: 'none', reason: 'too-large' });
  });

  it('moves the cut earlier when a result arrived after the next turn began', () => {
    const builder = new SurfaceBuilder().instruction().turn().turn([{}], { open: true }).user('ctx', 'runtime-context');
    builder.result('call-2', 'read_file', 'late');
    builder.turn().turn().turn().turn();
    // turn 2's result sits in turn 3: a cut after turn 2 would split call-2 from its result.
    const selection = selectRange(builder.events);
    expect(selection.kind).toBe('range');
    if (selection.kind === 'range') expect(validateRange(builder.events, selection.range)).toEqual({ valid: true });
  });
});

describe('validateRange', () => {
  const { events } = new SurfaceBuilder().instruction().turn([{}, {}]).turn().answer('done');
  it.each([
    { name: 'whole turns', range: { first: 1, last: 6 }, valid: true },
    { name: 'a call without its results', range: { first: 1, last: 2 }, valid: false, kinds: ['splits-tool-call'] },
    { name: 'a result without its call', range: { first: 3, last: 6 }, valid: false, kinds: ['splits-tool-call'] },
    { name: 'the instruction', range: { first: 0, last: 3 }, valid: false, kinds: ['includes-pinned'] },
    { name: 'past the end', range: { first: 5, last: 99 }, valid: false, kinds: ['out-of-bounds'] },
    { name: 'reversed', range: { first: 4, last: 2 }, valid: false, kinds: ['out-of-bounds'] },
  ])('$name → valid: $valid', ({ range, valid, kinds: problemKinds }) => {
    const validation = validateRange(events, range);
    expect(validation.valid).toBe(valid);
    if (!validation.valid) expect([...new Set(validation.problems.map((problem) => problem.kind))]).toEqual(problemKinds);
  });

  it('a call whose result has not arrived cannot be compacted', () => {
    const open = new SurfaceBuilder().instruction().turn([{}], { open: true }).events;
    expect(validateRange(open, { first: 1, last: 1 })).toMatchObject({ valid: false, problems: [{ kind: 'splits-tool-call', toolCallId: 'call-1', callIndex: 1 }] });
  });
});

/** A random node history: pinned prefix, turns with 0–3 tool calls, context messages, sometimes a late result or an open end. */
const history = fc
  .record({
    handoffs: fc.integer({ min: 0, max: 2 }),
    contextFirst: fc.boolean(),
    turns: fc.array(
      fc.record({ calls: fc.integer({ min: 0, max: 3 }), contextBefore: fc.boolean(), summaryBefore: fc.boolean(), lateResult: fc.boolean() }),
      { maxLength: 14 },
    ),
    openEnd: fc.constantFrom('none', 'user', 'open-call'),
  })
  .map((spec) => {
    const builder = new SurfaceBuilder();
    if (spec.contextFirst) builder.user('ctx', 'runtime-context');
    builder.instruction();
    for (let index = 0; index < spec.handoffs; index += 1) builder.user(`dep ${index}`, 'handoff');
    let late: { id: string } | undefined;
    spec.turns.forEach((turn, index) => {
      if (turn.summaryBefore && index === 0) builder.user('earlier summary', 'compaction-summary');
      if (turn.contextBefore) builder.user('ctx', 'runtime-context');
      if (late !== undefined) {
        builder.result(late.id, 'read_file', 'late result');
        late = undefined;
      }
      const calls = Array.from({ length: turn.calls }, (_, call) => ({ args: { path: `src/${index}-${call}.ts` } }));
      const deferLast = turn.lateResult && turn.calls > 0;
      builder.turn(calls, { open: deferLast });
      if (deferLast) {
        const assistant = builder.events.at(-1)!;
        const ids = assistant.type === 'assistant/message' ? assistant.payload.toolCalls.map((call) => call.id) : [];
        for (const id of ids.slice(0, -1)) builder.result(id, 'read_file', 'ok');
        late = { id: ids.at(-1)! };
      }
    });
    if (late !== undefined) builder.result(late.id, 'read_file', 'late result');
    if (spec.openEnd === 'user') builder.user('ctx', 'runtime-context');
    if (spec.openEnd === 'open-call') builder.turn([{}], { open: true });
    return builder.events;
  });

describe('selectRange over random histories', () => {
  it('never splits a tool call from its result, keeps the last 3 turns and the instruction', () => {
    fc.assert(
      fc.property(history, fc.option(fc.integer({ min: 1, max: 40 }), { nil: undefined }), (events, maxTokens) => {
        const selection = selectRange(events, maxTokens === undefined ? {} : { maxTokens, tokensOf: () => 1 });
        if (selection.kind === 'none') return;
        const { first, last } = selection.range;
        expect(validateRange(events, selection.range)).toEqual({ valid: true });
        const instruction = events.findIndex((event) => event.type === 'user/message' && event.payload.source === 'instruction');
        expect(first).toBeGreaterThan(instruction);
        const assistants = events.flatMap((event, index) => (event.type === 'assistant/message' ? [index] : []));
        for (const kept of assistants.slice(-3)) expect(kept).toBeGreaterThan(last);
        if (maxTokens !== undefined) expect(last - first + 1).toBeLessThanOrEqual(maxTokens);
      }),
      { numRuns: 500 },
    );
  });

  it('always finds a range in a well-formed history with more than 3 turns', () => {
    const wellFormed = fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 4, maxLength: 12 }).map((calls) => {
      const builder = new SurfaceBuilder().instruction();
      for (const count of calls) builder.turn(Array.from({ length: count }, () => ({})));
      return builder.events;
    });
    fc.assert(
      fc.property(wellFormed, (events) => {
        expect(selectRange(events).kind).toBe('range');
      }),
    );
  });
});
