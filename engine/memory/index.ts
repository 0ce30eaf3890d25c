/**
 * Long-term memory (SPEC §5.2): facts that outlive a session, stored in the `memories` table,
 * deduplicated on insert and recalled by keyword before each model call; and the project memory
 * files, loaded as a static system-prompt section.
 */
export { MAX_MEMORY_CHARS, MEMORY_KINDS, MEMORY_ORIGINS, type MemorySource, MEMORY_SCOPES, isMemoryKind, isMemoryScope, type Memory, type MemoryKind, type MemoryScope, type RecalledMemory } from './memory.js';
export {
  DEFAULT_RECALL_LIMIT,
  InvalidMemoryError,
  MemoryStore,
  type AddMemoryInput,
  type AddMemoryResult,
  type ListMemoriesOptions,
  type MemoryDatabase,
  type SearchMemoriesOptions,
} from './memory-store.js';
export { MemoryIdError, ScopedMemoryStore, type MemoryBank, type ScopedMemoryStoreOptions } from './scoped-memory-store.js';
export { ftsSearch, keywordSearch, type MemorySearchOptions } from './memory-search.js';
export { MAX_KEYWORDS, STOP_WORDS, extractKeywords } from './keywords.js';
export { memoryContentHash, normalizeMemoryContent } from './content-hash.js';
export { addMemory, rememberArgsSchema, rememberFromTool, type RememberArgs, type RememberResult } from './remember.js';
export { formatMemory, recallMemories, type RecallMemoriesOptions } from './recall-memories.js';
export {
  MAX_PROJECT_MEMORY_FILE_BYTES,
  PROJECT_MEMORY_FILES,
  PROJECT_MEMORY_SECTION_ORDER,
  loadProjectMemory,
  projectMemorySection,
  type ProjectMemoryFile,
} from './project-memory.js';
