import type { PlanChangeView } from './run-view.js';

/** One line for what a replan changed: `+write-e · edges +edit-a→write-e`. */
export function planChangeSummary(change: PlanChangeView): string {
  const parts = [
    ...change.addedNodes.map((id) => `+${id}`),
    ...change.removedNodes.map((id) => `-${id}`),
    ...(change.addedEdges.length > 0 ? [`edges +${change.addedEdges.join(' +')}`] : []),
    ...(change.removedEdges.length > 0 ? [`edges -${change.removedEdges.join(' -')}`] : []),
  ];
  return parts.length === 0 ? 'no node or edge changed' : parts.join(' · ');
}
