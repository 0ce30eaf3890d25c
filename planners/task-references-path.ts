import { lstat, readlink, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/** Where a path from a task leads, seen from the workspace. */
export type WorkspacePathCheck =
  | {
      readonly status: 'inside';
      /** Workspace-relative, `/`-separated; `.` for the root itself. */
      readonly path: string;
      readonly exists: boolean;
    }
  | { readonly status: 'outside'; readonly escape: 'parent' | 'absolute' | 'symlink' };

/** Resolves an untrusted path inside a workspace; a guard from tools/ can be adapted to this. */
export type ResolveTaskPath = (workspace: string, path: string) => Promise<WorkspacePathCheck>;

/**
 * The default `ResolveTaskPath`: resolves by path components (`..` may not climb above the root),
 * then follows each existing component on disk, so a symbolic link anywhere along the way that
 * leads out of the workspace (or dangles out of it) is refused. Absolute paths are allowed only
 * inside the workspace. Backslashes count as separators.
 */
export async function resolveInsideWorkspace(workspace: string, path: string): Promise<WorkspacePathCheck> {
  const given = resolve(workspace);
  const root = await realpath(given);
  const unified = path.replace(/\\/g, '/');
  let relativePath = unified;
  if (isAbsolute(unified)) {
    const inside = [given, root].map((base) => relative(base, unified)).find((candidate) => !escapes(candidate));
    if (inside === undefined) return { status: 'outside', escape: 'absolute' };
    relativePath = inside.split(sep).join('/');
  }

  const components: string[] = [];
  for (const component of relativePath.split('/')) {
    if (component === '' || component === '.') continue;
    if (component !== '..') components.push(component);
    else if (components.pop() === undefined) return { status: 'outside', escape: 'parent' };
  }

  let current = root;
  for (const component of components) {
    const next = join(current, component);
    const stats = await lstatIfPresent(next);
    if (stats === undefined) return { status: 'inside', path: joinComponents(components), exists: false };
    if (!stats.isSymbolicLink()) {
      current = next;
      continue;
    }
    const target = await realpathIfPresent(next);
    const landing = target ?? resolve(dirname(next), await readlink(next));
    if (!isWithin(root, landing)) return { status: 'outside', escape: 'symlink' };
    if (target === undefined) return { status: 'inside', path: joinComponents(components), exists: false };
    current = target;
  }
  return { status: 'inside', path: joinComponents(components), exists: true };
}

function joinComponents(components: readonly string[]): string {
  return components.length === 0 ? '.' : components.join('/');
}

function isWithin(root: string, path: string): boolean {
  return !escapes(relative(root, path));
}

function escapes(relativePath: string): boolean {
  return relativePath === '..' || relativePath.startsWith(`..${sep}`) || isAbsolute(relativePath);
}

async function lstatIfPresent(path: string): Promise<Awaited<ReturnType<typeof lstat>> | undefined> {
  try {
    return await lstat(path);
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

async function realpathIfPresent(path: string): Promise<string | undefined> {
  try {
    return await realpath(path);
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/** Missing, under a non-folder, or a link cycle: nothing there to read. */
function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP';
}
