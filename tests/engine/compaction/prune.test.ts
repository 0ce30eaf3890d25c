import { describe, expect, it } from 'vitest';
import { groupTurns, compactableSpan, planPrune, type SessionEvent } from '../../../engine/index.js';
import { prunePlaceholder, prunedResultDraft } from '../../../engine/compaction/prune.js';
import type { SurfaceEvent } from '../../../engine/session/surface.js';
import { SurfaceBuilder } from './fixtures.js';

/** Tokens of each event: the number in its content ("400" → 400), 10 otherwise. */
const tokensOf = (events: readonly SurfaceEvent[]) => (index: number): number => Number(events[index]!.payload.content) || 10;

function surface(outputs: string[]): SurfaceEvent[] {
  const builder = new SurfaceBuilder().instruction();
  outputs.forEach((output, index) => builder.turn([{ args: { path: `src/${index}.ts` }, output }]));
  return builder.events;
}

describe('planPrune', () => {
  const events = surface(['400', '900', '300', '900', '50', '5000', '5000', '5000']);
  const span = compactableSpan(groupTurns(events), 3);
  const total = events.reduce((sum, _event, index) => sum + tokensOf(events)(index), 0);
  const plan = (targetTokens: number, minTokens?: number) =>
    planPrune({ surface: events, span, tokensOf: tokensOf(events), tokens: total, targetTokens, ...(minTokens === undefined ? {} : { minTokens }) });
  const prunedPaths = (targetTokens: number, minTokens?: number): string[] => plan(targetTokens, minTokens).prunes.map((prune) => prune.placeholder.split(' ')[3]!);

  it.each([
    { name: 'already under the target', target: total, paths: [] },
    { name: 'one big output is enough', target: total - 500, paths: ['src/1.ts'] },
    { name: 'equal sizes: the oldest first', target: total - 1_000, paths: ['src/1.ts', 'src/3.ts'] },
    { name: 'everything worth pruning', target: 0, paths: ['src/0.ts', 'src/1.ts', 'src/2.ts', 'src/3.ts'] },
  ])('$name → $paths', ({ target, paths }) => {
    expect(prunedPaths(target).sort()).toEqual(paths);
  });

  it('reports whether the target is reached, and the tokens after', () => {
    expect(plan(total - 500)).toMatchObject({ reachesTarget: true });
    expect(plan(0)).toMatchObject({ reachesTarget: false });
    expect(plan(0).tokensAfter).toBeLessThan(total - 2_000);
  });

  it('leaves small outputs and the kept turns alone', () => {
    expect(prunedPaths(0, 350)).toEqual(['src/0.ts', 'src/1.ts', 'src/3.ts']);
    expect(prunedPaths(0).some((path) => ['src/5.ts', 'src/6.ts', 'src/7.ts'].includes(path))).toBe(false);
  });

  it('does not prune a placeholder again', () => {
    const first = plan(total - 500).prunes[0]!;
    const draft = prunedResultDraft(first);
    const replaced = events.map((event, index) => (index === first.index ? ({ ...first.event, ...draft, seq: 99 } as SurfaceEvent) : event));
    const again = planPrune({ surface: replaced, span, tokensOf: tokensOf(events), tokens: total, targetTokens: total - 500 });
    expect(again.prunes.map((prune) => prune.index)).not.toContain(first.index);
  });
});

describe('prunePlaceholder', () => {
  const result = (name: string, args?: unknown): SessionEvent<'tool/result'> =>
    ({ seq: 42, type: 'tool/result', payload: { toolCallId: 'c', name, content: 'x', isError: false, meta: { outcome: 'ok', truncated: false, originalLength: 1, ...(args === undefined ? {} : { args }) } } }) as SessionEvent<'tool/result'>;
  it.each([
    { name: 'read_file', args: { path: 'src/a.ts', offset: 10 }, text: '[output of read_file src/a.ts pruned — recall_history seq=42]' },
    { name: 'run_command', args: { command: 'npm   test' }, text: '[output of run_command npm test pruned — recall_history seq=42]' },
    { name: 'grep', args: { pattern: 'area\\(' }, text: '[output of grep area\\( pruned — recall_history seq=42]' },
    { name: 'list_files', args: {}, text: '[output of list_files pruned — recall_history seq=42]' },
  ])('$name', ({ name, args, text }) => {
    expect(prunePlaceholder(result(name, args))).toBe(text);
  });

  it('takes the arguments from the call when the result does not carry them', () => {
    expect(prunePlaceholder(result('read_file'), { path: 'b.ts' })).toBe('[output of read_file b.ts pruned — recall_history seq=42]');
  });
});
