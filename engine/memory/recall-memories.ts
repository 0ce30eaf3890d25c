import type { ContextProvider } from '../context/index.js';
import type { Memory } from './memory.js';
import { DEFAULT_RECALL_LIMIT, type SearchMemoriesOptions } from './memory-store.js';
import type { MemoryBank } from './scoped-memory-store.js';

export interface RecallMemoriesOptions extends SearchMemoriesOptions {
  /**
   * What to recall for: usually the node's instruction or the task. A fixed query keeps the
   * recalled set stable, so the runtime-context projection writes it once, not every step.
   */
  readonly query: string | (() => string | Promise<string>);
  /** The context key; `memory` by default. */
  readonly id?: string;
}

const RECALL_HEADING = 'Long-term memories that may apply (most relevant first; `remember` adds one):';

/**
 * A SystemPrompt context provider that recalls the memories matching a query before each model
 * call. Its value enters the history through the runtime-context projection, which writes it
 * only when it changed. No match: no value, so the key is left out.
 */
export function recallMemories(store: MemoryBank, options: RecallMemoriesOptions): ContextProvider {
  const { query, id, ...search } = options;
  return {
    id: id ?? 'memory',
    async provide() {
      const text = typeof query === 'string' ? query : await query();
      const recalled = await store.search(text, { ...search, limit: search.limit ?? DEFAULT_RECALL_LIMIT });
      if (recalled.length === 0) return undefined;
      return [RECALL_HEADING, ...recalled.map(({ memory }) => formatMemory(memory))].join('\n');
    },
  };
}

/** `- [project convention #3] Tests live next to the code.` */
export function formatMemory(memory: Memory): string {
  return `- [${memory.scope} ${memory.kind} #${memory.id}] ${memory.content}`;
}
