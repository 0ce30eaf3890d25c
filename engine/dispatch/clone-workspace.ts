import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { WriteScope } from '../agent/tool-runtime.js';
import { DagentError } from '../errors.js';
import type { NodeFiles } from '../run/orchestration/node-files.js';
import type { EventLog } from '../session/event-log.js';
import type { SessionEvent } from '../session/event-types.js';
import { controlledGitEnvironment, createWriteSet, writeSetRefusal } from '../snapshots/index.js';
import { NODE_OUTCOME_EVENT_TYPES } from './pending-results.js';

const run = promisify(execFile);
const MAX_PATCH_BYTES = 256 * 1024 * 1024;

/** Git in a folder, in the controlled environment (no hooks, filters or user config), with an identity of its own (commits are never made, but some commands ask). */
export async function git(cwd: string, args: readonly string[], input?: string): Promise<string> {
  const env = controlledGitEnvironment({ cwd, config: [['user.name', 'dagent'], ['user.email', 'dagent@localhost']] });
  const child = run('git', args, { cwd, env, maxBuffer: MAX_PATCH_BYTES, encoding: 'utf8' });
  if (input !== undefined) child.child.stdin?.end(input);
  const { stdout } = await child;
  return stdout;
}

/** Applies a node's patch (`git diff --binary`) to a folder, or takes it out (`reverse`); an empty patch changes nothing. */
export async function applyNodePatch(cwd: string, patch: string, options: { readonly reverse?: boolean } = {}): Promise<void> {
  if (patch.trim() === '') return;
  await git(cwd, ['apply', ...(options.reverse === true ? ['--reverse'] : []), '--binary', '--whitespace=nowarn', '-'], patch);
}

/** The files a clone-mode scheduler records a node's change with (`FileSnapshots`, or any `NodeFiles`). */
export interface PatchedNodeFiles {
  beginNode(nodeId: string, writes: readonly string[]): Promise<unknown>;
  endNode(nodeId: string, writes: readonly string[], boundary: unknown, options?: { readonly otherWrites?: readonly string[] }): Promise<unknown>;
  restoreNode(nodeId: string, boundary?: unknown): Promise<unknown>;
}

/** A worker's succeeded attempt of a node, as the scheduler applies it. */
export interface NodePatch {
  readonly nodeId: string;
  readonly attempt: number;
  readonly token: number;
  readonly writes: readonly string[];
  readonly otherWrites: readonly string[];
  readonly patch: string;
}

/** How a patch is put into (or, `reverse`, taken out of) a folder: `applyNodePatch`. */
export type PatchApplier = (cwd: string, patch: string, options?: { readonly reverse?: boolean }) => Promise<void>;

/** What settles an apply the scheduler began (`patch/started`): the node's outcome, or a reset. */
const APPLY_SETTLED_TYPES = [...NODE_OUTCOME_EVENT_TYPES, 'node/reset'] as const;

/**
 * Clone mode, in the scheduler: a worker's succeeded node comes home. Its patch is applied to the
 * user's workspace between a boundary and the node's end, so its change is recorded as in shared
 * mode (`diff`, `revert`). The boundary goes in the log first (`patch/started`): a scheduler
 * stopped anywhere before the node's outcome was recorded — inside `git apply`, which removes a
 * file before it writes its new content, or after it — left the node's files in a state no patch
 * applies to, or an attempt's change a later attempt's patch would be added to. The scheduler
 * that applies the node's patch next puts those files back to that boundary first. A patch that
 * does not apply but applies in reverse (left by a scheduler that recorded no boundary) is taken
 * out and applied again from a fresh boundary. A patch that applies neither way (the workspace
 * was changed under the run) fails with git's reason; a change whose end cannot be recorded is
 * taken out again, so the node's next attempt finds the files as the node did.
 */
export async function applyPatchOfNode(files: PatchedNodeFiles, log: EventLog, workspace: string, change: NodePatch, apply: PatchApplier = applyNodePatch): Promise<void> {
  const { nodeId, writes, patch } = change;
  const cutShort = await unfinishedApply(log, nodeId);
  if (cutShort !== undefined) await files.restoreNode(nodeId, cutShort);
  let boundary = await beginApply(files, log, change);
  try {
    await apply(workspace, patch);
  } catch (error) {
    const takenOut = await apply(workspace, patch, { reverse: true }).then(
      () => true,
      () => false,
    );
    if (!takenOut) throw new DagentError(`the patch of ${nodeId} does not apply to the workspace ${workspace}: ${gitReason(error)}`, { cause: error });
    boundary = await beginApply(files, log, change);
    await apply(workspace, patch);
  }
  try {
    await files.endNode(nodeId, writes, boundary, { otherWrites: change.otherWrites });
  } catch (error) {
    await files.restoreNode(nodeId, boundary).catch(() => undefined);
    throw error;
  }
}

/** The boundary before the patch, recorded before it is applied. */
async function beginApply(files: PatchedNodeFiles, log: EventLog, change: NodePatch): Promise<unknown> {
  const boundary = await files.beginNode(change.nodeId, change.writes);
  await log.append({ type: 'patch/started', nodeId: change.nodeId, payload: { attempt: change.attempt, token: change.token, boundary } });
  return boundary;
}

/** The boundary of the node's last apply that no outcome of the node followed (its scheduler stopped during it), or undefined. */
async function unfinishedApply(log: EventLog, nodeId: string): Promise<unknown> {
  const last = (await log.read({ nodeId, types: ['patch/started', ...APPLY_SETTLED_TYPES] })).at(-1);
  return last?.type === 'patch/started' ? (last as SessionEvent<'patch/started'>).payload.boundary : undefined;
}

/** What git said, without the command line Node puts first. */
function gitReason(error: unknown): string {
  const stderr = (error as { stderr?: unknown }).stderr;
  const said = typeof stderr === 'string' ? stderr.trim().split('\n').filter((line) => line !== '') : [];
  return said.length > 0 ? said.slice(0, 2).join('; ') : (error as Error).message.split('\n')[0]!;
}

/**
 * Clone mode: a worker's own clone of the repository. Before a node runs it is put at the run's
 * base commit plus the patches of the nodes the node depends on, in the order they succeeded;
 * after, the node's own change is the difference from there, as a binary-safe patch for the log.
 * Files ignored by git (installed dependencies, build output) are left in place.
 */
export class CloneWorkspace {
  readonly #dir: string;
  readonly #baseCommit: string;
  #startTree: string | undefined;

  constructor(dir: string, baseCommit: string) {
    this.#dir = dir;
    this.#baseCommit = baseCommit;
  }

  /** Checks the clone has the base commit (fetching from its `origin` when it has not). */
  async open(): Promise<this> {
    const has = async (): Promise<boolean> =>
      git(this.#dir, ['cat-file', '-e', `${this.#baseCommit}^{commit}`]).then(
        () => true,
        () => false,
      );
    if (!(await has())) await git(this.#dir, ['fetch', '-q', 'origin']).catch(() => undefined);
    if (!(await has())) throw new DagentError(`${this.#dir} is not a clone with the run's base commit ${this.#baseCommit.slice(0, 12)}: clone the repository there (git clone), or fetch it`);
    return this;
  }

  async prepare(dependencies: readonly { readonly nodeId: string; readonly patch: string }[]): Promise<void> {
    await git(this.#dir, ['reset', '-q', '--hard', this.#baseCommit]);
    await git(this.#dir, ['clean', '-fdq']);
    // One `git apply` for them all (git applies consecutive patches of a file in order); when that
    // fails, nothing was applied, and one at a time finds the patch that does not apply.
    const together = dependencies.map((dependency) => dependency.patch).filter((patch) => patch.trim() !== '');
    const applied = await applyNodePatch(this.#dir, together.join('')).then(
      () => true,
      () => false,
    );
    if (!applied) {
      for (const dependency of dependencies) {
        try {
          await applyNodePatch(this.#dir, dependency.patch);
        } catch (error) {
          throw new DagentError(`the patch of ${dependency.nodeId} does not apply in the clone ${this.#dir}: ${gitReason(error)}`, { cause: error });
        }
      }
    }
    this.#startTree = await this.#stageAll();
  }

  async patch(): Promise<string> {
    await this.#stageAll();
    return git(this.#dir, ['diff', '--cached', '--binary', '--no-color', '--no-ext-diff', '--no-textconv', this.#start()]);
  }

  /** The clone's files for the node runner: the write set is checked, nothing is snapshotted (the patch is the record). */
  get files(): NodeFiles {
    return {
      writeScopeFor: (_nodeId, writes): WriteScope => {
        const writeSet = createWriteSet(writes);
        return { check: (path) => writeSetRefusal(path, writeSet), beforeWrite: async () => undefined };
      },
      beginNode: async () => this.#start(),
      endNode: async () => {
        await this.#stageAll();
        const names = await git(this.#dir, ['diff', '--cached', '--name-only', '--no-renames', '-z', this.#start()]);
        return { filesChanged: names.split('\0').filter((name) => name !== '') };
      },
      restoreNode: async () => [],
      // A step's checkpoint is the node's change so far as a patch, kept in the log: a worker that
      // takes the node over puts its own clone there (prepared, then the patch applied).
      checkpointNode: async () => ({ patch: await this.patch() }),
      // `as-left` goes on from the checkpoint the stopped attempt's step took after the run's stop (its files as left).
      resumeNode: async (_nodeId, _writes, _boundary, target) => {
        if (target.kind === 'as-left' && target.checkpoint === undefined) throw new Error('a clone cannot go on from files another worker left');
        const patch = target.kind === 'start' ? undefined : (target.checkpoint as { readonly patch?: unknown }).patch;
        if (typeof patch !== 'string' || patch.trim() === '') return { restored: [], unrestorable: [] };
        await applyNodePatch(this.#dir, patch);
        await this.#stageAll();
        const names = await git(this.#dir, ['diff', '--cached', '--name-only', '--no-renames', '-z', this.#start()]);
        return { restored: names.split('\0').filter((name) => name !== ''), unrestorable: [] };
      },
    };
  }

  #start(): string {
    if (this.#startTree === undefined) throw new Error('CloneWorkspace.prepare() must run before the node');
    return this.#startTree;
  }

  async #stageAll(): Promise<string> {
    await git(this.#dir, ['add', '-A']);
    return (await git(this.#dir, ['write-tree'])).trim();
  }
}
