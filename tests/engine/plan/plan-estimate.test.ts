import { describe, expect, it } from 'vitest';
import { estimatePlan, estimatedNodeTokens } from '../../../engine/index.js';
import { NODE_ANSWER_TOKENS, NODE_OVERHEAD_TOKENS } from '../../../engine/plan/plan-estimate.js';
import { node, rawPlan } from './plan-fixtures.js';

const fileSizes = new Map([
  ['src/a.ts', 4_000],
  ['src/b.ts', 800],
  ['src/util/c.ts', 400],
  ['README.md', 10_000],
]);
const price = (input: number, output: number): number => input * 1e-6 + output * 2e-6;

describe('estimatePlan', () => {
  it('counts overhead, prompt and the files each node reads and writes', () => {
    const plan = rawPlan([
      node('read', 'read', { title: 'Read', instructions: 'Look at the code', reads: ['src/**/*.ts'] }),
      node('edit', 'edit', { title: 'Edit', reads: ['src/a.ts'], writes: ['src/b.ts', 'src/new.ts'], dependsOn: ['read'] }),
      node('test', 'command', { command: 'npm test', dependsOn: ['edit'] }),
    ]);
    const estimate = estimatePlan(plan, { fileSizes, price });
    const [read, edit, test] = estimate.nodes;
    expect(read).toEqual({
      nodeId: 'read',
      files: ['src/a.ts', 'src/b.ts', 'src/util/c.ts'],
      inputTokens: NODE_OVERHEAD_TOKENS + Math.ceil('ReadLook at the code'.length / 4) + 1_000 + 200 + 100,
      outputTokens: NODE_ANSWER_TOKENS,
      tokens: NODE_OVERHEAD_TOKENS + 5 + 1_300 + NODE_ANSWER_TOKENS,
      costUsd: price(NODE_OVERHEAD_TOKENS + 5 + 1_300, NODE_ANSWER_TOKENS),
    });
    expect(edit).toMatchObject({ files: ['src/a.ts', 'src/b.ts', 'src/new.ts'], inputTokens: NODE_OVERHEAD_TOKENS + 1 + 1_000 + 200, outputTokens: NODE_ANSWER_TOKENS + 200 });
    expect(test).toEqual({ nodeId: 'test', files: [], inputTokens: 0, outputTokens: 0, tokens: 0, costUsd: 0 });
    expect(estimate.tokens).toBe(read!.tokens + edit!.tokens);
    expect(estimate.costUsd).toBeCloseTo(read!.costUsd + edit!.costUsd, 12);
    expect(estimate.inputTokens + estimate.outputTokens).toBe(estimate.tokens);
  });

  it('takes an injected token counter and overheads', () => {
    const plan = rawPlan([node('read', 'read', { title: 'R', reads: ['README.md'] })]);
    const estimate = estimatePlan(plan, { fileSizes, price, countTokens: (bytes) => bytes / 2, nodeOverheadTokens: 100, answerTokens: 10 });
    expect(estimate.nodes[0]).toMatchObject({ inputTokens: 100 + 1 + 5_000, outputTokens: 10 });
  });

  it("uses a node's own estimate as its total", () => {
    const plan = rawPlan([node('edit', 'edit', { title: 'E', writes: ['src/a.ts'], estimate: 10_000 })]);
    const estimate = estimatePlan(plan, { fileSizes, price, nodeOverheadTokens: 0, answerTokens: 0 });
    // computed: input 1 (title) + 1 000 (the file), output 1 000 (the file rewritten)
    const outputTokens = Math.round((10_000 * 1_000) / 2_001);
    expect(estimate.nodes[0]).toMatchObject({ tokens: 10_000, inputTokens: 10_000 - outputTokens, outputTokens });
  });
});

describe('estimatedNodeTokens', () => {
  it("weighs each model node as estimatePlan does, and leaves changed, added and command nodes to the caller", () => {
    const plan = rawPlan([
      node('read', 'read', { reads: ['src/**/*.ts'] }),
      node('test', 'command', { command: 'npm test', dependsOn: ['read'] }),
    ]);
    const weigh = estimatedNodeTokens(plan, fileSizes);

    expect(weigh(plan.nodes[0]!)).toBe(estimatePlan(plan, { fileSizes, price }).nodes[0]!.tokens);
    expect(weigh({ ...plan.nodes[0]!, reads: ['README.md'] })).toBeUndefined();
    expect(weigh(node('added', 'read', { reads: ['src/a.ts'] }))).toBeUndefined();
    expect(weigh(plan.nodes[1]!)).toBeUndefined();
  });
});
