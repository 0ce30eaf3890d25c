import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Session } from '../engine/index.js';
import { WorkspaceGuard, createRunCommandTool, detectConfinement, type CommandConfinement, type Tool, type RunCommandArgs } from '../tools/index.js';
import { median, printTable, verdict } from './lib/table.js';

const COMMANDS_PER_KIND = 100;
const OVERHEAD_GOAL_MS = 15;
const KINDS = [
  { name: 'true', command: 'true' },
  { name: 'cat a file', command: 'cat README.md' },
  { name: 'node -e 0', command: 'node -e 0' },
] as const;

/**
 * The sandbox benchmark: wall time of 100 short commands of each kind through `run_command`,
 * unconfined and in the OS sandbox, interleaved so machine noise hits both alike; the
 * per-command overhead is the difference of the medians.
 */
export async function runSandboxBench(): Promise<void> {
  const sandboxed = detectConfinement();
  if (sandboxed.kind !== 'sandbox') {
    process.stdout.write(`no OS sandbox on this machine (${sandboxed.kind === 'unavailable' ? sandboxed.status.reason : 'disabled'}): nothing to measure\n`);
    return;
  }
  const workspace = realpathSync(mkdtempSync(join(tmpdir(), 'dagent-bench-sandbox-')));
  writeFileSync(join(workspace, 'README.md'), '# bench\n'.repeat(50));
  try {
    const guard = await WorkspaceGuard.open(workspace);
    const rows: string[][] = [];
    for (const kind of KINDS) {
      const plain = await timings(createRunCommandTool({ confinement: { kind: 'disabled' } }), guard, kind.command, sandboxed);
      rows.push(row(kind.name, plain));
    }
    printTable(
      `run_command wall time per command, ${COMMANDS_PER_KIND} of each kind (${sandboxed.sandbox.kind}); overhead = median in the sandbox − median unconfined`,
      ['command', 'unconfined ms', 'sandboxed ms', 'p90 sandboxed', 'overhead ms', 'goal', ''],
      rows,
    );
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}

interface Timings {
  readonly plain: number[];
  readonly sandboxed: number[];
}

async function timings(plainTool: Tool<RunCommandArgs>, guard: WorkspaceGuard, command: string, sandboxed: CommandConfinement): Promise<Timings> {
  const sandboxTool = createRunCommandTool({ confinement: sandboxed });
  const result: Timings = { plain: [], sandboxed: [] };
  for (let index = 0; index < COMMANDS_PER_KIND; index += 1) {
    result.plain.push(await timeOne(plainTool, guard, command));
    result.sandboxed.push(await timeOne(sandboxTool, guard, command));
  }
  return result;
}

async function timeOne(tool: Tool<RunCommandArgs>, guard: WorkspaceGuard, command: string): Promise<number> {
  const started = performance.now();
  const output = await tool.execute({ command }, {
    runId: 'bench',
    nodeId: null,
    toolCallId: 'bench',
    workspace: guard,
    signal: new AbortController().signal,
    position: { turn: 1, step: 1 },
    session: undefined as unknown as Session,
  });
  if (output.outcome !== 'ok') throw new Error(`${command} failed in the benchmark: ${output.content}`);
  return performance.now() - started;
}

function row(name: string, measured: Timings): string[] {
  const plain = median(measured.plain);
  const inside = median(measured.sandboxed);
  const sorted = [...measured.sandboxed].sort((a, b) => a - b);
  const overhead = inside - plain;
  return [name, plain.toFixed(1), inside.toFixed(1), sorted[Math.floor(sorted.length * 0.9)]!.toFixed(1), overhead.toFixed(1), `≤ ${OVERHEAD_GOAL_MS}`, verdict(overhead <= OVERHEAD_GOAL_MS)];
}
