import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { lineBatch } from '../../../cli/context/line-batch.js';
import { capturedStream } from '../../helpers/captured-stream.js';

describe("a worker's lines", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('a burst goes out as one write, in order, once the wait is over', () => {
    const { stream, writes } = capturedStream();
    const lines = lineBatch(stream, 50);

    lines.write('worker: read-0 (run r-1, attempt 1, token 1) started');
    lines.write('worker: read-1 (run r-1, attempt 1, token 1) started');
    vi.advanceTimersByTime(49);
    expect(writes).toEqual([]);

    vi.advanceTimersByTime(1);
    expect(writes).toEqual(['worker: read-0 (run r-1, attempt 1, token 1) started\nworker: read-1 (run r-1, attempt 1, token 1) started\n']);
  });

  it('the lines still waiting are written by flush, and nothing twice', () => {
    const { stream, writes } = capturedStream();
    const lines = lineBatch(stream, 50);

    lines.write('worker: read-0 (run r-1) succeeded');
    lines.flush();
    vi.advanceTimersByTime(100);
    lines.flush();

    expect(writes).toEqual(['worker: read-0 (run r-1) succeeded\n']);
  });
});
