import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder of dagent's own package.json, from the source tree or from dist/. */
export function packageRoot(): string {
  let folder = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(folder, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'dagent') return folder;
    const parent = dirname(folder);
    if (parent === folder) throw new Error('dagent package root not found');
    folder = parent;
  }
}
