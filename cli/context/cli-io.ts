/** The process edges the CLI touches, injectable so commands run in-process in tests. */
export interface CliIo {
  readonly stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number; rows?: number };
  readonly stderr: NodeJS.WritableStream;
  readonly stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  /** Resolves when the user asks to stop (Ctrl-C); commands that run long listen to it. */
  readonly interrupt: AbortSignal;
}

export function processIo(): CliIo {
  const controller = new AbortController();
  let interrupts = 0;
  process.on('SIGINT', () => {
    interrupts += 1;
    if (interrupts > 1) process.exit(130);
    controller.abort(new Error('interrupted'));
  });
  process.on('SIGTERM', () => controller.abort(new Error('terminated')));
  // `dagent log R | head`: the reader went away, which is not an error of ours.
  for (const stream of [process.stdout, process.stderr]) stream.on('error', exitQuietlyOnBrokenPipe);
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env, cwd: process.cwd(), interrupt: controller.signal };
}

/** Writes a line to a stream. */
export function writeLine(stream: NodeJS.WritableStream, text = ''): void {
  stream.write(`${text}\n`);
}

/** Whether to colour output: a TTY, and `NO_COLOR` unset (https://no-color.org). */
export function useColor(io: CliIo): boolean {
  return Boolean(io.stdout.isTTY) && (io.env.NO_COLOR === undefined || io.env.NO_COLOR === '') && io.env.TERM !== 'dumb';
}

function exitQuietlyOnBrokenPipe(error: NodeJS.ErrnoException): void {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
}
