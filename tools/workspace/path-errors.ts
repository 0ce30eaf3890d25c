import { ToolError } from '../tool-errors/index.js';

/** A path a tool may not use. Every subclass names the path as it was given. */
export class WorkspacePathError extends ToolError {
  constructor(readonly path: string, message: string) {
    super(message, { outcome: 'refused' });
  }
}

/** The path, after `..`, absolute forms and symlinks are resolved, is not inside the workspace. */
export class PathOutsideWorkspaceError extends WorkspacePathError {
  constructor(path: string, readonly workspace: string, readonly viaSymlink = false) {
    super(
      path,
      viaSymlink
        ? `path "${path}" leads outside the workspace through a symbolic link; tools only reach files inside ${workspace}`
        : `path "${path}" is outside the workspace ${workspace}; use a path relative to the workspace root`,
    );
  }
}

/** A write into `.git/` or `.dagent/`: they belong to git and to dagent, never to a tool. */
export class ProtectedPathError extends WorkspacePathError {
  constructor(path: string, readonly protectedName: string) {
    super(
      path,
      protectedName === '.git'
        ? `path "${path}" is inside .git/, which tools never write; use git commands through run_command to change the repository`
        : `path "${path}" is inside ${protectedName}/, which holds dagent's own state and is never written by tools`,
    );
  }
}

/** A path that is malformed on its own: NUL bytes, over-long names, the workspace root as a file. */
export class InvalidPathError extends WorkspacePathError {
  constructor(path: string, readonly problem: string) {
    super(path, `path "${printable(path)}" ${problem}`);
  }
}

/** Following the path's symbolic links never ends (or takes more hops than any real layout needs). */
export class SymlinkLoopError extends WorkspacePathError {
  constructor(path: string) {
    super(path, `path "${path}" goes through a symbolic link loop`);
  }
}

const MAX_PRINTED_PATH_CHARS = 200;

/** NUL and other control characters made visible, long paths shortened, so the message stays one readable line. */
function printable(path: string): string {
  const visible = path.replace(/[\u0000-\u001f]/g, (char) => `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`);
  return visible.length > MAX_PRINTED_PATH_CHARS ? `${visible.slice(0, MAX_PRINTED_PATH_CHARS)}…` : visible;
}
