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

/** How often a dagent started by npm or npx looks whether npm is still there. */
const PARENT_CHECK_MS = 1_000;

/**
 * The real process's edges. Ctrl-C (SIGINT), SIGTERM (`timeout`, CI cancellation, `kill`) and
 * SIGHUP (the terminal closed) abort `interrupt`, so the run in progress is ended and recorded
 * as such; a second Ctrl-C exits at once. SIGHUP is heard only with a terminal on stdin or stdout:
 * under `nohup` (which points both elsewhere) it stays ignored, as the user asked.
 */
export function processIo(): CliIo {
  const controller = new AbortController();
  let interrupts = 0;
  process.on('SIGINT', () => {
    interrupts += 1;
    if (interrupts > 1) process.exit(130);
    controller.abort(new Error('interrupted (SIGINT)'));
  });
  process.on('SIGTERM', () => controller.abort(new Error('terminated (SIGTERM)')));
  if (process.stdin.isTTY === true || process.stdout.isTTY === true) process.on('SIGHUP', () => controller.abort(new Error('the terminal closed (SIGHUP)')));
  watchNpmParent(controller);
  // `dagent log R | head`: the reader went away, which is not an error of ours.
  for (const stream of [process.stdout, process.stderr]) stream.on('error', exitQuietlyOnBrokenPipe);
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env, cwd: process.cwd(), interrupt: controller.signal };
}

/**
 * Started by `npm run` or `npx`, dagent is npm's child: when npm is ended in a way it cannot pass
 * on (kill -9, or a shell in between that does not forward SIGTERM), dagent would go on alone,
 * holding a run nobody watches. It looks every second whether its parent is still npm, and stops
 * as on SIGTERM when it is not. Outside npm nothing is watched: `dagent … &` and `nohup` outlive
 * their shell on purpose.
 */
function watchNpmParent(controller: AbortController): void {
  if (process.env.npm_command === undefined && process.env.npm_lifecycle_event === undefined) return;
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    controller.abort(new Error(`npm, which started dagent (pid ${parent}), has ended`));
  }, PARENT_CHECK_MS);
  timer.unref();
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
