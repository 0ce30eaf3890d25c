import { existsSync, lstatSync, readdirSync, rmdirSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';

/** Folders inside the workspace no command may create or change: the repository and dagent's own state. */
export const PROTECTED_IN_WORKSPACE = ['.git', '.dagent'] as const;

export interface WorkspaceProtection {
  /** Existing paths mounted read-only. */
  readonly readOnly: string[];
  /** Absent paths where an empty read-only folder stands while a command runs. */
  readonly placeholders: string[];
}

/**
 * What to protect in `workspace`: `.git` and `.dagent` (read-only where they exist, a placeholder
 * where they do not, so `git init` or a planted `.git` file fails), and `ownPaths` (dagent's install
 * and code cache) when they lie strictly inside the workspace and exist. A workspace that is
 * dagent's own clone cannot be read-only as a whole: there the code cache's check protects the cache.
 */
export function workspaceProtection(workspace: string, ownPaths: readonly (string | undefined)[]): WorkspaceProtection {
  const readOnly: string[] = [];
  const placeholders: string[] = [];
  for (const name of PROTECTED_IN_WORKSPACE) {
    const path = join(workspace, name);
    const kind = kindOf(path);
    if (kind === 'folder' || kind === 'file') readOnly.push(path);
    else if (kind === 'absent') placeholders.push(path);
  }
  for (const path of ownPaths) {
    if (path === undefined || !isStrictlyInside(workspace, path) || readOnly.includes(path)) continue;
    const kind = kindOf(path);
    if (kind === 'folder' || kind === 'file') readOnly.push(path);
  }
  return { readOnly, placeholders };
}

function kindOf(path: string): 'folder' | 'file' | 'other' | 'absent' {
  try {
    const stat = lstatSync(path);
    return stat.isDirectory() ? 'folder' : stat.isFile() ? 'file' : 'other';
  } catch {
    return 'absent';
  }
}

function isStrictlyInside(folder: string, path: string): boolean {
  const rel = relative(folder, resolve(path));
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

/**
 * bubblewrap makes the mount point of a placeholder, an empty folder, in the workspace itself. Each
 * is removed (if still empty) when the last command of this process that had it mounted ends: never
 * while another command still relies on it.
 */
const placeholderUsers = new Map<string, number>();

export function holdPlaceholders(paths: readonly string[]): () => void {
  for (const path of paths) placeholderUsers.set(path, (placeholderUsers.get(path) ?? 0) + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    for (const path of paths) {
      const users = (placeholderUsers.get(path) ?? 1) - 1;
      if (users > 0) {
        placeholderUsers.set(path, users);
        continue;
      }
      placeholderUsers.delete(path);
      try {
        if (existsSync(path) && lstatSync(path).isDirectory()) rmdirSync(path);
      } catch {
        // not empty (made by someone else meanwhile) or gone: left as it is
      }
    }
  };
}

/** Every home folder on the machine (`/root`, each folder under `/home`) besides the ones given: credentials are hidden in all of them. */
export function allHomes(given: readonly string[]): string[] {
  const homes = new Set(given);
  homes.add('/root');
  try {
    for (const entry of readdirSync('/home', { withFileTypes: true })) if (entry.isDirectory()) homes.add(join('/home', entry.name));
  } catch {
    // no /home
  }
  return [...homes];
}
