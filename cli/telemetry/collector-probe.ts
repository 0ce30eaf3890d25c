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
    const done = (answered: boolean): void => {
      socket.destroy();
      resolve(answered);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.unref();
  });
}
