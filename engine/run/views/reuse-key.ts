import { canonicalJson, contentHash } from '../../canonical-json.js';
import type { Plan, PlanNode } from '../../plan/plan-schema.js';

/** What a node's result depends on (SPEC of reuse): the parts of its key, each a content hash. */
export interface NodeInputs {
  /** The node's specification as the model or the command sees it (goal, kind, instructions, files, tools, role, command…). */
  readonly spec: string;
  /** `provider:model` of a node that calls a model; null for a command. */
  readonly model: string | null;
  /** Each dependency's result (answer and files changed), hashed. */
  readonly dependencies: Readonly<Record<string, string>>;
  /** Each file the node read (path → content hash when the node began; `absent` when there was none). */
  readonly files: Readonly<Record<string, string>>;
}

/** The reuse key: one content hash over all the inputs. Equal keys, equal inputs. */
export function reuseKey(inputs: NodeInputs): string {
  return contentHash(canonicalJson(inputs));
}

/** The hash of a node's specification: every field but its id and estimate, with the plan's goal the prompt names. */
export function specHash(plan: Plan, node: PlanNode): string {
  const { id: _id, estimate: _estimate, dependsOn, ...spec } = node;
  return contentHash(canonicalJson({ goal: plan.goal, dependsOn: [...dependsOn].sort(), ...spec }));
}

/**
 * What a node's work is, for whether an attempt of it can go on under another plan version: its
 * specification (`specHash`) but for its budget (raising a budget the node reached must not start
 * it over), and the same of every node it depends on, directly or not (a dependency whose work
 * changed hands it another result). Per node id of `plan`. Pure.
 */
export function workHashes(plan: Plan): Map<string, string> {
  const byId = new Map(plan.nodes.map((node) => [node.id, node]));
  const hashes = new Map<string, string>();
  const hashOf = (id: string, seen: ReadonlySet<string>): string => {
    const known = hashes.get(id);
    if (known !== undefined) return known;
    const node = byId.get(id);
    // An unknown dependency (or a cycle, which a stored plan never has) hashes as its id alone.
    if (node === undefined || seen.has(id)) return id;
    const { budget: _budget, ...rest } = node;
    const within = new Set([...seen, id]);
    const hash = contentHash(canonicalJson({ spec: specHash(plan, rest), dependencies: [...node.dependsOn].sort().map((dependency) => hashOf(dependency, within)) }));
    hashes.set(id, hash);
    return hash;
  };
  for (const node of plan.nodes) hashOf(node.id, new Set());
  return hashes;
}

type NodeResultRecord = { readonly result: string; readonly filesChanged: readonly string[] };

/** A dependency's result as a hash: its answer and the files it changed. Kept per record: every dependent of a node hashes the same one. */
export function resultHash(result: NodeResultRecord): string {
  const known = resultHashes.get(result);
  if (known !== undefined && known.answer === result.result && known.filesChanged === result.filesChanged) return known.hash;
  const hash = contentHash(canonicalJson({ answer: result.result, filesChanged: [...result.filesChanged].sort() }));
  resultHashes.set(result, { answer: result.result, filesChanged: result.filesChanged, hash });
  return hash;
}

/** Each record's hash with the fields it was taken of (a record given other fields is hashed again). */
const resultHashes = new WeakMap<NodeResultRecord, { readonly answer: string; readonly filesChanged: readonly string[]; readonly hash: string }>();

/** Why two sets of inputs differ, the first difference in words; undefined when they are the same. Pure. */
export function inputsDifference(recorded: NodeInputs, now: NodeInputs): string | undefined {
  if (recorded.spec !== now.spec) return 'its specification changed';
  if (recorded.model !== now.model) return `its model changed (${recorded.model ?? 'none'} → ${now.model ?? 'none'})`;
  for (const id of new Set([...Object.keys(recorded.dependencies), ...Object.keys(now.dependencies)])) {
    const before = recorded.dependencies[id];
    const after = now.dependencies[id];
    if (before === after) continue;
    if (before === undefined) return `it depends on ${id} now`;
    if (after === undefined) return `it no longer depends on ${id}`;
    return `the result of ${id} changed`;
  }
  for (const path of new Set([...Object.keys(recorded.files), ...Object.keys(now.files)])) {
    if (recorded.files[path] !== now.files[path]) return `${path} changed since it read it`;
  }
  return undefined;
}
