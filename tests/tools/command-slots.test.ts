import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, LocalToolRuntime, MAX_CONCURRENT_COMMANDS } from '../../tools/index.js';
import { openToolTestBed, type ToolTestBed } from '../helpers/tools-test-bed.js';

/** Commands of one run share a few slots: a burst of command calls waits its turn instead of starting hundreds of processes. */

let bed: ToolTestBed;
beforeEach(async () => {
  bed = await openToolTestBed();
});
afterEach(async () => bed.cleanup());

describe('concurrent commands per run', () => {
  it('runs at most MAX_CONCURRENT_COMMANDS commands at once, and every one of them in the end', async () => {
    let running = 0;
    let mostAtOnce = 0;
    // The commands hold their slots until every slot is taken (not for a guessed 10 ms, which a
    // loaded machine can spend before the next call reaches its slot), then all finish.
    let allSlotsTaken!: () => void;
    const full = new Promise<void>((resolve) => (allSlotsTaken = resolve));
    const slowCommand = defineTool({
      name: 'slow_command',
      description: 'a command that takes a moment',
      args: z.strictObject({}),
      risk: 'command',
      async execute() {
        running += 1;
        mostAtOnce = Math.max(mostAtOnce, running);
        if (running >= MAX_CONCURRENT_COMMANDS) allSlotsTaken();
        await full;
        running -= 1;
        return { content: 'done' };
      },
    });
    const runtime = new LocalToolRuntime({ tools: [slowCommand], approval: 'auto' });

    const results = await Promise.all(Array.from({ length: 40 }, () => bed.call(runtime, 'slow_command', {})));

    expect(results.every((result) => result.content === 'done')).toBe(true);
    expect(mostAtOnce).toBe(MAX_CONCURRENT_COMMANDS);
  });
});
