import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'repos');

/**
 * Files git would not keep in the fixture (its `.gitignore`s hide them), added to the copy so
 * the scan has something to leave out: an output folder, generated code, a nested-ignore match,
 * dependencies and a `.git` folder.
 */
const HIDDEN_FILES: Readonly<Record<string, string>> = {
  'build/out.js': "export const built = true;\n",
  'generated/schema.ts': "export interface Schema { readonly id: string }\n",
  'src/legacy/old.gen.ts': "export const OLD = 1;\n",
  'node_modules/left-pad/index.js': "module.exports = (s) => s;\n",
  '.git/HEAD': 'ref: refs/heads/main\n',
  '.dagent/config.json': '{}\n',
};

/** A copy of `tests/fixtures/repos/<name>` in a temporary folder, with the hidden files added. */
export function copyFixtureRepo(name: string): { root: string; cleanup: () => void } {
  const parent = mkdtempSync(join(tmpdir(), 'dagent-scan-'));
  const root = join(parent, name);
  cpSync(join(FIXTURES, name), root, { recursive: true });
  writeFiles(root, HIDDEN_FILES);
  return { root, cleanup: () => rmSync(parent, { recursive: true, force: true }) };
}

export function writeFiles(root: string, files: Readonly<Record<string, string>>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}
