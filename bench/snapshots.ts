import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { EventLog, FileSnapshots, createRun, openDatabase } from '../engine/index.js';
import { measureCommandNodes, type CommandNodeParts } from './lib/command-node-overhead.js';
import { median, printTable, verdict } from './lib/table.js';

/** `DAGENT_BENCH_SIZES=10,20000` measures other sizes (the first is the small one). */
const REPOSITORY_SIZES = (process.env.DAGENT_BENCH_SIZES?.split(',').map(Number) ?? [10, 20_000, 100_000]) as readonly number[];
const CHAIN_NODES = 10;
const RATIO_GOAL = 2;
const OVERHEAD_GOAL_MS = 10;

interface ChainMeasure {
  /** Per node: beginNode + endNode, in ms. */
  readonly snapshotMs: readonly number[];
  /** The run's one-time cost: the first boundary (workspace watch and base tree). */
  readonly setupMs: number;
  /** Every node found the file its command changed (outside any declared write). */
  readonly captured: boolean;
}

/**
 * File snapshot benchmark: a chain of ten one-line command nodes (`echo N >> notes/log-K.txt`,
 * declared writes: none) on generated git repositories of 10, 20 000 and 100 000 files; per node
 * the snapshot cost (boundary before, changes after), with the workspace watched (the default)
 * and scanned (every boundary stages the whole working copy, as before). Then (c) where a command
 * node's time outside the model and the command goes (snapshot, log, context) and what its
 * command costs, through the pieces the run controller uses.
 */
export async function runSnapshotsBench(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'dagent-bench-snapshots-'));
  try {
    const rows: string[][] = [];
    const watched = new Map<number, ChainMeasure>();
    for (const size of REPOSITORY_SIZES) {
      const repository = join(root, `repo-${size}`);
      const started = performance.now();
      generateRepository(repository, size);
      const generatedMs = performance.now() - started;
      // The first chain of the process pays for loading and warming the code: measured on the small repository and dropped.
      if (size === REPOSITORY_SIZES[0]) await measureChain(repository, true);
      const watch = await measureChain(repository, true);
      watched.set(size, watch);
      const scan = size > 20_000 ? undefined : await measureChain(repository, false);
      rows.push([
        `${size.toLocaleString('en-US')} files`,
        `${(generatedMs / 1000).toFixed(1)} s`,
        median(watch.snapshotMs).toFixed(1),
        Math.max(...watch.snapshotMs).toFixed(1),
        watch.setupMs.toFixed(0),
        scan === undefined ? 'skipped' : median(scan.snapshotMs).toFixed(1),
        watch.captured && (scan?.captured ?? true) ? 'all' : 'MISSED',
      ]);
      rmSync(repository, { recursive: true, force: true });
    }
    printTable(
      `(a) snapshot cost per node, a ${CHAIN_NODES}-node chain of one-line command nodes (ms; watched = default, scanned = whole working copy per boundary)`,
      ['repository', 'generated', 'watched p50', 'watched max', 'run setup', 'scanned p50', 'changes captured'],
      rows,
    );
    const small = median(watched.get(REPOSITORY_SIZES[0]!)!.snapshotMs);
    const large = median(watched.get(REPOSITORY_SIZES[REPOSITORY_SIZES.length - 1]!)!.snapshotMs);
    printTable(
      `(b) per-node snapshot cost (median), ${REPOSITORY_SIZES[REPOSITORY_SIZES.length - 1]} files / ${REPOSITORY_SIZES[0]} files`,
      ['ratio', 'goal', ''],
      [[(large / small).toFixed(2), `≤ ${RATIO_GOAL}`, verdict(large / small <= RATIO_GOAL)]],
    );
    // (c) on a fresh copy of the small repository, through the pieces the run controller uses for a command node.
    const smallRepository = join(root, 'repo-command-nodes');
    generateRepository(smallRepository, REPOSITORY_SIZES[0]!);
    await measureCommandNodes(smallRepository, 3);
    printCommandNodeParts(await measureCommandNodes(smallRepository, CHAIN_NODES));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

function printCommandNodeParts(parts: CommandNodeParts): void {
  const outside = parts.snapshot + parts.log + parts.context;
  printTable(
    `(c) a command node (echo >> a file) on the ${REPOSITORY_SIZES[0]}-file repository, ms per node (median of ${CHAIN_NODES}): the time outside the model and the command, and the command`,
    ['snapshot', 'log', 'context', 'outside (sum)', 'goal', '', `command: run_command (${parts.confinement})`, 'bare sh -c spawn', 'changes captured'],
    [
      [
        parts.snapshot.toFixed(1),
        parts.log.toFixed(1),
        parts.context.toFixed(1),
        outside.toFixed(1),
        `≤ ${OVERHEAD_GOAL_MS}`,
        verdict(outside <= OVERHEAD_GOAL_MS),
        parts.command.toFixed(1),
        parts.bareSpawn.toFixed(1),
        parts.captured ? 'all' : 'MISSED',
      ],
    ],
  );
  process.stdout.write(
    [
      'snapshot: beginNode + endNode. log: the node\'s appends (node/started, node/snapshotted, user/message, tool/result, node/succeeded).',
      'context: the node\'s surface over the log (Session.open) and its hand-off; a command node builds no model request (an agent node\'s request is measured by `bench -- cache`).',
      'command: run_command through the tool runtime — its checks and tool/call event, the process in the OS sandbox, its output: the command itself, not counted as overhead.',
      '',
    ].join('\n'),
  );
}

/** The chain on one repository: each node appends a line to its own file, outside any declared write. */
async function measureChain(repository: string, watch: boolean): Promise<ChainMeasure> {
  const store = await openDatabase(join(repository, '.dagent', `bench-${watch ? 'watch' : 'scan'}.db`));
  const run = await createRun(store.db, { task: 'bench', workspace: repository, mode: 'plan' });
  const log = new EventLog(store.db, run.id);
  const snapshots = new FileSnapshots({ db: store.db, runId: run.id, workspace: repository, watch });
  const snapshotMs: number[] = [];
  let setupMs = 0;
  let captured = true;
  try {
    // The run's first boundary starts the watch and takes the base tree: a once-per-run cost.
    const setupStarted = performance.now();
    await snapshots.beginNode('setup', []);
    setupMs = performance.now() - setupStarted;
    for (let index = 0; index < CHAIN_NODES; index += 1) {
      const nodeId = `n${index}`;
      const file = `notes/log-${index % 3}.txt`;
      await log.append({ type: 'node/started', nodeId, payload: { attempt: 1 } });
      let started = performance.now();
      const boundary = await snapshots.beginNode(nodeId, []);
      let snapshot = performance.now() - started;
      await log.append({ type: 'node/snapshotted', nodeId, payload: { attempt: 1, boundary } });
      await runCommand(repository, `mkdir -p notes && echo ${index} >> ${file}`);
      started = performance.now();
      const end = await snapshots.endNode(nodeId, [], boundary);
      snapshot += performance.now() - started;
      await log.append({ type: 'node/succeeded', nodeId, payload: { result: '', filesChanged: [...end.filesChanged] } });
      if (!end.filesChanged.includes(file)) captured = false;
      snapshotMs.push(snapshot);
    }
  } finally {
    await snapshots.close();
    await store.close();
  }
  return { snapshotMs, setupMs, captured };
}

function runCommand(cwd: string, command: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', command], { cwd, stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${command} exited ${code}`))));
  });
}

/**
 * A git repository of `files` small files in folders of 50 (`src/dNNN/sNN/fN.ts`), one commit:
 * blobs, tree and commit streamed through `git fast-import`, then checked out.
 */
export function generateRepository(path: string, files: number): void {
  const git = (args: readonly string[], input?: string): void => {
    const result = spawnSync('git', args, { cwd: path, input, env: { PATH: process.env.PATH, HOME: path, GIT_CONFIG_NOSYSTEM: '1' }, maxBuffer: 1 << 26 });
    if (result.status !== 0) throw new Error(`git ${args[0]} failed: ${result.stderr.toString()}`);
  };
  spawnSync('mkdir', ['-p', path]);
  git(['init', '-q', '-b', 'main']);
  const blobs = 64;
  const stream: string[] = [];
  for (let blob = 0; blob < blobs; blob += 1) {
    const data = `export const value${blob} = ${blob};\n`.repeat(1 + (blob % 8));
    stream.push(`blob\nmark :${blob + 1}\ndata ${Buffer.byteLength(data)}\n${data}\n`);
  }
  stream.push('commit refs/heads/main\ncommitter Bench <bench@example.com> 0 +0000\ndata 9\ngenerated\n');
  stream.push(`M 100644 inline .gitignore\ndata 8\n.dagent\n\n`);
  for (let index = 0; index < files; index += 1) {
    stream.push(`M 100644 :${(index % blobs) + 1} src/d${Math.floor(index / 1000)}/s${Math.floor(index / 50) % 20}/f${index}.ts\n`);
  }
  stream.push('\n');
  git(['fast-import', '--quiet'], stream.join(''));
  git(['checkout', '-q', '-f', 'main']);
}
