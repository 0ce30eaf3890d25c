/** Folders no tool ever writes: git's repository and dagent's own state (database, config). */
export const PROTECTED_DIRECTORY_NAMES: readonly string[] = ['.git', '.dagent'];

/** Code points macOS (HFS+) ignores in file names, so `.g\u200cit` is `.git` there. */
const IGNORABLE_CODE_POINTS = /[\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff]/g;

/**
 * The protected folder a path component names, if any, under the most permissive file-system
 * semantics: any case (`.GIT`), NTFS trailing dots and spaces (`.git. `), NTFS streams
 * (`.git::$INDEX_ALLOCATION`), the 8.3 short name (`GIT~1`), and HFS+ ignorable characters.
 */
export function protectedNameOf(component: string): string | undefined {
  let name = component.normalize('NFC').replace(IGNORABLE_CODE_POINTS, '').toLowerCase();
  const stream = name.indexOf(':');
  if (stream > 0) name = name.slice(0, stream);
  name = name.replace(/[. ]+$/, '');
  if (name === 'git~1') return '.git';
  return PROTECTED_DIRECTORY_NAMES.find((protectedName) => protectedName === name);
}

/** The first protected folder among a path's components (any separator), if any. */
export function protectedNameInPath(components: readonly string[]): string | undefined {
  for (const component of components) {
    const name = protectedNameOf(component);
    if (name !== undefined) return name;
  }
  return undefined;
}
