import { existsSync, statSync } from 'node:fs';
import { dirname, isAbsolute, relative } from 'node:path';

/** A line that names what went wrong: Node's `Error: Cannot find module '…'`, Python's `FileNotFoundError: …`, a tool's `cannot open …`. */
const ERROR_LINE = /\b(?:\w*Error|\w*Exception|cannot|can't|not found|no such file|ENOENT|EACCES|EPERM|permission denied|fatal)\b/i;
/** Stack frames and traceback headings name the place, not the error. */
const STACK_LINE = /^\s*(?:at |File "|Traceback )/;
/** An error about a path that could not be found or opened. */
const MISSING_PATH = /ENOENT|EACCES|no such file|permission denied|cannot find module|can't open|not found/i;
const TAIL_LINES = 5;

/** The last line of a server's stderr that names the error (a crash's stack trace ends with lines that do not). */
function errorLine(stderr: string): string | undefined {
  return stderr
    .split('\n')
    .map((line) => line.trim())
    .findLast((line) => ERROR_LINE.test(line) && !STACK_LINE.test(line));
}

/** The end of a server's stderr as its error shows it: the line that names the error, else its last lines. */
export function stderrNote(stderr: string): string {
  const lines = stderr.split('\n').map((line) => line.trim()).filter((line) => line !== '');
  if (lines.length === 0) return '';
  return ` (stderr: ${errorLine(stderr) ?? lines.slice(-TAIL_LINES).join(' | ')})`;
}

/**
 * When a sandboxed server's error is a path outside its workspace that it could not open, yet
 * that exists on this machine, the sandbox hid it (a private /tmp, the home folder): which folder
 * to make visible, and where. Empty otherwise.
 */
export function hiddenPathHint(stderr: string, workspace: string): string {
  const line = errorLine(stderr);
  if (line === undefined || !MISSING_PATH.test(line)) return '';
  const paths = [...line.matchAll(/(?:^|[\s'"`(=:])(\/[^\s'"`):,]+)/g)].map((match) => match[1]!);
  // The path the error is about comes last (`python3: can't open file '/x/server.py'`: not the interpreter).
  const hidden = paths.findLast((path) => {
    const inside = relative(workspace, path);
    return (inside.startsWith('..') || isAbsolute(inside)) && existsSync(path);
  });
  if (hidden === undefined) return '';
  const folder = statSync(hidden).isDirectory() ? hidden : dirname(hidden);
  return `; ${hidden} is outside the workspace, and the command sandbox the server runs in hides it: add "${folder}" to "sandbox": { "readPaths": [...] } in your config (~/.config/dagent/config.json)`;
}
