import type { Selectable } from 'kysely';
import type { MemoriesTable } from '../db/index.js';
import { isMemoryKind, isMemoryScope, type Memory } from './memory.js';

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
  };
}
