import { Writable } from 'node:stream';

/** A terminal-less stdout that keeps each write apart, as a pipe's reader receives them. */
export function capturedStream(): { stream: Writable; writes: string[] } {
  const writes: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      writes.push(chunk.toString());
      done();
    },
  });
  return { stream, writes };
}
