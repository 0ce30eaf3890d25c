import { basename } from 'node:path';
import { parseShell, type ShellWord } from './shell-syntax.js';

/** Program names the command checker knows by role, and the wrappers it looks through. */

/** `bash -c "$(…)"` nesting followed before giving up. */
export const MAX_COMMAND_NESTING = 6;

export const SHELLS: ReadonlySet<string> = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'fish', 'csh', 'tcsh', 'busybox']);
export const INTERPRETERS = /^(?:python[0-9.]*|pypy[0-9.]*|perl[0-9.]*|ruby[0-9.]*|node|nodejs|deno|bun|php[0-9.]*|lua[0-9.]*|Rscript|osascript|pwsh|powershell|tclsh|awk|gawk|mawk|nawk)$/;
export const DOWNLOADERS: ReadonlySet<string> = new Set(['curl', 'wget', 'fetch', 'aria2c', 'nc', 'ncat', 'netcat', 'socat', 'http', 'https', 'xh', 'lwp-request', 'lynx', 'links', 'ftp', 'tftp', 'ssh', 'scp']);
export const DECODERS: ReadonlySet<string> = new Set(['base64', 'base32', 'xxd', 'uudecode', 'openssl', 'gunzip', 'zcat', 'gzip', 'bzcat', 'xzcat']);

export function commandName(word: ShellWord): string {
  return basename(word.text);
}

export interface WrapperSpec {
  readonly valueOptions: readonly string[];
  /** Operands before the wrapped command (timeout's duration). */
  readonly operands?: number;
}

export const WRAPPERS: Readonly<Record<string, WrapperSpec>> = {
  env: { valueOptions: ['-u', '--unset', '-C', '--chdir', '-S', '--split-string'] },
  nice: { valueOptions: ['-n', '--adjustment'] },
  nohup: { valueOptions: [] },
  time: { valueOptions: ['-f', '--format', '-o', '--output'] },
  timeout: { valueOptions: ['-s', '--signal', '-k', '--kill-after'], operands: 1 },
  stdbuf: { valueOptions: ['-i', '-o', '-e', '--input', '--output', '--error'] },
  ionice: { valueOptions: ['-c', '--class', '-n', '--classdata', '-t'] },
  command: { valueOptions: [] },
  builtin: { valueOptions: [] },
  exec: { valueOptions: ['-a'] },
  setsid: { valueOptions: [] },
  unbuffer: { valueOptions: [] },
  chronic: { valueOptions: [] },
  xargs: { valueOptions: ['-a', '--arg-file', '-d', '--delimiter', '-E', '-I', '-L', '-n', '--max-args', '-P', '--max-procs', '-s', '--max-chars'] },
};

/** Whether a substitution's script fetches something from the network. */
export function downloads(script: string, depth: number): boolean {
  if (depth > MAX_COMMAND_NESTING) return true;
  const parsed = parseShell(script);
  if (parsed.problems.length > 0 && /\b(?:curl|wget|fetch|nc|ncat|socat)\b/.test(script)) return true;
  for (const pipeline of parsed.pipelines) {
    for (const command of pipeline) {
      const name = effectiveName(command.words);
      if (name !== undefined && DOWNLOADERS.has(name)) return true;
    }
  }
  return parsed.substitutions.some((inner) => downloads(inner, depth + 1));
}

/** The command a word list runs once wrappers, their options and durations are skipped. */
function effectiveName(words: readonly ShellWord[]): string | undefined {
  for (const word of words) {
    if (word.expanded) return undefined;
    const name = commandName(word);
    if (WRAPPERS[name] !== undefined || word.text.startsWith('-') || /^[A-Za-z_]\w*=/.test(word.text) || /^\d+(?:\.\d+)?[smhd]?$/.test(word.text)) continue;
    return name;
  }
  return undefined;
}
