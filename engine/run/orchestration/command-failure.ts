import { isAbsolute, relative } from 'node:path';
import type { ToolResult } from '../../agent/tool-runtime.js';

/** Lines of a failed command's output shown in the one-line reason. */
const FAILURE_TAIL_LINES = 3;
const FAILURE_TAIL_CHARS = 300;

/** A line that names what went wrong, as compilers, test runners, shells and Node print it. */
const ERROR_LINE = /\b(error|errors|cannot|can't|not found|failed|failure|fatal|exception|denied|ENOENT|EACCES|EPERM|no such file|permission denied|Traceback|panic)\b/i;

/** An error about a path the command could not see or open. */
const MISSING_PATH = /ENOENT|EACCES|EPERM|no such file|permission denied|cannot find module|not found/i;

/**
 * The reason a command node failed: a first line that says it all (the exit code or the denial,
 * then the line that names the error — the first output line that reads like one, else the first
 * line on stderr, else the last lines), then the whole result. When the error is a path outside
 * the workspace that could not be found or opened, the first line says the sandbox may hide it.
 */
export function commandFailure(command: string, result: ToolResult, workspace?: string): string {
  const shown = command.length > 80 ? `${command.slice(0, 80)}…` : command;
  const lines = result.content.split('\n');
  const exitCode = result.meta.exitCode;
  const headline =
    typeof exitCode === 'number' && result.meta.outcome === 'error'
      ? `\`${shown}\` exited with code ${exitCode}`
      : `\`${shown}\` ${result.meta.outcome === 'denied' ? 'was denied' : result.meta.outcome === 'refused' ? 'was refused' : `failed (${result.meta.outcome})`}`;
  if (result.meta.outcome === 'denied' || result.meta.outcome === 'refused') return `${headline}: ${lines[0]}\n${result.content}`;
  const cause = failureCause(lines.slice(1));
  const hint = cause === undefined || workspace === undefined ? undefined : sandboxHint(cause, workspace);
  const first = cause === undefined ? `${headline} (${lines[0]})` : `${headline}: ${cause}${hint === undefined ? '' : ` — ${hint}`}`;
  return `${first}\n${result.content}`;
}

/** The line (or last lines) of the output that say why the command failed, on one line. */
export function failureCause(outputLines: readonly string[]): string | undefined {
  const isOutput = (line: string): boolean => line.trim() !== '' && !/^--- std(?:out|err) ---$/.test(line) && !/^\[… \d+ bytes omitted …\]$/.test(line);
  const stderrAt = outputLines.indexOf('--- stderr ---');
  const errorLine = outputLines.find((line) => isOutput(line) && ERROR_LINE.test(line)) ?? (stderrAt < 0 ? undefined : outputLines.slice(stderrAt + 1).find(isOutput));
  if (errorLine !== undefined) return clip(errorLine.trim());
  const output = outputLines.filter(isOutput);
  if (output.length === 0) return undefined;
  const tail = output.slice(-FAILURE_TAIL_LINES).map((line) => line.trim()).join(' ⏎ ');
  return tail.length > FAILURE_TAIL_CHARS ? `…${tail.slice(-FAILURE_TAIL_CHARS)}` : tail;
}

/**
 * Commands run in the OS sandbox see the workspace and a read-only system, with a private /tmp
 * and credential folders hidden: a missing path outside the workspace may be one it hides.
 */
function sandboxHint(cause: string, workspace: string): string | undefined {
  if (!MISSING_PATH.test(cause)) return undefined;
  const outside = [...cause.matchAll(/(?:^|[\s'"`(=:])(\/[^\s'"`):,]+)/g)].map((match) => match[1]!).find((path) => {
    const inside = relative(workspace, path);
    return inside.startsWith('..') || isAbsolute(inside);
  });
  if (outside === undefined) return undefined;
  return `${outside} is outside the workspace, which the command sandbox may hide (a private /tmp, credential folders); if the command needs to read it, add "${readPathFor(outside)}" to "sandbox": { "readPaths": [...] } in your config (~/.config/dagent/config.json)`;
}

/** The folder to make visible for a path: its top folder under /tmp (a checkout, a cache), else the path itself. */
function readPathFor(path: string): string {
  const underTmp = /^\/tmp\/[^/]+/.exec(path);
  return underTmp === null ? path : underTmp[0];
}

function clip(line: string): string {
  return line.length > FAILURE_TAIL_CHARS ? `${line.slice(0, FAILURE_TAIL_CHARS)}…` : line;
}
