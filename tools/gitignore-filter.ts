import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import ignore, { type Ignore } from 'ignore';

/**
 * `.gitignore` rules of a workspace: every `.gitignore` from the root down to a path's folder
 * applies, each relative to its own folder. Files are read once, on first need.
 */
export class GitignoreFilter {
  readonly #root: string;
  readonly #rules = new Map<string, Promise<Ignore | undefined>>();

  /** `root` is the workspace's real root. */
  constructor(root: string) {
    this.#root = root;
  }

  /** Whether a workspace-relative path (`/` separators, no leading `./`) is ignored. */
  async isIgnored(relativePath: string, isDirectory: boolean): Promise<boolean> {
    const parts = relativePath.split('/');
    for (let depth = 0; depth < parts.length; depth += 1) {
      const folder = parts.slice(0, depth).join('/');
      const rules = await this.#rulesOf(folder);
      if (rules === undefined) continue;
      const below = parts.slice(depth).join('/');
      if (rules.ignores(isDirectory ? `${below}/` : below)) return true;
    }
    return false;
  }

  #rulesOf(folder: string): Promise<Ignore | undefined> {
    let rules = this.#rules.get(folder);
    if (rules === undefined) {
      rules = readFile(join(this.#root, folder, '.gitignore'), 'utf8').then(
        (text) => ignore().add(text),
        () => undefined,
      );
      this.#rules.set(folder, rules);
    }
    return rules;
  }
}
