import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/**
 * The workspace when `-w` is not given, found as git finds its repository: the nearest folder
 * from `cwd` upwards that holds `.git`; `cwd` itself when none does.
 */
export function findWorkspaceRoot(cwd: string): string {
  const start = resolve(cwd);
  for (let folder = start; ; folder = dirname(folder)) {
    if (existsSync(join(folder, '.git'))) return folder;
    if (dirname(folder) === folder) return start;
  }
}
