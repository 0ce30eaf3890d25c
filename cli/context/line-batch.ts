import { writeLine } from './cli-io.js';

export interface LineBatch {
  /** Queues a line; it goes out with the others of its burst. */
  readonly write: (line: string) => void;
  /** Writes the lines still waiting now. */
  readonly flush: () => void;
}

/**
 * Lines written together, at most `waitMs` after the first of them: each write to a pipe or a
 * terminal is a system call (that wakes its reader), and a burst of lines — a wide stage's nodes
 * starting on a worker — would cost the thread that prepares those nodes one each.
 */
export function lineBatch(stream: NodeJS.WritableStream, waitMs: number): LineBatch {
  let waiting: string[] = [];
  let timer: NodeJS.Timeout | undefined;
  const flush = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (waiting.length === 0) return;
    const lines = waiting;
    waiting = [];
    writeLine(stream, lines.join('\n'));
  };
  return {
    write: (line) => {
      waiting.push(line);
      timer ??= setTimeout(flush, waitMs);
    },
    flush,
  };
}
