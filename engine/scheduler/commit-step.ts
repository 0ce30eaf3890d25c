import type { LoopInput, Step } from './loop-input.js';
import type { TransitionWriter } from './transition-writer.js';

/** What committing a step needs of its loop. */
export interface CommittingLoop<R> {
  /** The loop has failed (a write, a hook, a bug). */
  failed(): boolean;
  /** Fails the loop at once (within the step). */
  enterFatal(error: unknown): void;
  /** Queues an input for a later step. */
  post(input: LoopInput<R>): void;
}

/**
 * The loop commits each step itself: the step's transitions go to the writer (stored in decision
 * order, grouped with what else waits), its starts are granted at once, each holding the promise of
 * the write, and the rest of what it decided (retry timers, hook calls, amendment answers) runs once
 * the write is stored — or is abandoned when the loop has failed or the write fails.
 */
export function commitStep<R>(step: Step<R>, writer: TransitionWriter<R>, loop: CommittingLoop<R>): void {
  const failure = writer.failure;
  if (failure !== undefined) loop.enterFatal(failure.error);
  if (loop.failed()) {
    for (const action of step.abandon) action();
    return;
  }
  const stored = writer.submit(step.transitions);
  for (const start of step.starts) start(stored);
  stored.then(
    () => {
      const actions = loop.failed() ? step.abandon : step.effects;
      for (const action of actions) action();
    },
    (error: unknown) => {
      loop.post({ kind: 'fatal', error });
      for (const action of step.abandon) action();
    },
  );
}

/** Calls `onAbort` when `signal` aborts (at once if it has); returns how to stop listening. */
export function watchSignal(signal: AbortSignal | undefined, onAbort: (reason: unknown) => void): () => void {
  if (signal === undefined) return () => undefined;
  const listener = (): void => onAbort(signal.reason);
  if (signal.aborted) {
    listener();
    return () => undefined;
  }
  signal.addEventListener('abort', listener, { once: true });
  return () => signal.removeEventListener('abort', listener);
}
