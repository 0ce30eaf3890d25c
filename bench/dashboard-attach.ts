import { PassThrough } from 'node:stream';
import { CliContext } from '../cli/context/cli-context.js';
import { showLiveDashboard } from '../cli/running/live-dashboard.js';

/**
 * The second process of `npm run bench -- dashboard`: `dagent dashboard <run>`'s own code
 * (showLiveDashboard) on a terminal of 120×40 whose output is drained. Reports, as one JSON line,
 * its CPU time while the run streams and the latency from each event's append to the first redraw
 * that shows it.
 */
const [storeUrl, runId, workspace] = process.argv.slice(2) as [string, string, string];

const output = Object.assign(new PassThrough(), { isTTY: true, columns: 120, rows: 40 });
output.resume();
const input = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => input });
const io = { stdout: output, stderr: new PassThrough(), stdin: input, env: { TERM: 'xterm-256color' }, cwd: workspace, interrupt: new AbortController().signal };
const context = new CliContext(io, { workspace, db: storeUrl });

const appendedAt = new Map<number, number>();
const latencies: number[] = [];
let cpuStart: NodeJS.CpuUsage | undefined;
let wallStart = 0;
let finished = false;

let live: Awaited<ReturnType<typeof showLiveDashboard>> | undefined;
live = await showLiveDashboard(context, runId, {
  attached: false,
  onRender: (lastSeq) => {
    const now = Date.now();
    for (const [seq, at] of appendedAt) {
      if (seq > lastSeq) continue;
      latencies.push(now - at);
      appendedAt.delete(seq);
    }
    if (!finished && live?.dashboard.state().view.status === 'succeeded' && appendedAt.size === 0) finish();
  },
});
const shown = live;
const show = shown.sink;
shown.sink = (events) => {
  if (cpuStart === undefined) {
    cpuStart = process.cpuUsage();
    wallStart = Date.now();
  }
  for (const event of events) appendedAt.set(event.seq, Date.parse(event.createdAt));
  show(events);
};
process.stdout.write('attached\n');

function finish(): void {
  finished = true;
  const cpu = process.cpuUsage(cpuStart);
  const wallMs = Date.now() - wallStart;
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (share: number): number => sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? 0;
  process.stdout.write(`${JSON.stringify({ cpuMs: (cpu.user + cpu.system) / 1000, wallMs, events: sorted.length, p50: at(0.5), p95: at(0.95), max: sorted.at(-1) ?? 0 })}\n`);
  shown
    .stop()
    .then(() => context.close())
    .then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`closing the attached dashboard failed: ${error instanceof Error ? error.message : String(error)}\n`);
        process.exit(1);
      },
    );
}
