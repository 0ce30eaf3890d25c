import { z } from 'zod';
import { defineEvent } from './define-event.js';
import { MEMORY_KINDS, MEMORY_SCOPES, NODE_WAITS_FOR } from './event-values.js';

const writesExceededV2 = () => z.strictObject({ paths: z.array(z.string()), writes: z.array(z.string()).optional(), enforced: z.boolean().optional() });

/** The events of a plan node: its transitions, the files it changed, the work and memories it reported. */
export const NODE_EVENTS = {
  'node/ready': defineEvent(1, () => z.strictObject({})),
  'node/started': defineEvent(1, () => z.strictObject({ attempt: z.number().int().positive() })),
  'node/succeeded': defineEvent(1, () => z.strictObject({ result: z.string(), filesChanged: z.array(z.string()).optional() })),
  /** v2: `waitsFor`, what the failure waits for outside the run (a human's approval), so no replan tries to work around it. */
  'node/failed': defineEvent(2, () => z.strictObject({ error: z.string(), attempt: z.number().int().positive().optional(), waitsFor: z.enum(NODE_WAITS_FOR).optional() }), {
    1: { payload: () => z.strictObject({ error: z.string(), attempt: z.number().int().positive().optional() }), upgrade: (payload) => payload },
  }),
  'node/skipped': defineEvent(1, () => z.strictObject({ reason: z.string() })),
  'node/cancelled': defineEvent(1, () => z.strictObject({ reason: z.string().optional() })),
  'node/retried': defineEvent(1, () => z.strictObject({ attempt: z.number().int().positive(), delayMs: z.number().nonnegative(), error: z.string() })),
  /** v2: `startsOver`, why the attempt begins afresh where an earlier one had model answers to go on from (its work changed in a new plan version). */
  'node/snapshotted': defineEvent(2, () => z.strictObject({ attempt: z.number().int().positive(), boundary: z.unknown(), startsOver: z.string().optional() }), {
    1: { payload: () => z.strictObject({ attempt: z.number().int().positive(), boundary: z.unknown() }), upgrade: (payload) => payload },
  }),
  /** A node changed files its declared writes do not cover (a command's side effect): recorded, diffed and revertible like the others. */
  /**
   * v2: `writes`, what the node declared, and `enforced`, the plan's `strictWrites` failed the node
   * for it (its change was not merged). v3: `overlapped`, in a workspace without git, the nodes
   * whose commands ran while the node's did: the changes may be theirs.
   */
  'writes/exceeded': defineEvent(3, () => writesExceededV2().extend({ overlapped: z.array(z.string()).optional() }), {
    1: { payload: () => z.strictObject({ paths: z.array(z.string()) }), upgrade: (payload) => payload },
    2: { payload: writesExceededV2, upgrade: (payload) => payload },
  }),
  /** An isolated node's change, merged onto the run branch as `commit` (files the user had edited meanwhile are `keptYours`, not overwritten). */
  'node/merged': defineEvent(1, () => z.strictObject({ commit: z.string(), branch: z.string(), files: z.array(z.string()), keptYours: z.array(z.string()) })),
  /** An isolated node's change could not merge onto the run branch: the files and hunks changed on both sides (the node fails). */
  'node/conflicted': defineEvent(1, () =>
    z.strictObject({
      branch: z.string(),
      files: z.array(z.strictObject({ path: z.string(), hunks: z.array(z.strictObject({ line: z.number().int(), ours: z.string(), theirs: z.string() })) })),
      /** What the run does about it: a replan appends a node that resolves it, or the run pauses for the user. */
      onConflict: z.enum(['replan', 'pause']),
    }),
  ),
  /** An isolated node attempt ended with changes in its workspace that were not merged (it failed, or went beyond strict writes): they are dropped. */
  'workspace/discarded': defineEvent(1, () => z.strictObject({ files: z.array(z.string()), reason: z.enum(['failed', 'overreach']) })),
  'work/reported': defineEvent(1, () => z.strictObject({ title: z.string(), files: z.array(z.string()), reason: z.string() })),
  /** A command's process group started: on resume, one still running from an earlier process is stopped first. */
  'command/started': defineEvent(1, () => z.strictObject({ toolCallId: z.string(), pid: z.number().int().positive(), host: z.string(), startTime: z.string().nullable(), sandboxed: z.boolean() })),
  /**
   * The files a node's commands changed, found after its process was killed mid-command (a react
   * run without git: the scan its first command took, compared with the workspace by a later
   * `diff`, `revert` or `cancel`); recorded as the node's snapshots, so `diff` and `revert` take them.
   */
  'files/recovered': defineEvent(1, () => z.strictObject({ files: z.array(z.string()), reason: z.string() })),
  'file/reverted': defineEvent(1, () => z.strictObject({
    path: z.string(),
    node: z.string().nullable().optional(),
    /** Reverting the whole run, or one node's change. */
    scope: z.enum(['run', 'node']).optional(),
    /** `restored` exactly, `deleted` (the file was created), or `patched` (reversed onto later edits). */
    action: z.enum(['restored', 'deleted', 'patched']).optional(),
    forced: z.boolean().optional(),
  })),
  /**
   * One revert finished (`dagent revert`, or a rerun's revert of a node it runs again): the files it
   * put back (each also a `file/reverted`), those already as before, and those left untouched for a
   * conflict. Not written on a dry run, nor when the run or node had changed no file.
   */
  /** v2: `unrestorable`, the conflicts `--force` cannot put back either (their content before is not held). */
  'revert/finished': defineEvent(
    2,
    () =>
      z.strictObject({
        /** The whole run's changes (`node` null), or one node's (`--node`). */
        scope: z.enum(['run', 'node']),
        node: z.string().nullable(),
        /** The nodes whose changes it undid (those that changed the files it covers). */
        nodes: z.array(z.string()),
        reverted: z.array(z.string()),
        unchanged: z.array(z.string()),
        conflicts: z.array(z.string()),
        unrestorable: z.array(z.string()).optional(),
        forced: z.boolean(),
      }),
    {
      1: {
        payload: () => z.strictObject({ scope: z.enum(['run', 'node']), node: z.string().nullable(), nodes: z.array(z.string()), reverted: z.array(z.string()), unchanged: z.array(z.string()), conflicts: z.array(z.string()), forced: z.boolean() }),
        upgrade: (payload) => payload,
      },
    },
  ),
  /** v2: `origin`, who proposed it (`remember`, or a compaction's key facts with its `compactionId`). */
  'memory/added': defineEvent(
    2,
    () =>
      z.strictObject({
        memoryId: z.number().int(),
        kind: z.enum(MEMORY_KINDS),
        scope: z.enum(MEMORY_SCOPES),
        content: z.string(),
        origin: z.enum(['cli', 'remember', 'compaction']).optional(),
        compactionId: z.string().optional(),
      }),
    { 1: { payload: () => z.strictObject({ memoryId: z.number().int(), kind: z.enum(['preference', 'convention', 'lesson', 'fact']), scope: z.enum(MEMORY_SCOPES), content: z.string() }), upgrade: (payload) => payload } },
  ),
} as const;
