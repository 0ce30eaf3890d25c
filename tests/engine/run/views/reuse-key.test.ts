import { describe, expect, it } from 'vitest';
import { inputsDifference, resultHash, reuseKey, specHash, type NodeInputs } from '../../../../engine/run/views/reuse-key.js';
import type { Plan } from '../../../../engine/index.js';

const base: NodeInputs = { spec: 's1', model: 'scripted:m', dependencies: { a: 'ra' }, files: { 'src/a.ts': 'h1' } };
const plan: Plan = { goal: 'g', rationale: '', nodes: [{ id: 'a', kind: 'edit', title: 'A', instructions: 'do', reads: [], writes: ['src/a.ts'], dependsOn: [] }] } as Plan;

describe('the reuse key of a node', () => {
  it('is equal for equal inputs, in any key order, and differs when any input does', () => {
    expect(reuseKey(base)).toBe(reuseKey({ files: { 'src/a.ts': 'h1' }, dependencies: { a: 'ra' }, model: 'scripted:m', spec: 's1' }));
    expect(reuseKey({ ...base, files: { 'src/a.ts': 'h2' } })).not.toBe(reuseKey(base));
  });

  it.each([
    [{ ...base, spec: 's2' }, 'its specification changed'],
    [{ ...base, model: 'openai:gpt-4.1' }, 'its model changed (scripted:m → openai:gpt-4.1)'],
    [{ ...base, dependencies: { a: 'rb' } }, 'the result of a changed'],
    [{ ...base, dependencies: { a: 'ra', b: 'rb' } }, 'it depends on b now'],
    [{ ...base, files: { 'src/a.ts': 'h2' } }, 'src/a.ts changed since it read it'],
    [base, undefined],
  ])('names the first difference: %#', (now, reason) => {
    expect(inputsDifference(base, now)).toBe(reason);
  });

  it('hashes the specification without the estimate, but with the goal the prompt names', () => {
    const node = plan.nodes[0]!;
    expect(specHash(plan, { ...node, estimate: 5 })).toBe(specHash(plan, node));
    expect(specHash({ ...plan, goal: 'other' }, node)).not.toBe(specHash(plan, node));
    expect(specHash(plan, { ...node, instructions: 'do more' })).not.toBe(specHash(plan, node));
  });

  it("hashes a dependency's result by its answer and files, the same record again as before, a changed one anew", () => {
    const record: { result: string; filesChanged: readonly string[] } = { result: 'done', filesChanged: ['b.ts', 'a.ts'] };
    const first = resultHash(record);
    expect(resultHash(record)).toBe(first);
    expect(resultHash({ result: 'done', filesChanged: ['a.ts', 'b.ts'] })).toBe(first);
    record.result = 'done differently';
    expect(resultHash(record)).not.toBe(first);
    record.filesChanged = ['a.ts'];
    expect(resultHash(record)).toBe(resultHash({ result: 'done differently', filesChanged: ['a.ts'] }));
  });
});
