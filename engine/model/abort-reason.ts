/** What to throw when a caller's signal fired: its reason, or a standard AbortError. */
export function abortReason(signal: AbortSignal): unknown {
  if (signal.reason !== undefined) return signal.reason;
  const error = new Error('the operation was aborted');
  error.name = 'AbortError';
  return error;
}

/** Waits `ms`, rejecting with the abort reason as soon as `signal` fires. */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortReason(signal));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * A controller whose signal also aborts when `parent` does (with its reason) until `unlink()`, for
 * a short-lived child of a long-lived signal: what `AbortSignal.any([parent, own])` gives, without
 * the weak reference and finalization `any` registers on the parent for every child (a model
 * call's, under its node's: three times the cost here, and work for the collector).
 */
export function linkedAbort(parent: AbortSignal): { readonly controller: AbortController; unlink(): void } {
  const controller = new AbortController();
  if (parent.aborted) {
    controller.abort(parent.reason);
    return { controller, unlink: () => undefined };
  }
  const follow = (): void => controller.abort(parent.reason);
  parent.addEventListener('abort', follow, { once: true });
  return { controller, unlink: () => parent.removeEventListener('abort', follow) };
}
