/** The command checker: the first gate every command passes before it runs, judging its text and where its paths really lead. */
export { checkCommand, MAX_CHECKED_COMMAND_CHARS, type CommandCheckOptions, type CommandClass, type CommandVerdict } from './command-checker.js';
export { resolveOnDisk, type ResolvedPath, type ResolvePath } from './real-paths.js';
export { parseShell, type ShellCommand, type ShellPipeline, type ShellRedirect, type ShellScript, type ShellWord } from './shell-syntax.js';
