import { realpathSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/**
 * How the user can run this dagent again, for hints that name a command: `dagent` when the
 * `dagent` on their PATH is this very program (installed with `npm install -g`), otherwise
 * `npx dagent`, which works inside dagent's own repository (`npm run demo`).
 */
export function dagentCommand(script: string | undefined, env: NodeJS.ProcessEnv): 'dagent' | 'npx dagent' {
  if (script === undefined) return 'npx dagent';
  const self = realPath(script);
  if (self === undefined) return 'npx dagent';
  for (const folder of (env.PATH ?? '').split(delimiter)) {
    if (folder === '') continue;
    if (realPath(join(folder, 'dagent')) === self) return 'dagent';
  }
  return 'npx dagent';
}

function realPath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}
