import { connect } from 'node:net';

/** How long the collector has to accept a connection when a run starts. */
export const PROBE_TIMEOUT_MS = 500;

/**
 * Whether the collector at `url` accepts a TCP connection within `timeoutMs`: a dead one (refused,
 * unreachable, silent) is found out while the run starts, so tracing never loads or waits for it.
 */
export function collectorAnswers(url: string, timeoutMs = PROBE_TIMEOUT_MS): Promise<boolean> {
  const target = new URL(url);
  const port = target.port === '' ? (target.protocol === 'https:' ? 443 : 80) : Number(target.port);
  return new Promise((resolve) => {
    const socket = connect({ host: target.hostname.replace(/^\[|\]$/g, ''), port });
    let settled = false;
    const done = (answered: boolean): void => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolve(answered);
    };
    // Timers run before I/O in the event loop: when the process was busy past the timeout (loading
    // modules while the run starts), a connection that came meanwhile is still waiting to be seen.
    // It gets one turn of the loop before the collector is called dead.
    socket.setTimeout(timeoutMs, () => setImmediate(() => done(false)));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.unref();
  });
}
