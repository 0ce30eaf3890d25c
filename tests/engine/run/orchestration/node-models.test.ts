import { describe, expect, it } from 'vitest';
import { nodeModels } from '../../../../engine/run/orchestration/node-models.js';

describe('the models a node runs on', () => {
  it.each([
    ['nothing named: the run model, the config fallbacks', {}, undefined, ['c:1'], undefined, ['c:1']],
    ['a list: the first runs, the rest take over', { model: ['a:1', 'b:1'] }, undefined, ['c:1'], 'a:1', ['b:1', 'c:1']],
    ['its own fallbacks win over the config', { model: 'a:1', fallbackModels: ['b:1'] }, undefined, ['c:1'], 'a:1', ['b:1']],
    ['a role lends its models', {}, { model: ['r:1', 'r:2'] }, [], 'r:1', ['r:2']],
    ['the node wins over its role', { model: 'a:1' }, { model: 'r:1', fallbackModels: ['r:2'] }, [], 'a:1', ['r:2']],
    ['a model listed twice is tried once', { model: ['a:1', 'b:1'], fallbackModels: ['a:1', 'b:1'] }, undefined, [], 'a:1', ['b:1']],
  ] as const)('%s', (_name, node, role, config, primary, fallbacks) => {
    const models = nodeModels(node, role, config);
    expect(models.primary).toBe(primary);
    expect(models.fallbacks).toEqual(fallbacks);
  });

  it('knows which ids the plan itself named', () => {
    expect([...nodeModels({ model: 'a:1', fallbackModels: ['b:1'] }, { model: 'r:1' }, ['c:1']).fromPlan]).toEqual(['a:1', 'b:1']);
  });
});
