/** The command checker: the first, text-only gate every command passes before it runs. */
export { checkCommand, MAX_CHECKED_COMMAND_CHARS, type CommandCheckOptions, type CommandClass, type CommandVerdict } from './command-checker.js';
export { parseShell, type ShellCommand, type ShellPipeline, type ShellRedirect, type ShellScript, type ShellWord } from './shell-syntax.js';
