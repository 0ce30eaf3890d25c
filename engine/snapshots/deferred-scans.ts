import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import type { ScanHashes } from './file-scan-changes.js';
import { deleteNodeScan, saveNodeScan } from './node-scan-rows.js';

/** Where a deferred scan is kept beyond the process: the run's `node_scans` rows. */
export interface DeferredScanStore {
  readonly db: Kysely<Database>;
  readonly runId: string;
  readonly now: () => Date;
}

/**
 * The boundaries a run's nodes take at their first command instead of their begin
 * (`FileSnapshotsOptions.deferScan`): one scan per node attempt, taken once however many
 * commands, hooks or MCP tools follow. Each scan is stored (`node_scans`) before the command that
 * asked for it runs, and forgotten once the node's end is recorded: a process killed mid-command
 * leaves it, for `recoverCrashedScans` to find what that command changed.
 */
export class DeferredScans {
  readonly #taken = new Map<string, Promise<ScanHashes> | undefined>();
  readonly #store: DeferredScanStore;

  constructor(store: DeferredScanStore) {
    this.#store = store;
  }

  /** A node attempt begins without a scan; an earlier attempt's is forgotten. */
  begin(nodeId: string): void {
    this.#taken.set(nodeId, undefined);
  }

  /** Takes the node's scan of `writes` with `take` unless it was taken already; nothing for a node that did not begin deferred. */
  takeOnce(nodeId: string, writes: readonly string[], take: () => Promise<ScanHashes>): Promise<void> {
    if (!this.#taken.has(nodeId)) return Promise.resolve();
    let taken = this.#taken.get(nodeId);
    if (taken === undefined) {
      taken = this.#keep(nodeId, writes, take);
      this.#taken.set(nodeId, taken);
      // A failed scan is taken again by the next command; the one that asked sees the error.
      void taken.catch(() => this.#taken.set(nodeId, undefined));
    }
    return taken.then(() => undefined);
  }

  /** The hashes the node's first command took, if one ran in this process. */
  held(nodeId: string): Promise<ScanHashes> | undefined {
    return this.#taken.get(nodeId);
  }

  /** The node's end is recorded: its stored scan is no longer needed. Reads nothing for a node whose attempt took none. */
  async ended(nodeId: string): Promise<void> {
    if (this.#taken.get(nodeId) === undefined) return;
    await deleteNodeScan(this.#store.db, this.#store.runId, nodeId);
  }

  async #keep(nodeId: string, writes: readonly string[], take: () => Promise<ScanHashes>): Promise<ScanHashes> {
    const files = await take();
    await saveNodeScan(this.#store.db, this.#store.runId, { nodeId, writes, files }, this.#store.now().toISOString());
    return files;
  }
}
