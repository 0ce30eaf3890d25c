import type { WindowSharing } from './file-boundary-changes.js';
import type { WindowScan } from './file-scan-changes.js';

interface Window {
  scan: Promise<WindowScan> | undefined;
  /** Paths another node's tools wrote while the window was open: path to that node. */
  readonly othersWrote: Map<string, string>;
  /** Of those, the content hash each had when its writer ended (it recorded that content). */
  readonly settled: Map<string, string | null>;
  readonly overlapped: Set<string>;
}

/**
 * The command windows of a run's node attempts in a workspace without git: from the node's first
 * command, hook or MCP tool (the whole workspace scanned then, once per attempt) to its end (scanned
 * again), so what its commands changed anywhere is seen. A node that runs none opens no window and
 * reads nothing beyond its write set. Nodes share the workspace: a change to a path another node's
 * tools wrote in the window is that node's; any other change is this node's, and when another
 * node's window overlapped, `sharing` names it so the record says the change may be that node's.
 * Held by the process that runs the nodes: an attempt resumed in another process begins a new
 * window (`FileSnapshots.resumeNode`), so what its commands changed before the stop is not seen.
 */
export class CommandWindows {
  readonly #windows = new Map<string, Window>();
  /** Nodes that began and have not ended. */
  readonly #active = new Set<string>();

  /** A node attempt begins without a window; an earlier attempt's is forgotten. */
  begin(nodeId: string): void {
    this.#windows.set(nodeId, { scan: undefined, othersWrote: new Map(), settled: new Map(), overlapped: new Set() });
    this.#active.add(nodeId);
  }

  /** Opens the node's window with `take` (its scan) unless open already; nothing for a node that did not begin here. */
  openOnce(nodeId: string, take: () => Promise<WindowScan>): Promise<void> {
    const window = this.#windows.get(nodeId);
    if (window === undefined) return Promise.resolve();
    if (window.scan === undefined) {
      for (const [other, open] of this.#windows) {
        if (other === nodeId || open.scan === undefined) continue;
        open.overlapped.add(nodeId);
        window.overlapped.add(other);
      }
      const scan = take();
      window.scan = scan;
      // A failed scan is taken again by the next command; the one that asked sees the error.
      void scan.catch(() => {
        if (window.scan === scan) window.scan = undefined;
      });
    }
    return window.scan.then(() => undefined);
  }

  /** The scan the node's window opened with, if one was taken in this process. */
  held(nodeId: string): Promise<WindowScan> | undefined {
    return this.#windows.get(nodeId)?.scan;
  }

  /** A node's tool is about to write `path`: noted in every other open window. */
  wrote(nodeId: string, path: string): void {
    for (const [other, window] of this.#windows) {
      if (other !== nodeId && window.scan !== undefined) window.othersWrote.set(path, nodeId);
    }
  }

  /**
   * The node ends: its window is closed, and what its tools wrote into other open windows is noted
   * with the content it recorded (`hashOf`). Returns how the window was shared, if it was open.
   */
  async close(nodeId: string, hashOf: (path: string) => Promise<string | null>): Promise<WindowSharing | undefined> {
    const window = this.#windows.get(nodeId);
    this.#windows.delete(nodeId);
    this.#active.delete(nodeId);
    for (const open of this.#windows.values()) {
      for (const [path, writer] of open.othersWrote) if (writer === nodeId && !open.settled.has(path)) open.settled.set(path, await hashOf(path));
    }
    if (window?.scan === undefined) return undefined;
    const othersWrote = new Set<string>();
    for (const [path, writer] of window.othersWrote) {
      // A writer still running records the path at its end; one that ended recorded it as it was then.
      if (this.#active.has(writer) || (window.settled.has(path) && window.settled.get(path) === (await hashOf(path)))) othersWrote.add(path);
    }
    return { othersWrote, overlapped: [...window.overlapped].sort() };
  }
}
