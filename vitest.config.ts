import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    globalSetup: ['tests/global-setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Two files at a time even on two cores (vitest's default there is one): most files spend their
    // time waiting on the processes they spawn, and CI's whole run must stay under 15 minutes
    // (one file at a time: 640 s of tests; two: 463 s, every test passing).
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
