import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { EventLog, FileSnapshots, Session, createRun, openDatabase, type ToolResult } from '../../engine/index.js';
import { createNonInteractiveApprover, createToolRuntime, detectConfinement, type CommandConfinement } from '../../tools/index.js';
import { median } from './table.js';

/** Per node, in ms: what a command node costs outside the command, part by part, and the command itself. */
export interface CommandNodeParts {
  /** `beginNode` + `endNode`: the boundary before and the changes after. */
  readonly snapshot: number;
  /** The node's own appends: node/started, node/snapshotted, user/message, tool/result, node/succeeded. */
  readonly log: number;
  /** What the node is given before its command runs: its surface over the log (`Session.open`) and the hand-off of its dependency (worded as the run controller does). */
  readonly context: number;
  /** `run_command` through the tool runtime: checks, the `tool/call` event, the process (in the OS sandbox when there is one) and its output. */
  readonly command: number;
  /** The same command spawned bare (`sh -c`, no runtime, no sandbox, in a folder outside the workspace), for reference. */
  readonly bareSpawn: number;
  /** Where the command ran: `bubblewrap` or `unconfined`. */
  readonly confinement: string;
  /** Every node found the file its command changed. */
  readonly captured: boolean;
}

/**
 * A chain of `nodes` command nodes on `repository`, each appending a line to a file
 * (`echo N >> notes/log-K.txt`, no declared writes), through the pieces the run controller uses
 * for a command node, in its order: the `node/started` event, the snapshot boundary, the
 * `node/snapshotted` marker, the node's surface and hand-off, the instruction, `run_command`
 * through the tool runtime (in the OS sandbox when the machine has one), its result, the
 * changes since the boundary and `node/succeeded`. Each part is timed on its own.
 */
export async function measureCommandNodes(repository: string, nodes: number): Promise<CommandNodeParts> {
  const outside = mkdtempSync(join(tmpdir(), 'dagent-bench-bare-'));
  const store = await openDatabase(join(repository, '.dagent', 'bench-command-nodes.db'));
  const run = await createRun(store.db, { task: 'bench', workspace: repository, mode: 'plan' });
  const log = new EventLog(store.db, run.id);
  const snapshots = new FileSnapshots({ db: store.db, runId: run.id, workspace: repository });
  const detected = detectConfinement();
  const confinement: CommandConfinement = detected.kind === 'sandbox' ? detected : { kind: 'disabled' };
  const tools = createToolRuntime({ runCommand: { env: process.env, confinement } });
  const approver = createNonInteractiveApprover();
  const parts = { snapshot: [] as number[], log: [] as number[], context: [] as number[], command: [] as number[], bareSpawn: [] as number[] };
  let captured = true;
  /** Each node's hand-off from the node before it (a chain: one dependency each). */
  const handoffs: string[][] = [];
  const timed = async <T>(work: () => Promise<T>, into: { ms: number }): Promise<T> => {
    const started = performance.now();
    try {
      return await work();
    } finally {
      into.ms += performance.now() - started;
    }
  };
  try {
    // The run's first boundary starts the watch and takes the base tree: once per run, not per node.
    await snapshots.beginNode('setup', []);
    let previous: { readonly nodeId: string; readonly result: string; readonly filesChanged: readonly string[] } | undefined;
    for (let index = 0; index < nodes; index += 1) {
      const nodeId = `c${index}`;
      const file = `notes/command-${index % 3}.txt`;
      const command = `mkdir -p notes && echo ${index} >> ${file}`;
      const spent = { snapshot: { ms: 0 }, log: { ms: 0 }, context: { ms: 0 }, command: { ms: 0 } };
      await timed(() => log.append({ type: 'node/started', nodeId, payload: { attempt: 1 } }), spent.log);
      const boundary = await timed(() => snapshots.beginNode(nodeId, []), spent.snapshot);
      const marker = await timed(() => log.append({ type: 'node/snapshotted', nodeId, turn: 1, payload: { attempt: 1, boundary } }), spent.log);
      const session = await timed(async () => {
        const opened = await Session.open(log, nodeId, { fromSeq: marker.seq });
        handoffs.push(previous === undefined ? [] : [`Result of ${previous.nodeId}:\n${previous.result}\nFiles changed: ${previous.filesChanged.join(', ')}`]);
        return opened;
      }, spent.context);
      try {
        const position = { turn: 1, step: 1 };
        await timed(() => session.append({ type: 'user/message', ...position, step: 0, payload: { content: `Run \`${command}\` in the workspace.`, source: 'instruction' } }), spent.log);
        const call = { id: `${nodeId}-attempt-1`, name: 'run_command', args: { command } };
        const result: ToolResult = await timed(
          () =>
            tools.execute(call, {
              runId: run.id,
              nodeId,
              workspace: repository,
              signal: new AbortController().signal,
              position,
              session,
              approver,
              writeScope: snapshots.writeScopeFor(nodeId, []),
              allowedTools: ['run_command'],
              planGrant: { command },
            }),
          spent.command,
        );
        if (result.isError) throw new Error(`${command} failed in the benchmark: ${result.content}`);
        await timed(() => session.append({ type: 'tool/result', ...position, payload: { toolCallId: call.id, name: call.name, content: result.content, isError: false, meta: { ...result.meta, args: call.args } } }), spent.log);
        const end = await timed(() => snapshots.endNode(nodeId, [], boundary), spent.snapshot);
        if (!end.filesChanged.includes(file)) captured = false;
        await timed(() => log.append({ type: 'node/succeeded', nodeId, payload: { result: result.content, filesChanged: [...end.filesChanged] } }), spent.log);
        previous = { nodeId, result: result.content, filesChanged: end.filesChanged };
      } finally {
        session.close();
      }
      parts.snapshot.push(spent.snapshot.ms);
      parts.log.push(spent.log.ms);
      parts.context.push(spent.context.ms);
      parts.command.push(spent.command.ms);
      const bare = performance.now();
      await spawnBare(outside, `mkdir -p notes && echo ${index} >> notes/bare.txt`);
      parts.bareSpawn.push(performance.now() - bare);
    }
  } finally {
    await snapshots.close();
    await store.close();
    if (confinement.kind === 'sandbox') await confinement.sandbox.close();
    rmSync(outside, { recursive: true, force: true });
  }
  return {
    snapshot: median(parts.snapshot),
    log: median(parts.log),
    context: median(parts.context),
    command: median(parts.command),
    bareSpawn: median(parts.bareSpawn),
    confinement: confinement.kind === 'sandbox' ? confinement.sandbox.kind : 'unconfined',
    captured,
  };
}

function spawnBare(cwd: string, command: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', command], { cwd, stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${command} exited ${code}`))));
  });
}
