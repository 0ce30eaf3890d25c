/**
 * What of graphile-worker's local queue (0.17) this file relies on: the slots waiting for a job,
 * the batch size, its mode, and the fetch, the poll timer and the slot's ask that it replaces.
 */
interface LocalQueueInternals {
  readonly workerQueue: readonly unknown[];
  readonly mode: string;
  readonly fetchInProgress: boolean;
  readonly pollInterval: number;
  fetchAgain: boolean;
  fetchTimer: NodeJS.Timeout | null;
  getJobBatchSize: number;
  fetch: () => void;
  getJob: (workerId: string, flagsToSkip: readonly string[] | null) => unknown;
}

function isLocalQueue(value: unknown): value is LocalQueueInternals {
  const queue = value as Partial<LocalQueueInternals> | null;
  return (
    typeof queue === 'object' &&
    queue !== null &&
    Array.isArray(queue.workerQueue) &&
    typeof queue.mode === 'string' &&
    typeof queue.getJobBatchSize === 'number' &&
    typeof queue.pollInterval === 'number' &&
    typeof queue.fetch === 'function' &&
    typeof queue.getJob === 'function'
  );
}

/**
 * graphile-worker's local queue fetches a whole batch whenever it hears of new jobs, whether or
 * not any of its slots is free: a worker whose slots all run nodes would take jobs that another,
 * idle worker could start now, and hold them until one of its own nodes ends (a W2 dependent
 * waited 40–140 ms so while three other workers were idle). Made to fetch for its idle slots
 * only: a batch as large as the slots waiting for a job (a wide stage still comes in one fetch),
 * none while no slot waits — the fetch waits for the next slot that asks (or the poll, as before).
 * A queue that is not the shape this relies on (another graphile-worker) is left as it is.
 */
export function fetchForIdleSlotsOnly(value: unknown): void {
  if (!isLocalQueue(value)) return;
  const queue = value;
  const size = queue.getJobBatchSize;
  let deferred = false;
  // Set as each fetch begins, for the whole of it: a full batch means more may be waiting, and the
  // queue fetches again at once (for the slots still waiting, if any).
  let batch = size;
  Object.defineProperty(queue, 'getJobBatchSize', { get: () => batch, configurable: true });
  const fetch = queue.fetch;
  queue.fetch = () => {
    if (queue.mode !== 'POLLING' || queue.workerQueue.length > 0) {
      batch = Math.min(size, Math.max(1, queue.workerQueue.length));
      fetch();
      return;
    }
    // No slot waits: fetch once one asks; the poll stays armed as the queue's own fallback.
    deferred = true;
    if (queue.fetchTimer !== null) clearTimeout(queue.fetchTimer);
    queue.fetchTimer = setTimeout(queue.fetch, queue.pollInterval);
  };
  const getJob = queue.getJob;
  queue.getJob = (workerId, flagsToSkip) => {
    const job = getJob(workerId, flagsToSkip);
    if (deferred && queue.mode === 'POLLING' && queue.workerQueue.length > 0) {
      deferred = false;
      if (queue.fetchInProgress) queue.fetchAgain = true;
      else queue.fetch();
    }
    return job;
  };
}
