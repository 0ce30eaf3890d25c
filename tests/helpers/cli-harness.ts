import { PassThrough } from 'node:stream';
import { main } from '../../cli/index.js';

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs the CLI in-process against captured streams, as a user would type `dagent ...args` in `cwd`;
 * `terminal`: stdin and stdout are a 100×30 terminal (so `run` and `dashboard` open the screen).
 */
export async function runCli(args: readonly string[], options: { cwd: string; env?: NodeJS.ProcessEnv; stdin?: string; signal?: AbortSignal; terminal?: boolean }): Promise<CliResult> {
  const terminal = options.terminal === true;
  const stdout = terminal ? Object.assign(new PassThrough(), { isTTY: true, columns: 100, rows: 30 }) : new PassThrough();
  const stderr = new PassThrough();
  const stdin = terminal ? Object.assign(new PassThrough(), { isTTY: true }) : new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  if (options.stdin !== undefined) stdin.end(options.stdin);
  const code = await main(args, {
    stdout,
    stderr,
    stdin,
    env: { ...options.env },
    cwd: options.cwd,
    interrupt: options.signal ?? new AbortController().signal,
  });
  return { code, stdout: out, stderr: err };
}
