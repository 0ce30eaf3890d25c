/** What `WorktreesAhead` asks of the run's workspaces. */
export interface WorktreeMaker {
  /** A new worktree checked out at `commit`: its folder. */
  fresh(commit: string): Promise<string>;
  /** A worktree no node used, showing `shows`, brought to `commit` (one checkout at most): its folder; undefined (and deleted) when it could not be. */
  bring(path: string, shows: string, commit: string): Promise<string | undefined>;
}

export interface MakeAhead {
  /** How many worktrees the stage needs besides those the run has otherwise (its views and spares): those made ahead count. */
  readonly wanted: number;
  /** What the first one waits for before it begins (the views the first readers wait for are made first). */
  readonly after: Promise<unknown>;
  /** The commit each is made at (the run branch's tip as it is then). */
  readonly commitOf: () => Promise<string>;
  /** Whether to make no more (a node had to make its own: the stage is here, more would only queue before it). */
  readonly enough: () => boolean;
}

interface Made {
  readonly path: string;
  readonly commit: string;
}

/** The worktree being made, and whether a node took it before it was done. */
interface Coming {
  readonly made: Promise<Made>;
  taken: boolean;
}

/**
 * Worktrees made ahead, one after another while the first nodes go on: a stage of edits takes them
 * ready instead of waiting in turn for `git worktree add` (serialised). A node that finds none ready
 * takes the one being made, if no other node has (`takeComing`), rather than make its own beside it:
 * two checkouts of the whole repository at once share the disk and the two cores, and a run whose
 * first node was an edit made two for that one node.
 */
export class WorktreesAhead {
  readonly #maker: WorktreeMaker;
  /** Made and not taken, with the commit each shows. */
  readonly #ready = new Map<string, string>();
  #coming: Coming | undefined;
  #making: Promise<void> | undefined;
  #stopped = false;

  constructor(maker: WorktreeMaker) {
    this.#maker = maker;
  }

  /** Begins making worktrees ahead (one making at a time; the first is under way when this returns). Best effort: resolves when done. */
  make({ wanted, after, commitOf, enough }: MakeAhead): Promise<void> {
    const toMake = wanted - this.#ready.size;
    if (toMake <= 0 || this.#making !== undefined || this.#stopped) return this.#making ?? Promise.resolve();
    const makeOne = async (): Promise<Made> => {
      await after;
      const commit = await commitOf();
      return { path: await this.#maker.fresh(commit), commit };
    };
    return (this.#making = (async () => {
      for (let made = 0; made < toMake && !this.#stopped && !enough(); made += 1) {
        const coming: Coming = { made: makeOne(), taken: false };
        coming.made.catch(() => undefined); // a node that took it handles its failure; else the making ends below
        this.#coming = coming;
        try {
          const { path, commit } = await coming.made;
          if (!coming.taken) this.#ready.set(path, commit);
        } finally {
          this.#coming = undefined;
        }
      }
    })().catch(() => undefined));
  }

  /** A worktree made ahead, brought to `commit` (one checkout at most); undefined when none is ready. */
  async takeReady(commit: string): Promise<string | undefined> {
    for (const [path, shows] of this.#ready) {
      this.#ready.delete(path);
      const brought = await this.#maker.bring(path, shows, commit);
      if (brought !== undefined) return brought;
    }
    return undefined;
  }

  /** The worktree being made, once it is, brought to `commit`; undefined when none is being made, another node took it, or it failed. */
  async takeComing(commit: string): Promise<string | undefined> {
    const coming = this.#coming;
    if (coming === undefined || coming.taken) return undefined;
    coming.taken = true;
    const made = await coming.made.catch(() => undefined);
    return made === undefined ? undefined : this.#maker.bring(made.path, made.commit, commit);
  }

  /** Makes no more; resolves once the one being made is done. Those made and not taken are the caller's to remove. */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#making;
    this.#ready.clear();
  }
}
