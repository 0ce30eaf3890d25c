import { z } from 'zod';
import { InvalidNodeBoundaryError } from './file-snapshot-errors.js';

const objectId = z.string().regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/);
const gitEntry = z.object({ mode: z.string().regex(/^[0-7]{6}$/), blob: objectId });

/**
 * The state of the workspace when a node (attempt) began, small and serializable: the
 * RunController stores it in the `node/snapshotted` payload, so it survives a crash.
 * - `git`: the tree of the whole working copy (tracked and untracked files, .gitignore honoured);
 * - `watch`: the same, as the run's base tree plus the entries changed since (null: removed),
 *   as a workspace watcher reported them; `session` names the watcher that can continue from it;
 * - `scan`: the hashes of the files the node's write set covered (workspaces without git);
 *   `deferred`: none taken at the begin (`FileSnapshotsOptions.deferScan`): the node's first
 *   command takes them, held by the process that runs the node; with none, its tools' writes are
 *   its whole change. Either way, a node's first command also opens its command window
 *   (`CommandWindows`): the whole workspace scanned, held by the process, so what the node's
 *   commands change outside its write set is seen at its end.
 * `folders`: the folders on the write set's paths that existed, so a restore never removes them.
 */
export type NodeBoundary =
  | { readonly kind: 'git'; readonly tree: string; readonly writes: readonly string[]; readonly folders?: readonly string[] }
  | {
      readonly kind: 'watch';
      readonly session: string;
      readonly base: string;
      readonly overlay: Readonly<Record<string, { readonly mode: string; readonly blob: string } | null>>;
      readonly writes: readonly string[];
      readonly folders?: readonly string[];
    }
  | { readonly kind: 'scan'; readonly writes: readonly string[]; readonly files: Readonly<Record<string, string>>; readonly folders?: readonly string[]; readonly deferred?: true };

export const nodeBoundarySchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('git'), tree: objectId, writes: z.array(z.string()), folders: z.array(z.string()).optional() }),
  z.object({
    kind: z.literal('watch'),
    session: z.string(),
    base: objectId,
    overlay: z.record(z.string(), gitEntry.nullable()),
    writes: z.array(z.string()),
    folders: z.array(z.string()).optional(),
  }),
  z.object({ kind: z.literal('scan'), writes: z.array(z.string()), files: z.record(z.string(), z.string()), folders: z.array(z.string()).optional(), deferred: z.literal(true).optional() }),
]);

/** A boundary read back from the log; throws `InvalidNodeBoundaryError` for anything else. */
export function parseNodeBoundary(value: unknown): NodeBoundary {
  const parsed = nodeBoundarySchema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new InvalidNodeBoundaryError(parsed.error.issues.map((issue) => `${issue.path.join('.') || 'boundary'}: ${issue.message}`).join('; '));
}
