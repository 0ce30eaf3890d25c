import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createTcpServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { median, printTable, verdict } from './lib/table.js';

const ROUNDS = 5;
/** A dead collector may cost a run at most this much wall time over no tracing (noise included). */
const GOAL_DEAD_EXTRA_MS = 150;
/** A collector that accepts and never answers holds the end for one export timeout at most. */
const GOAL_HUNG_EXTRA_MS = 1_000;
const BIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'dagent.js');

/**
 * A run of a six-node plan (command nodes, no model) with tracing off, to a live loopback
 * collector, to a closed port (connection refused) and to a hung collector (a port that accepts and
 * never answers): interleaved round by round, median wall time of `plan --from … --yes`.
 */
export async function runTracingBench(): Promise<void> {
  const collector = createHttpServer((request, response) => request.resume().on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{}')));
  const blackHole = createTcpServer(() => undefined);
  const closed = createTcpServer();
  const [live, silent, refused] = [await listen(collector), await listen(blackHole), await listen(closed)];
  await new Promise((resolve) => closed.close(resolve));
  const cases: readonly (readonly [string, string | undefined])[] = [
    ['no tracing', undefined],
    ['live collector', `http://127.0.0.1:${live}`],
    ['dead collector (refused)', `http://127.0.0.1:${refused}`],
    ['hung (accepts, never answers)', `http://127.0.0.1:${silent}`],
  ];
  const samples = cases.map(() => [] as number[]);
  try {
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const [index, [, endpoint]] of cases.entries()) samples[index]!.push(await timeRun(endpoint));
    }
  } finally {
    collector.close();
    blackHole.close();
  }
  const base = median(samples[0]!);
  const goals = [undefined, undefined, GOAL_DEAD_EXTRA_MS, GOAL_HUNG_EXTRA_MS];
  const rows = cases.map(([name], index) => {
    const ms = median(samples[index]!);
    const goal = goals[index];
    return [name, ms.toFixed(0), index === 0 ? '' : `${(ms - base).toFixed(0)}`, goal === undefined ? '' : `≤ +${goal}`, goal === undefined ? '' : verdict(ms - base <= goal)];
  });
  printTable(`a six-node run with OTLP tracing, median of ${ROUNDS} interleaved rounds (wall time, ms)`, ['collector', 'ms', 'extra', 'goal', ''], rows);
}

async function listen(server: Server | ReturnType<typeof createHttpServer>): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
}

/** One fresh workspace and run; the clock covers the whole process, exporter shutdown included. */
async function timeRun(endpoint: string | undefined): Promise<number> {
  const workspace = mkdtempSync(join(tmpdir(), 'dagent-tracing-'));
  try {
    const nodes = Array.from({ length: 6 }, (_, index) => ({ id: `step-${index}`, kind: 'command', title: `step ${index}`, instructions: '', command: 'true', dependsOn: index === 0 ? [] : [`step-${index - 1}`] }));
    writeFileSync(join(workspace, 'plan.json'), JSON.stringify({ goal: 'six steps', nodes }));
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', OTEL_EXPORTER_OTLP_ENDPOINT: endpoint };
    if (endpoint === undefined) delete env.OTEL_EXPORTER_OTLP_ENDPOINT;
    const started = performance.now();
    const code = await new Promise<number | null>((resolve) => {
      const child = spawn(process.execPath, [BIN, '-w', workspace, '--approval', 'auto', 'plan', '--from', join(workspace, 'plan.json'), '--yes'], { stdio: 'ignore', env });
      child.on('exit', resolve);
    });
    const took = performance.now() - started;
    if (code !== 0) throw new Error(`the run to ${endpoint ?? 'no collector'} exited with ${code}`);
    return took;
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}
