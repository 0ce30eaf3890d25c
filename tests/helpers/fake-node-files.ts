import type { WriteScope } from '../../engine/index.js';
import type { NodeFiles } from '../../engine/run/orchestration/node-files.js';

/** A recording in-memory NodeFiles: every begin, end and restore is kept in `calls`. */
export class FakeNodeFiles implements NodeFiles {
  readonly calls: string[] = [];
  /** Files each node changed; a node not listed changed the first file of its writes (as an edit would), if it has any. */
  changed = new Map<string, string[]>();

  writeScopeFor(nodeId: string, writes: readonly string[]): WriteScope {
    return {
      check: (path) => (writes.includes(path) ? undefined : `"${path}" is outside this node's write set (${writes.join(', ')}). call report_missing_work`),
      beforeWrite: async (path) => void this.calls.push(`snapshot ${nodeId} ${path}`),
    };
  }

  async beginNode(nodeId: string): Promise<unknown> {
    this.calls.push(`begin ${nodeId}`);
    return { node: nodeId };
  }

  async endNode(nodeId: string, writes: readonly string[] = []): Promise<{ filesChanged: readonly string[] }> {
    this.calls.push(`end ${nodeId}`);
    return { filesChanged: this.changed.get(nodeId) ?? writes.slice(0, 1) };
  }

  async restoreNode(nodeId: string): Promise<readonly string[]> {
    this.calls.push(`restore ${nodeId}`);
    return [];
  }
}
