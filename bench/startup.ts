import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { median, printTable, verdict } from './lib/table.js';

const ROUNDS = 11;
const GOAL_RATIO = 3;
const BIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'dagent.js');

/**
 * Start-up of the commands a user runs most to look around (`--help`, `status`, `log`, `show`)
 * against a bare `node -e 0` on the same machine. The commands are interleaved round by round,
 * so a machine that gets busier slows all of them alike; the ratio is median over median.
 */
export async function runStartupBench(): Promise<void> {
  const workspace = mkdtempSync(join(tmpdir(), 'dagent-startup-'));
  try {
    const runId = await planFromDocument(workspace);
    const cases: readonly (readonly [string, readonly string[]])[] = [
      ['node -e 0', ['-e', '0']],
      ['dagent --help', [BIN, '--help']],
      ['dagent status', [BIN, '-w', workspace, 'status']],
      ['dagent status RUN', [BIN, '-w', workspace, 'status', runId]],
      ['dagent log RUN', [BIN, '-w', workspace, 'log', runId]],
      ['dagent show RUN', [BIN, '-w', workspace, 'show', runId]],
    ];
    const samples = cases.map(() => [] as number[]);
    for (let round = 0; round < ROUNDS; round += 1) {
      cases.forEach(([, args], index) => samples[index]!.push(timeOnce(args)));
    }
    const base = median(samples[0]!);
    const rows = cases.map(([name], index) => {
      const ms = median(samples[index]!);
      const ratio = ms / base;
      return [name, ms.toFixed(0), index === 0 ? '1.00' : ratio.toFixed(2), index === 0 ? '' : `≤ ${GOAL_RATIO}×`, index === 0 ? '' : verdict(ratio <= GOAL_RATIO)];
    });
    printTable(`start-up, median of ${ROUNDS} interleaved rounds (wall time, ms)`, ['command', 'ms', 'ratio', 'goal', ''], rows);
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}

function timeOnce(args: readonly string[]): number {
  const started = performance.now();
  const result = spawnSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
  const took = performance.now() - started;
  if (result.status !== 0) throw new Error(`${args.join(' ')} exited with ${result.status}: ${result.stderr.toString()}`);
  return took;
}

/** A run with a two-node plan loaded from a plan document, so `log` and `show` have something to print. */
async function planFromDocument(workspace: string): Promise<string> {
  const plan = {
    goal: 'Say hello twice',
    nodes: [
      { id: 'first', title: 'Write hello.txt', kind: 'edit', instructions: 'Write hello.txt', writes: ['hello.txt'] },
      { id: 'second', title: 'Write bye.txt', kind: 'edit', instructions: 'Write bye.txt', writes: ['bye.txt'], dependsOn: ['first'] },
    ],
  };
  writeFileSync(join(workspace, 'plan.json'), JSON.stringify(plan));
  const result = spawnSync(process.execPath, [BIN, '-w', workspace, '--json', 'plan', '--from', join(workspace, 'plan.json')], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`plan --from failed: ${result.stderr}`);
  return (JSON.parse(result.stdout) as { runId: string }).runId;
}
