import { describe, expect, it } from 'vitest';
import { extractSurvivalFacts } from '../../../engine/index.js';
import { runSummarizer } from '../../../engine/compaction/summarizer.js';
import { failingTestNames, survivalCheck, type SurvivalFact } from '../../../engine/compaction/survival-check.js';
import type { ModelRequest } from '../../../engine/model/model-provider.js';
import { SurfaceBuilder, scriptedSummarizer } from './fixtures.js';

const region = new SurfaceBuilder()
  .turn([{ name: 'read_file', args: { path: 'src/shape.ts' }, output: '  1\texport interface Shape {\n  2\t  area(): number;\n  3\t}\n  5\texport function makeSquare(side: number) {}' }])
  .turn([{ name: 'edit_file', args: { path: './src/square.ts', old_string: 'area()', new_string: 'getArea()' } }], { text: 'Now the square in src/square.ts.' })
  .turn([{ name: 'run_command', args: { command: 'npx vitest run tests/shape.test.ts' }, output: ' FAIL  tests/shape.test.ts > Square > computes its area\n × rejects negative sides 3ms\n Test Files  1 failed' }])
  .events;

describe('extractSurvivalFacts', () => {
  it('finds paths, exported identifiers and failing tests', () => {
    expect(extractSurvivalFacts(region)).toEqual([
      { kind: 'failing-test', value: 'computes its area' },
      { kind: 'failing-test', value: 'rejects negative sides' },
      { kind: 'path', value: 'src/shape.ts' },
      { kind: 'path', value: 'src/square.ts' },
      { kind: 'path', value: 'tests/shape.test.ts' },
      { kind: 'identifier', value: 'Shape' },
      { kind: 'identifier', value: 'makeSquare' },
    ]);
  });

  it.each([
    { output: 'FAIL src/a.test.ts (5 ms)', names: [] },
    { output: '  ● Shape › area › is width times height', names: ['is width times height'] },
    { output: '  ✕ rounds down (4 ms)', names: ['rounds down'] },
    { output: 'FAILED tests/test_shape.py::test_area - AssertionError', names: ['test_area'] },
    { output: '--- FAIL: TestArea (0.00s)', names: ['TestArea'] },
    { output: 'test shapes::area ... FAILED', names: ['shapes::area'] },
    { output: ' ✓ passes 2ms', names: [] },
  ])('failing tests in $output', ({ output, names }) => {
    expect(failingTestNames(output)).toEqual(names);
  });

  it('reads export lists and identifiers in edits', () => {
    const events = new SurfaceBuilder().turn([{ name: 'write_file', args: { path: 'src/index.ts', content: 'export { area as getArea, type Shape };\nexport default 1;' } }]).events;
    expect(extractSurvivalFacts(events).filter((fact) => fact.kind === 'identifier').map((fact) => fact.value)).toEqual(['getArea', 'Shape']);
  });
});

describe('survivalCheck', () => {
  it('returns what the summary lost; identifiers must be whole words', () => {
    const summary = 'Read src/shape.ts (exports Shape, makeSquareX). Edited src/square.ts. tests/shape.test.ts fails: "computes its area".';
    expect(survivalCheck(region, summary)).toEqual([
      { kind: 'failing-test', value: 'rejects negative sides' },
      { kind: 'identifier', value: 'makeSquare' },
    ]);
  });
});

describe('runSummarizer', () => {
  const facts: SurvivalFact[] = [
    { kind: 'path', value: 'src/a.ts' },
    { kind: 'identifier', value: 'getArea' },
  ];
  const request = (missing: readonly SurvivalFact[]): ModelRequest => ({
    agent: 'summarizer',
    model: 'm',
    system: '',
    tools: [],
    messages: [{ role: 'user', seq: 1, source: 'note', content: missing.map((fact) => fact.value).join(',') }],
    parameters: {},
    sessionId: 'r',
  });
  const signal = new AbortController().signal;

  it('accepts a complete summary at once', async () => {
    const summarize = scriptedSummarizer('src/a.ts defines getArea');
    const result = await runSummarizer({ summarize, signal, facts, request });
    expect(result).toMatchObject({ ok: true, text: 'src/a.ts defines getArea', attempts: 1, appendedFacts: [] });
  });

  it('retries once naming the missing facts, then appends what is still missing', async () => {
    const summarize = scriptedSummarizer('nothing useful', 'about src/a.ts');
    const result = await runSummarizer({ summarize, signal, facts, request });
    expect(summarize.requests.map((r) => r.messages[0]!.content)).toEqual(['', 'src/a.ts,getArea']);
    expect(result).toMatchObject({ ok: true, attempts: 2, appendedFacts: [{ kind: 'identifier', value: 'getArea' }] });
    if (result.ok) expect(result.text).toBe('about src/a.ts\n\n## Facts to keep\nThe compacted conversation also named these:\n- identifier: getArea');
    if (result.ok) expect(result.usage).toEqual({ input: 200, output: 20, cacheHit: 100, reasoning: 0 });
  });

  it('keeps a lossy first summary when the retry fails', async () => {
    const summarize = scriptedSummarizer('src/a.ts only', new Error('503'));
    const result = await runSummarizer({ summarize, signal, facts, request });
    expect(result).toMatchObject({ ok: true, attempts: 2, text: 'src/a.ts only\n\n## Facts to keep\nThe compacted conversation also named these:\n- identifier: getArea' });
  });

  it('gives up after two failed calls', async () => {
    const summarize = scriptedSummarizer(new Error('boom'), new Error('still down'));
    expect(await runSummarizer({ summarize, signal, facts, request })).toEqual({ ok: false, error: 'still down', attempts: 2 });
  });

  it('does not call an aborted summarizer', async () => {
    const controller = new AbortController();
    controller.abort();
    const summarize = scriptedSummarizer('x');
    const result = await runSummarizer({ summarize, signal: controller.signal, facts, request });
    expect(result).toMatchObject({ ok: false, attempts: 0 });
    expect(summarize.requests).toHaveLength(0);
  });
});
