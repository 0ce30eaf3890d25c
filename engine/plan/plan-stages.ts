import { topologicalGenerations } from 'graphology-dag';
import { findCycles } from './find-cycles.js';
import { GraphCycleError } from './plan-errors.js';
import { planGraph, type PlanGraph } from './plan-graph.js';
import type { Plan } from './plan-schema.js';

/**
 * The plan's stages: topological generations (stage 1 has no dependencies; every other node sits
 * one stage after its latest dependency), nodes of a stage in document order. Throws
 * `GraphCycleError` naming a cycle when there is one.
 */
export function planStages(plan: Plan, graph: PlanGraph = planGraph(plan)): readonly (readonly string[])[] {
  let generations: string[][];
  try {
    generations = topologicalGenerations(graph);
  } catch (error) {
    const cycle = findCycles(graph)[0];
    if (cycle !== undefined) throw new GraphCycleError(cycle);
    throw error;
  }
  const index = (id: string): number => graph.getNodeAttribute(id, 'index');
  return generations.map((generation) => [...generation].sort((a, b) => index(a) - index(b)));
}

/** The most nodes any stage can run at once. */
export function planWidth(stages: readonly (readonly string[])[]): number {
  return stages.reduce((widest, stage) => Math.max(widest, stage.length), 0);
}
