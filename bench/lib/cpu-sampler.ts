import { writeFileSync } from 'node:fs';

/**
 * Loaded into a `dagent` child process with `node --import` by the real-run bench: with
 * `DAGENT_BENCH_CPU_SAMPLES=FILE` it notes the process's CPU time (user + system, every thread)
 * every 10 ms of wall clock and writes `[wall ms, CPU µs, …]` to FILE at exit, so the bench can
 * take the CPU spent between two of the log's timestamps (the run itself, without start-up).
 */
const SAMPLE_EVERY_MS = 10;
const out = process.env.DAGENT_BENCH_CPU_SAMPLES;
if (out !== undefined && out !== '') {
  const samples: number[] = [];
  const sample = (): void => {
    const { user, system } = process.cpuUsage();
    samples.push(Date.now(), user + system);
  };
  sample();
  setInterval(sample, SAMPLE_EVERY_MS).unref();
  process.on('exit', () => {
    sample();
    writeFileSync(out, JSON.stringify(samples));
  });
}
