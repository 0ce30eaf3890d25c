import { realpathSync } from 'node:fs';
import { delimiter, join, sep } from 'node:path';

/**
 * How the user can run this dagent again, for hints that name a command: `dagent` when the
 * `dagent` on their PATH is this very program (installed with `npm install -g`), otherwise
 * `npx dagent`, which works inside dagent's own repository (`npm run demo`).
 * The folders npm and npx put in front of PATH for the command they start (a project's
 * `node_modules/.bin`, npx's cache under `_npx`) are not the user's PATH: a `dagent` found only
 * there is not one the user can type.
 */
export function dagentCommand(script: string | undefined, env: NodeJS.ProcessEnv): 'dagent' | 'npx dagent' {
  if (script === undefined) return 'npx dagent';
  const self = realPath(script);
  if (self === undefined) return 'npx dagent';
  for (const folder of (env.PATH ?? '').split(delimiter)) {
    if (folder === '' || isAddedByNpm(folder)) continue;
    if (realPath(join(folder, 'dagent')) === self) return 'dagent';
  }
  return 'npx dagent';
}

function isAddedByNpm(folder: string): boolean {
  const parts = folder.split(sep).filter((part) => part !== '');
  const [last, parent] = [parts.at(-1), parts.at(-2)];
  return parts.includes('_npx') || (last === '.bin' && parent === 'node_modules');
}

function realPath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}
