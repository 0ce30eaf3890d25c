import { randomBytes } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { realpath, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { InvalidPathError, PathOutsideWorkspaceError, ProtectedPathError } from './path-errors.js';
import { protectedNameInPath } from './protected-paths.js';
import { resolveRealPath } from './resolve-real-path.js';
import { ToolError, errorCode } from '../tool-errors/index.js';

/** Longer paths are refused before they reach the file system (Linux's PATH_MAX). */
export const MAX_PATH_CHARS = 4096;
/** Longer file names are refused (NAME_MAX on every common file system). */
export const MAX_PATH_COMPONENT_BYTES = 255;
/** Contents up to this length are written with one synchronous call; a longer one asynchronously, so the event loop never waits on a long write. */
const SYNC_WRITE_MAX_BYTES = 256 * 1024;

export type PathPurpose = 'read' | 'write';

/** A path the guard accepted. */
export interface WorkspacePath {
  /** The path as the caller gave it. */
  readonly input: string;
  /** Where it really is, symbolic links resolved: what file operations use. */
  readonly absolute: string;
  /** `absolute` relative to the workspace root, with `/` separators; `.` for the root itself. */
  readonly relative: string;
}

/**
 * The only way a tool turns a path (from the model or the user, both untrusted) into a file
 * location. Paths resolve against the workspace root; the real location (every symbolic link
 * followed, for missing paths too) must lie inside the real root, compared by path components;
 * `..` escapes, absolute paths elsewhere, links leading out, link loops, NUL bytes and over-long
 * names are refused; `.git/` and `.dagent/` are never writable. Writes replace files atomically.
 */
export class WorkspaceGuard {
  /** The root as configured (absolute). */
  readonly root: string;
  /** The root with its own symbolic links resolved. */
  readonly realRoot: string;

  private constructor(root: string, realRoot: string) {
    this.root = root;
    this.realRoot = realRoot;
  }

  /** Opens a guard over an existing directory. */
  static async open(workspace: string): Promise<WorkspaceGuard> {
    const root = resolve(workspace);
    let realRoot: string;
    try {
      realRoot = await realpath(root);
      if (!(await stat(realRoot)).isDirectory()) throw new ToolError(`the workspace ${root} is not a directory`, { fatal: true });
    } catch (error) {
      if (error instanceof ToolError) throw error;
      throw new ToolError(`the workspace ${root} cannot be opened (${errorCode(error) ?? String(error)})`, { fatal: true, cause: error });
    }
    return new WorkspaceGuard(root, realRoot);
  }

  /** Resolves `input` for reading or writing, or throws a `WorkspacePathError` naming it. */
  async resolve(input: string, purpose: PathPurpose = 'read'): Promise<WorkspacePath> {
    const lexicalRelative = this.#lexicalRelative(input);
    const real = await resolveRealPath(this.realRoot, lexicalRelative, input);
    if (!isInside(this.realRoot, real)) throw new PathOutsideWorkspaceError(input, this.root, true);
    const realRelative = relative(this.realRoot, real);
    if (purpose === 'write') {
      if (realRelative === '') throw new InvalidPathError(input, 'is the workspace root itself, not a file');
      const protectedName = protectedNameInPath([...splitPath(lexicalRelative), ...splitPath(realRelative)]);
      if (protectedName !== undefined) throw new ProtectedPathError(input, protectedName);
    }
    return { input, absolute: real, relative: toDisplay(realRelative) };
  }

  /** A workspace-relative display form of an absolute path (outside ones stay absolute). */
  display(absolute: string): string {
    for (const root of [this.realRoot, this.root]) if (isInside(root, absolute)) return toDisplay(relative(root, absolute));
    return absolute;
  }

  /**
   * Writes `content` to an accepted path: parent folders are created, the bytes go to a temporary
   * file in the same folder, then a rename replaces the target, so readers never see half a file.
   * An existing file keeps its permission bits. Returns whether the file was created.
   */
  async writeFile(target: WorkspacePath, content: string | Uint8Array): Promise<{ created: boolean }> {
    const directory = dirname(target.absolute);
    // Folders, links and renames with synchronous calls (microseconds each, where a trip through
    // libuv's thread pool costs 0.2–0.8 ms on a busy machine); the bytes too, up to SYNC_WRITE_MAX_BYTES.
    mkdirSync(directory, { recursive: true });
    // The folder chain may have been swapped for a link since `resolve`; check where it landed.
    const realDirectory = realpathSync(directory);
    if (!isInside(this.realRoot, realDirectory)) throw new PathOutsideWorkspaceError(target.input, this.root, true);
    const finalPath = join(realDirectory, basename(target.absolute));
    let mode: number | undefined;
    try {
      const existing = lstatSync(finalPath);
      if (existing.isDirectory()) throw new ToolError(`${target.relative} is a directory, not a file`);
      if (existing.isSymbolicLink()) throw new PathOutsideWorkspaceError(target.input, this.root, true);
      mode = existing.mode & 0o7777;
    } catch (error) {
      if (errorCode(error) !== 'ENOENT') throw error;
    }
    const temporary = join(realDirectory, `.${basename(finalPath)}.${randomBytes(6).toString('hex')}.dagent-tmp`);
    try {
      const options = { flag: 'wx', mode: mode ?? 0o666 } as const;
      if (content.length <= SYNC_WRITE_MAX_BYTES) writeFileSync(temporary, content, options);
      else await writeFile(temporary, content, options);
      if (mode !== undefined) chmodSync(temporary, mode);
      renameSync(temporary, finalPath);
    } catch (error) {
      rmSync(temporary, { force: true });
      throw error;
    }
    return { created: mode === undefined };
  }

  /** Checks the text of a path and returns it relative to the root, lexically normalised. */
  #lexicalRelative(input: string): string {
    if (typeof input !== 'string') throw new InvalidPathError(String(input), 'is not a string');
    if (input.includes('\0')) throw new InvalidPathError(input, 'contains a NUL byte');
    if (input.length > MAX_PATH_CHARS) throw new InvalidPathError(input, `is longer than ${MAX_PATH_CHARS} characters`);
    if (input === '~' || input.startsWith('~/')) {
      throw new InvalidPathError(input, 'starts with ~, which is not expanded: paths are relative to the workspace root');
    }
    const absolute = resolve(this.root, input === '' ? '.' : input);
    const base = isInside(this.root, absolute) ? this.root : isInside(this.realRoot, absolute) ? this.realRoot : undefined;
    if (base === undefined) throw new PathOutsideWorkspaceError(input, this.root);
    const lexical = relative(base, absolute);
    for (const component of splitPath(lexical)) {
      if (Buffer.byteLength(component) > MAX_PATH_COMPONENT_BYTES) {
        throw new InvalidPathError(input, `has a name longer than ${MAX_PATH_COMPONENT_BYTES} bytes`);
      }
    }
    return lexical;
  }
}

/** True when `path` is `root` or below it, compared by components (never by string prefix). */
export function isInside(root: string, path: string): boolean {
  const between = relative(root, path);
  if (between === '') return true;
  if (isAbsolute(between)) return false;
  return splitPath(between)[0] !== '..';
}

function splitPath(path: string): string[] {
  return path.split(sep).filter((component) => component !== '');
}

function toDisplay(relativePath: string): string {
  return relativePath === '' ? '.' : relativePath.split(sep).join('/');
}
