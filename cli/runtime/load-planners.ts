import type * as PlannersModule from '../../planners/index.js';

export type Planners = typeof PlannersModule;

/**
 * planners/ brings the TypeScript compiler (about a second to load): commands that never scan
 * (`run`, `status`, `log`, ...) must not pay for it, so it is loaded on first use.
 */
export function loadPlanners(): Promise<Planners> {
  return import('../../planners/index.js');
}
