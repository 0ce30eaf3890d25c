import { ConfigError } from '../errors.js';
import type { Memory, MemoryScope, RecalledMemory } from './memory.js';
import { DEFAULT_RECALL_LIMIT, type AddMemoryInput, type AddMemoryResult, type ListMemoriesOptions, type MemoryStore, type SearchMemoriesOptions } from './memory-store.js';

/** What the `remember` tool, recall and `dagent memory` need of a memory store. */
export interface MemoryBank {
  add(input: AddMemoryInput, signal?: AbortSignal): Promise<AddMemoryResult>;
  list(options?: ListMemoriesOptions, signal?: AbortSignal): Promise<Memory[]>;
  search(query: string, options?: SearchMemoriesOptions, signal?: AbortSignal): Promise<RecalledMemory[]>;
}

export interface ScopedMemoryStoreOptions {
  /** The workspace's store: `project` memories (and `user` ones written before they had their own). */
  readonly project: MemoryStore;
  /** The user's own store, shared by every workspace; opened on first use; undefined when there is no user folder. */
  readonly user?: () => Promise<MemoryStore>;
  /**
   * Whether the user's store exists yet. Reads (list, search, remove) of a store that does not
   * exist find nothing without creating it; only `add` with `scope: 'user'` creates it.
   */
  readonly userExists?: () => boolean;
}

/** A memory id is ambiguous or unknown; the message names the next step. */
export class MemoryIdError extends ConfigError {}

/**
 * `project` memories in the workspace's database, `user` memories in the user's own database
 * (`userDataDir`), so a preference remembered in one project is recalled in every other. Lists
 * and searches read both: the project's first, then the user's; a search ranks both by score.
 */
export class ScopedMemoryStore implements MemoryBank {
  readonly #project: MemoryStore;
  readonly #openUser: (() => Promise<MemoryStore>) | undefined;
  readonly #userExists: (() => boolean) | undefined;
  #user: Promise<MemoryStore> | undefined;

  constructor(options: ScopedMemoryStoreOptions) {
    this.#project = options.project;
    this.#openUser = options.user;
    this.#userExists = options.userExists;
  }

  async add(input: AddMemoryInput, signal?: AbortSignal): Promise<AddMemoryResult> {
    if (input.scope !== 'user') return this.#project.add(input, signal);
    const user = await this.#userStore();
    if (user === undefined) throw new ConfigError('user memories live in the user folder, and neither HOME nor XDG_DATA_HOME is set: set HOME, or add it with --scope project');
    return user.add(input, signal);
  }

  async list(options: ListMemoriesOptions = {}, signal?: AbortSignal): Promise<Memory[]> {
    const { limit: _limit, ...unlimited } = options;
    const all = (await Promise.all((await this.#stores(options.scope)).map(async (store) => store.list(unlimited, signal)))).flat();
    const wanted = all.filter((memory) => options.scope === undefined || memory.scope === options.scope);
    return options.limit === undefined ? wanted : wanted.slice(0, options.limit);
  }

  async search(query: string, options: SearchMemoriesOptions = {}, signal?: AbortSignal): Promise<RecalledMemory[]> {
    const limit = options.limit ?? DEFAULT_RECALL_LIMIT;
    const found = (await Promise.all((await this.#stores(options.scope)).map(async (store) => store.search(query, { ...options, limit }, signal)))).flat();
    return found.sort((left, right) => right.score - left.score).slice(0, limit);
  }

  /**
   * Removes the memory with that id from the store of `scope`, or, without one, from whichever
   * store has it; refuses when both do. False when neither has it.
   */
  async remove(id: number, scope?: MemoryScope, signal?: AbortSignal): Promise<boolean> {
    const user = scope === 'project' ? undefined : await this.#userStore('read');
    if (scope === 'user') return user === undefined ? false : user.remove(id, signal);
    const inProject = scope === 'project' || (await this.#project.get(id, signal)) !== undefined;
    const inUser = user !== undefined && (await user.get(id, signal)) !== undefined;
    if (inProject && inUser) throw new MemoryIdError(`both a project and a user memory are #${id}: say which with --scope project or --scope user`);
    if (inUser) return user.remove(id, signal);
    return this.#project.remove(id, signal);
  }

  /** The stores a scope is read from: a `user` list also reads the project's older user memories. */
  async #stores(scope: MemoryScope | undefined): Promise<MemoryStore[]> {
    const user = scope === 'project' ? undefined : await this.#userStore('read');
    return user === undefined ? [this.#project] : [this.#project, user];
  }

  /** The user's store, opened on first use; to `read`, undefined while it does not exist (it is not created to find nothing). */
  async #userStore(use: 'read' | 'write' = 'write'): Promise<MemoryStore | undefined> {
    if (this.#openUser === undefined) return undefined;
    if (this.#user === undefined && use === 'read' && this.#userExists?.() === false) return undefined;
    this.#user ??= this.#openUser();
    return this.#user;
  }
}
