import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { deflateSync } from 'node:zlib';

/**
 * The object folder of a repository whose objects dagent may write itself: SHA-1 ids (a SHA-256
 * repository, or one git cannot describe, gives undefined and its objects are left to git).
 */
export async function looseObjectFolder(root: string, git: (args: readonly string[], options: { readonly cwd: string }) => Promise<Buffer>): Promise<string | undefined> {
  try {
    const [format, objects] = (await git(['rev-parse', '--show-object-format', '--git-path', 'objects'], { cwd: root })).toString('utf8').trim().split('\n');
    if (format !== 'sha1' || objects === undefined || objects === '') return undefined;
    return isAbsolute(objects) ? objects : join(root, objects);
  } catch {
    return undefined;
  }
}

/**
 * Writes one loose object into `objects` and returns its id: zlib of `<type> <size>\0<bytes>`,
 * through a temporary file renamed into place, as git writes them (an object already there is
 * left as it is). Synchronous, like its compression: a round trip through the thread pool per
 * call would cost more than the writing.
 */
export function writeLooseObject(objects: string, type: 'blob' | 'tree' | 'commit', bytes: Buffer): string {
  const header = Buffer.from(`${type} ${bytes.length}\0`, 'utf8');
  const id = createHash('sha1').update(header).update(bytes).digest('hex');
  const folder = join(objects, id.slice(0, 2));
  const target = join(folder, id.slice(2));
  if (statSync(target, { throwIfNoEntry: false }) !== undefined) return id;
  mkdirSync(folder, { recursive: true });
  const temporary = join(folder, `tmp_obj_dagent_${randomBytes(6).toString('hex')}`);
  try {
    writeFileSync(temporary, deflateSync(Buffer.concat([header, bytes])), { mode: 0o444, flag: 'wx' });
    renameSync(temporary, target);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
  return id;
}
