import type { Selectable } from 'kysely';
import type { MemoriesTable } from '../db/index.js';
import { MEMORY_ORIGINS, isMemoryKind, isMemoryScope, type Memory, type MemorySource } from './memory.js';

/** A stored row back into a memory. Unknown scopes and kinds (from a newer writer) read as project facts. */
export function memoryFromRow(row: Selectable<MemoriesTable>): Memory {
  return {
    id: Number(row.id),
    scope: isMemoryScope(row.scope) ? row.scope : 'project',
    kind: isMemoryKind(row.kind) ? row.kind : 'fact',
    content: row.content,
    keywords: row.keywords.split(' ').filter((keyword) => keyword !== ''),
    contentHash: row.content_hash,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    ...(sourceOf(row.source) === undefined ? {} : { source: sourceOf(row.source)! }),
  };
}

/** The stored source, or undefined when there is none or it is not one this dagent knows. */
function sourceOf(text: string | null | undefined): MemorySource | undefined {
  if (text === null || text === undefined || text === '') return undefined;
  try {
    const value = JSON.parse(text) as Partial<MemorySource>;
    if (!(MEMORY_ORIGINS as readonly unknown[]).includes(value.kind)) return undefined;
    const field = (key: 'runId' | 'nodeId' | 'compactionId') => (typeof value[key] === 'string' ? { [key]: value[key] } : {});
    return { kind: value.kind!, ...field('runId'), ...field('nodeId'), ...field('compactionId') };
  } catch {
    return undefined;
  }
}
