import type { Approver } from '../../engine/index.js';
import { writeLine, type CliIo } from './cli-io.js';

/**
 * Keeps a question on the terminal in one piece: while an approval question is open, lines that
 * other parts of the run print (progress lines, tool calls) wait, and they follow the answer in the
 * order they came. Questions asked at once stay held until the last is answered.
 */
export interface OutputHold {
  /** Writes the line now, or once no question is open. */
  writeLine(stream: NodeJS.WritableStream, line: string): void;
  /** Holds lines back while `asking` runs, then writes what was held. */
  during<T>(asking: () => Promise<T>): Promise<T>;
}

const holds = new WeakMap<CliIo, OutputHold>();

/** The one hold of a command's terminal (its `io`). */
export function outputHold(io: CliIo): OutputHold {
  let hold = holds.get(io);
  if (hold === undefined) {
    hold = createOutputHold();
    holds.set(io, hold);
  }
  return hold;
}

export function createOutputHold(): OutputHold {
  let open = 0;
  let held: { stream: NodeJS.WritableStream; line: string }[] = [];
  const release = (): void => {
    const lines = held;
    held = [];
    for (const { stream, line } of lines) writeLine(stream, line);
  };
  return {
    writeLine(stream, line) {
      if (open > 0) held.push({ stream, line });
      else writeLine(stream, line);
    },
    async during(asking) {
      open += 1;
      try {
        return await asking();
      } finally {
        open -= 1;
        if (open === 0) release();
      }
    },
  };
}

/** `approver` with its questions holding the other output of `io` back. */
export function holdingOutput(approver: Approver, io: CliIo): Approver {
  const hold = outputHold(io);
  // Its other fields (the name recorded with each answer) stay as they are.
  return { ...approver, ask: (request, signal) => hold.during(() => approver.ask(request, signal)) };
}
