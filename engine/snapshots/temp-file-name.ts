/**
 * How dagent's writers name the file they write before renaming it into place:
 * `.<name>.<hex>.dagent-tmp`, next to the file. Such a file is dagent's own and fleeting: no scan,
 * snapshot, listing or other node may see it.
 */
export const DAGENT_TEMP_FILE = /(^|\/)\.[^/]+\.[0-9a-f]+\.dagent-tmp$/;

/** The glob matching dagent's temporary files anywhere below a folder. */
export const DAGENT_TEMP_FILE_GLOB = '**/.*.dagent-tmp';

/** Whether a path (or a bare file name) is one of dagent's temporary write files. */
export function isDagentTempFile(path: string): boolean {
  return DAGENT_TEMP_FILE.test(path);
}
