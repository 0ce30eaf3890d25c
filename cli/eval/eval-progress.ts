import type { EvalResult } from './eval-store.js';

const BAR_WIDTH = 24;

export interface EvalProgress {
  /** An attempt begins (`done` attempts finished so far). */
  starting(done: number, label: string): void;
  /** An attempt finished. */
  finished(done: number, result: EvalResult): void;
  /** Clears the bar before the tables are printed. */
  end(): void;
}

/**
 * Progress on stderr: a bar redrawn in place on a terminal, one plain line per finished attempt
 * otherwise (CI logs, pipes).
 */
export function createEvalProgress(out: NodeJS.WritableStream & { isTTY?: boolean }, total: number): EvalProgress {
  const tty = out.isTTY === true;
  const bar = (done: number): string => {
    const filled = Math.round((done / total) * BAR_WIDTH);
    return `[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${done}/${total}`;
  };
  return {
    starting(done, label) {
      if (tty) out.write(`\r\u001b[2K${bar(done)} ${label}`);
    },
    finished(done, result) {
      const line = `${result.task} · ${result.mode} #${result.repetition}: ${result.passed ? 'pass' : result.error === null ? 'fail' : `fail (${result.error})`} · ${result.tokens.input + result.tokens.output} tokens · $${result.costUsd.toFixed(4)} · ${result.wallMs === null ? '–' : `${(result.wallMs / 1000).toFixed(1)} s`}${result.runId === null ? '' : ` · ${result.runId}`}`;
      if (tty) out.write(`\r\u001b[2K${bar(done)} ${line}`);
      else out.write(`${done}/${total} ${line}\n`);
    },
    end() {
      if (tty) out.write('\r\u001b[2K');
    },
  };
}
