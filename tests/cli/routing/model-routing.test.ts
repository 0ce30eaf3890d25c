import { describe, expect, it } from 'vitest';
import { modelRouting } from '../../../cli/runtime/model-routing.js';

describe('whether an invocation routes', () => {
  it.each([
    ['smallModel and a run model: on', { model: 'r:big', smallModel: 's:small' }, true, { smallModel: 's:small', runModel: 'r:big' }],
    ['--no-routing: off', { model: 'r:big', smallModel: 's:small' }, false, undefined],
    ['no smallModel: off', { model: 'r:big' }, true, undefined],
    ['no run model: off', { smallModel: 's:small' }, true, undefined],
  ] as const)('%s', (_name, config, enabled, expected) => {
    expect(modelRouting(config, enabled)).toEqual(expected);
  });
});
