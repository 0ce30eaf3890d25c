import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plan, PlanNode } from '../../engine/index.js';
import type { Workload } from './scheduler-workloads.js';

export const DAGENT_BIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'bin', 'dagent.js');

/** A workload as a plan document and scripted model: each node is one model turn lasting its latency. */
export function planOf(workload: Workload): { plan: Plan; script: unknown } {
  const nodes: PlanNode[] = workload.nodes.map((node) => ({
    id: node.id,
    kind: node.writes.length > 0 ? 'edit' : 'read',
    title: `node ${node.id}`,
    instructions: 'answer',
    reads: [],
    writes: [...node.writes],
    dependsOn: [...node.dependsOn],
  }));
  // A node that declares writes must change a file (an edit that changes nothing fails): its one
  // timed turn writes its file, and a second, instant turn answers.
  const turnsOf = (node: Workload['nodes'][number]): unknown[] => {
    const latencyMs = workload.latencyMs.get(node.id) ?? 0;
    if (node.writes.length === 0) return [{ text: `${node.id} done`, latencyMs }];
    return [{ toolCalls: [{ id: `${node.id}-write`, name: 'write_file', args: { path: node.writes[0], content: `// ${node.id}\n` } }], latencyMs }, { text: `${node.id} done` }];
  };
  const agents = Object.fromEntries(workload.nodes.map((node) => [`node:${node.id}`, turnsOf(node)]));
  return { plan: { goal: `bench ${workload.name}`, rationale: 'bench', nodes }, script: { description: 'workers bench', contextWindow: 200_000, agents } };
}

/** How the `dagent` child runs: node's own flags before the script (`--import`, `--cpu-prof`), and more environment. */
export interface DagentProcessOptions {
  readonly nodeArgs?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
}

/** Runs `dagent ARGS` in `cwd`; resolves to its stdout, rejects with the end of its stderr. */
export function dagent(args: readonly string[], cwd: string, options: DagentProcessOptions = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const env = options.env === undefined ? process.env : { ...process.env, ...options.env };
    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), DAGENT_BIN, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.once('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`dagent ${args[0]} exited ${code}: ${err.slice(-500)}`))));
  });
}
