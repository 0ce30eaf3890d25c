import { z } from 'zod';
import { InvalidNodeBoundaryError } from './file-snapshot-errors.js';

/**
 * The state of the workspace when a node (attempt) began, small and serializable: the
 * RunController stores it in the `node/started` payload (as `boundary`), so it survives a crash.
 * - `git`: the tree of the whole working copy (tracked and untracked files, .gitignore honoured);
 * - `scan`: the hashes of the files the node's write set covered (workspaces without git).
 */
export type NodeBoundary =
  | { readonly kind: 'git'; readonly tree: string; readonly writes: readonly string[] }
  | { readonly kind: 'scan'; readonly writes: readonly string[]; readonly files: Readonly<Record<string, string>> };

export const nodeBoundarySchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('git'), tree: z.string().regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/), writes: z.array(z.string()) }),
  z.object({ kind: z.literal('scan'), writes: z.array(z.string()), files: z.record(z.string(), z.string()) }),
]);

/** A boundary read back from the log; throws `InvalidNodeBoundaryError` for anything else. */
export function parseNodeBoundary(value: unknown): NodeBoundary {
  const parsed = nodeBoundarySchema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new InvalidNodeBoundaryError(parsed.error.issues.map((issue) => `${issue.path.join('.') || 'boundary'}: ${issue.message}`).join('; '));
}
