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

describe('small-model routing', () => {
  const routing = { smallModel: 's:small', runModel: 'r:big' };

  it.each([
    ['a node marked simple goes to the small model, the run model first to take over', { simple: true }, undefined, ['c:1'], routing, 's:small', ['r:big', 'c:1'], true],
    ['a node not marked simple stays on the run model', {}, undefined, ['c:1'], routing, undefined, ['c:1'], false],
    ['simple: false stays on the run model', { simple: false }, undefined, [], routing, undefined, [], false],
    ['a simple node that names its own model keeps it', { simple: true, model: 'a:1' }, undefined, [], routing, 'a:1', [], false],
    ["a simple node whose role names a model keeps the role's", { simple: true }, { model: 'r:1' }, [], routing, 'r:1', [], false],
    ['routing off (--no-routing, or no smallModel): the run model', { simple: true }, undefined, [], undefined, undefined, [], false],
    ['a small model that is the run model: nothing to route', { simple: true }, undefined, [], { smallModel: 'r:big', runModel: 'r:big' }, undefined, [], false],
  ] as const)('%s', (_name, node, role, config, route, primary, fallbacks, routed) => {
    const models = nodeModels(node, role, config, route);
    expect(models.primary).toBe(primary);
    expect(models.fallbacks).toEqual(fallbacks);
    expect(models.routed).toBe(routed);
    // The small model is the user's choice, never the plan's.
    expect(models.fromPlan.has('s:small')).toBe(false);
  });
});
