import { readFileSync } from 'node:fs';
import { sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Reads a text file that sits beside a module (a tool description, a prompt), trimmed. From a
 * compiled copy under `dist/`, where the compiler copies no `.md`, the source folder is the
 * fallback.
 */
export function readBeside(moduleUrl: string, fileName: string): string {
  const beside = fileURLToPath(new URL(fileName, moduleUrl));
  const distFolder = `${sep}dist${sep}`;
  const at = beside.lastIndexOf(distFolder);
  const candidates = at < 0 ? [beside] : [beside, beside.slice(0, at) + sep + beside.slice(at + distFolder.length)];
  for (const candidate of candidates) {
    try {
      return readFileSync(candidate, 'utf8').trim();
    } catch {
      // try the next location
    }
  }
  throw new Error(`${fileName} not found beside ${fileURLToPath(moduleUrl)}`);
}
