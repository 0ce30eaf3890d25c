import { DagentError } from '../engine/index.js';
import { resolveInsideWorkspace, type ResolveTaskPath } from './task-references-path.js';

/** A task with the files it names, checked: paths for the planner to read with its tools. */
export interface TaskReferences {
  /** The task as written, with `\@` unescaped to `@`. The files' content is never inlined. */
  readonly task: string;
  /** Workspace-relative, `/`-separated, in order of first mention, without duplicates. */
  readonly paths: readonly string[];
}

/** One `@path` as written in a task. */
export interface TaskReference {
  /** The text as written, `@` and quotes included: `@"docs/read me.md"`. */
  readonly raw: string;
  readonly path: string;
  /** Offset of the `@` in the task. */
  readonly index: number;
}

export interface ExtractTaskReferencesOptions {
  /** How a path is checked against the workspace; default `resolveInsideWorkspace`. */
  readonly resolvePath?: ResolveTaskPath;
}

/** A task named a file that cannot be read; thrown before any model call. */
export class TaskReferenceError extends DagentError {
  constructor(
    readonly reference: string,
    readonly workspace: string,
    message: string,
  ) {
    super(message);
  }
}

export class UnknownTaskPathError extends TaskReferenceError {
  constructor(reference: string, workspace: string) {
    super(reference, workspace, `${reference}: no such file or folder in ${workspace}; give the path from the workspace root, or write \\@ for a literal @`);
  }
}

export class TaskPathOutsideWorkspaceError extends TaskReferenceError {
  constructor(
    reference: string,
    workspace: string,
    readonly escape: 'parent' | 'absolute' | 'symlink',
  ) {
    const how = escape === 'symlink' ? ' through a symbolic link' : '';
    super(reference, workspace, `${reference} leads outside the workspace${how}; only files inside ${workspace} can be referenced`);
  }
}

/**
 * `@` starts a reference at the start of the task or after whitespace or an opening bracket or
 * quote — so `a@b.com` is an e-mail address, not a reference, and `\@` is a literal `@`.
 * The path is `"quoted"` (spaces allowed) or runs to the next space, bracket or quote; trailing
 * sentence punctuation is not part of it.
 */
const REFERENCE = /(?<=^|[\s([{<'"`])@(?:"([^"\n]+)"|([^\s"'`()[\]{}<>,;]+))/g;
const TRAILING_PUNCTUATION = /[.,:;!?]+$/;

/** The `@path` references of a task, as written, without touching the disk. */
export function parseTaskReferences(task: string): TaskReference[] {
  const references: TaskReference[] = [];
  for (const match of task.matchAll(REFERENCE)) {
    const quoted = match[1];
    const path = quoted ?? (match[2] ?? '').replace(TRAILING_PUNCTUATION, '');
    if (path.trim() === '') continue;
    references.push({ raw: quoted === undefined ? `@${path}` : `@"${quoted}"`, path, index: match.index });
  }
  return references;
}

/**
 * Finds the files a task names (`@src/a.ts`, `@"docs/read me.md"`) and checks each inside the
 * workspace: it must exist (file or folder) and must not lead out of it by `..`, an absolute
 * path or a symbolic link. Throws `UnknownTaskPathError` or `TaskPathOutsideWorkspaceError`
 * naming the first bad reference.
 */
export async function extractTaskReferences(task: string, workspace: string, options: ExtractTaskReferencesOptions = {}): Promise<TaskReferences> {
  const resolvePath = options.resolvePath ?? resolveInsideWorkspace;
  const paths: string[] = [];
  for (const reference of parseTaskReferences(task)) {
    const check = await resolvePath(workspace, reference.path);
    if (check.status === 'outside') throw new TaskPathOutsideWorkspaceError(reference.raw, workspace, check.escape);
    if (!check.exists) throw new UnknownTaskPathError(reference.raw, workspace);
    if (!paths.includes(check.path)) paths.push(check.path);
  }
  return { task: task.replace(/\\@/g, '@'), paths };
}
