/** Calls `listener` once when `signal` aborts (at once when it already has); returns the function that stops listening. */
export function onAbort(signal: AbortSignal, listener: () => void): () => void {
  signal.addEventListener('abort', listener, { once: true });
  if (signal.aborted) listener();
  return () => signal.removeEventListener('abort', listener);
}
