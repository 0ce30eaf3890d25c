/**
 * `npm run bench [-- name ...]`: runs the named benchmarks (all when none is named) in this
 * one process and prints their tables.
 */
const BENCHES: Readonly<Record<string, () => Promise<void>>> = {
  session: async () => (await import('./session.js')).runSessionBench(),
  'read-log': async () => (await import('./read-log.js')).runReadLogBench(),
  scheduler: async () => void (await (await import('./scheduler.js')).runSchedulerBench()),
  'step-cost': async () => (await import('./step-cost.js')).runStepCostBench(),
  'real-runs': async () => (await import('./real-runs.js')).runRealRunsBench(),
  slots: async () => (await import('./slots.js')).runSlotsBench(),
  compaction: async () => (await import('./compaction.js')).runCompactionBench(),
  workers: async () => (await import('./workers.js')).runWorkersBench(),
  startup: async () => (await import('./startup.js')).runStartupBench(),
  snapshots: async () => (await import('./snapshots.js')).runSnapshotsBench(),
  dashboard: async () => (await import('./dashboard.js')).runDashboardBench(),
  sandbox: async () => (await import('./sandbox.js')).runSandboxBench(),
  scan: async () => (await import('./scan.js')).runScanBench(),
  'member-refs': async () => (await import('./member-refs.js')).runMemberRefsBench(),
  cache: async () => (await import('./cache.js')).runCacheBench(),
  redaction: async () => (await import('./redaction.js')).runRedactionBench(),
  tracing: async () => (await import('./tracing.js')).runTracingBench(),
  worktree: async () => (await import('./worktree.js')).runWorktreeBench(),
};

async function runBenches(names: readonly string[]): Promise<number> {
  const selected = names.length === 0 ? Object.keys(BENCHES) : names;
  for (const name of selected) {
    const bench = BENCHES[name];
    if (bench === undefined) {
      process.stderr.write(`dagent bench: unknown benchmark "${name}"; known: ${Object.keys(BENCHES).join(', ')}\n`);
      return 2;
    }
    process.stdout.write(`\n=== ${name} ===\n`);
    await bench();
  }
  return 0;
}

process.exitCode = await runBenches(process.argv.slice(2));
