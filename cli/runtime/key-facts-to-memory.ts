import { addMemory, type KeyFactSink, type MemoryBank } from '../../engine/index.js';
import type { CliContext } from '../context/cli-context.js';

/**
 * Where a compaction's key facts go: project memories whose source names the run, the node and
 * the compaction (deduplicated by the store, like every memory), each recorded as `memory/added`
 * on the node. Undefined when `compaction.rememberKeyFacts` is false.
 */
export function keyFactsToMemory(context: CliContext, memory: MemoryBank | undefined): KeyFactSink | undefined {
  if (memory === undefined || context.config.compaction?.rememberKeyFacts === false) return undefined;
  return async (facts, origin, signal) => {
    const { session, compactionId } = origin;
    const source = { kind: 'compaction' as const, runId: session.log.runId, compactionId, ...(session.nodeId === null ? {} : { nodeId: session.nodeId }) };
    for (const fact of facts) await addMemory(memory, { content: fact.content, kind: fact.kind, scope: 'project', source }, session, signal);
  };
}
