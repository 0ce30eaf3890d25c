import { createHash } from 'node:crypto';
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../../context/package-root.js';

/** What the warm language service answers: a workspace's TypeScript projects, as one tsconfig (or the default) sees them. */
export interface LanguageDaemonKey {
  readonly workspace: string;
  readonly tsconfig: string | undefined;
}

/**
 * Where the warm language service of a workspace listens: a Unix socket named by the workspace's
 * real path, the tsconfig, the user and this dagent's build (its version and when it was built), so
 * a dagent that was upgraded or rebuilt never talks to a service running older code; the older one
 * runs out its idle time and exits.
 */
export function daemonSocketPath(key: LanguageDaemonKey): string {
  const identity = JSON.stringify([realWorkspace(key.workspace), key.tsconfig ?? '', buildIdentity()]);
  const digest = createHash('sha256').update(identity).digest('hex').slice(0, 16);
  const user = typeof process.getuid === 'function' ? process.getuid() : 'user';
  return join(tmpdir(), `dagent-ls-${user}-${digest}.sock`);
}

let build: string | undefined;

/** dagent's version and the time its compiled planners were written (a rebuild is new code under the same version). */
function buildIdentity(): string {
  if (build !== undefined) return build;
  const root = packageRoot();
  const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version?: string }).version ?? '0';
  let built = '-';
  try {
    built = String(statSync(join(root, 'dist', 'planners', 'index.js')).mtimeMs);
  } catch {
    // Run from the sources: the version alone.
  }
  build = `${version}@${built}`;
  return build;
}

function realWorkspace(workspace: string): string {
  try {
    return realpathSync(workspace);
  } catch {
    return workspace;
  }
}
