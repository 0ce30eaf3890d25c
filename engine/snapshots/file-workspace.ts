import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { dirname, join, posix } from 'node:path';
import { UnsafeSnapshotPathError, WorkspaceMissingError } from './file-snapshot-errors.js';

/** What snapshots, diffs and reverts need from the workspace's files, by workspace-relative path. */
export interface WorkspaceFiles {
  readonly root: string;
  /** The file's bytes, or null when no file is there. */
  read(path: string): Promise<Buffer | null>;
  /** Replaces the file through a temporary file and a rename, creating folders, keeping its mode. */
  write(path: string, bytes: Buffer): Promise<void>;
  /** Deletes the file (nothing when absent) and the folders it leaves empty. */
  remove(path: string): Promise<void>;
}

/** Folders of the workspace that snapshots never read or write. */
export const SNAPSHOT_EXCLUDED_FOLDERS: readonly string[] = ['.git', '.dagent'];

export function createWorkspaceFiles(root: string): WorkspaceFiles {
  return {
    root,
    async read(path) {
      try {
        return await readFile(absolutePath(root, path));
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
    },
    async write(path, bytes) {
      const target = absolutePath(root, path);
      await mkdir(dirname(target), { recursive: true });
      const temporary = join(dirname(target), `.${posix.basename(path)}.${randomBytes(4).toString('hex')}.dagent-tmp`);
      try {
        await writeFile(temporary, bytes);
        const mode = await stat(target).then((existing) => existing.mode, () => undefined);
        if (mode !== undefined) await chmod(temporary, mode & 0o7777);
        await rename(temporary, target);
      } catch (error) {
        await rm(temporary, { force: true });
        throw error;
      }
    },
    async remove(path) {
      await rm(absolutePath(root, path), { force: true });
      const segments = path.split('/').slice(0, -1);
      for (let end = segments.length; end > 0; end--) {
        const removed = await rmdir(join(root, ...segments.slice(0, end))).then(() => true, () => false);
        if (!removed) return;
      }
    },
  };
}

/** Throws `WorkspaceMissingError` unless `root` is an existing folder. */
export async function assertWorkspace(root: string): Promise<void> {
  const found = await stat(root).catch(() => undefined);
  if (found === undefined || !found.isDirectory()) throw new WorkspaceMissingError(root);
}

function absolutePath(root: string, path: string): string {
  const segments = path.split('/');
  const unsafe =
    path === '' ||
    path.startsWith('/') ||
    path.includes('\0') ||
    segments.some((segment) => segment === '' || segment === '.' || segment === '..') ||
    SNAPSHOT_EXCLUDED_FOLDERS.includes(segments[0]!.toLowerCase());
  if (unsafe) throw new UnsafeSnapshotPathError(path);
  return join(root, ...segments);
}

function isMissing(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
