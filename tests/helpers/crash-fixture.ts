import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Plan, PlanNode } from '../../engine/index.js';
import type { ScriptedModelScript } from '../../engine/model/scripted-script.js';

/**
 * The fixture of the crash test: a workspace of small text files, a 30-node plan over it and the
 * scripted model file that carries the plan out with the real tools. Generated in code, so the
 * plan, the script and the expected final contents cannot drift apart.
 *
 * The plan is a layered DAG with parallel branches:
 *
 *   survey ─┬─ e01…e12 (edit src/fNN.txt) ─┬─ midread (after e01–e04) ─ x01 ─ grow-g1 ─┐
 *           │                              ├─ x01…x06 (edit src/f01–f06 again)      ├─ final-read ─ check
 *           │                              └─ y13…y16 (edit src/f13–f16, fan-in)     │
 *           └─ make-g1, make-g2 (create gen/gN.txt) ── grow-g1, grow-g2 ────────────┘
 *
 * Every edit adds a line next to an anchor (`edit_file` with exact strings), so an edit applied
 * twice leaves a duplicate line, and the second edit of a file (xNN after eNN, grow-gN after
 * make-gN) only matches after the first one: a node that ran twice without its files restored,
 * or out of order, shows in the final contents. The last node runs `node check.mjs`, which
 * compares every file with the expected contents and exits 1 on any difference.
 */

export const CRASH_FILE_COUNT = 24;
export const CRASH_PLAN_FILE = 'crash-plan.json';
export const CRASH_SCRIPT_FILE = 'crash-script.json';

export interface CrashFixture {
  readonly plan: Plan;
  readonly script: ScriptedModelScript;
  /** The workspace before the run: workspace-relative path → content. */
  readonly initialFiles: ReadonlyMap<string, string>;
  /** The workspace after a successful run (check.mjs included). */
  readonly expectedFiles: ReadonlyMap<string, string>;
}

type Turn = ScriptedModelScript['agents'][string][number];

const two = (index: number): string => String(index).padStart(2, '0');
const sourcePath = (index: number): string => `src/f${two(index)}.txt`;

function initialSource(index: number): string {
  const id = two(index);
  return `# file ${id}\nalpha ${id}\nbeta ${id}\ngamma ${id}\nomega ${id}\n`;
}

/** A small PRNG (mulberry32): the fixture's latencies are the same on every machine. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

interface NodeSpec {
  readonly node: PlanNode;
  /** The turns without latencies; the last one is the answer. */
  readonly turns: readonly Turn[];
}

function node(fields: Pick<PlanNode, 'id' | 'kind' | 'title'> & Partial<PlanNode>): PlanNode {
  return { instructions: fields.title, reads: [], writes: [], dependsOn: [], ...fields };
}

const call = (id: string, name: string, args: Record<string, unknown>): NonNullable<Turn['toolCalls']>[number] => ({ id, name, args });

/** Builds the fixture. The latencies (20–80 ms per turn) come from a fixed seed. */
export function createCrashFixture(): CrashFixture {
  const files = new Map<string, string>();
  for (let index = 1; index <= CRASH_FILE_COUNT; index += 1) files.set(sourcePath(index), initialSource(index));
  files.set('README.txt', 'A workspace for the crash test of dagent: every node edits a line or two.\n');
  const initialFiles = new Map(files);
  const specs: NodeSpec[] = [];
  /** Applies an edit to the expected contents, as `edit_file` would (the anchor must occur once). */
  const edit = (path: string, oldString: string, newString: string): void => {
    const before = files.get(path);
    if (before === undefined || before.split(oldString).length !== 2) throw new Error(`fixture: ${JSON.stringify(oldString)} does not occur once in ${path}`);
    files.set(path, before.replace(oldString, newString));
  };

  specs.push({
    node: node({ id: 'survey', kind: 'read', title: 'Survey the source files', reads: ['src/**', 'README.txt'] }),
    turns: [
      { toolCalls: [call('survey-1', 'list_files', { path: 'src' }), call('survey-2', 'read_file', { path: 'README.txt' })] },
      { text: `src/ holds ${CRASH_FILE_COUNT} text files, each with the anchors alpha, beta, gamma and omega.` },
    ],
  });

  for (let index = 1; index <= 12; index += 1) {
    const id = two(index);
    const path = sourcePath(index);
    const oldString = `alpha ${id}\n`;
    const newString = `alpha ${id}\nstep e${id}\n`;
    edit(path, oldString, newString);
    specs.push({
      node: node({ id: `e${id}`, kind: 'edit', title: `Add step e${id} to ${path}`, reads: [path], writes: [path], dependsOn: ['survey'] }),
      turns: [
        { toolCalls: [call(`e${id}-1`, 'read_file', { path })] },
        { toolCalls: [call(`e${id}-2`, 'edit_file', { path, old_string: oldString, new_string: newString })] },
        { text: `Added "step e${id}" after alpha ${id} in ${path}.` },
      ],
    });
  }

  for (const k of [1, 2]) {
    const path = `gen/g${k}.txt`;
    files.set(path, `g${k} created\n`);
    specs.push({
      node: node({ id: `make-g${k}`, kind: 'edit', title: `Create ${path}`, writes: [path], dependsOn: ['survey'] }),
      turns: [{ toolCalls: [call(`make-g${k}-1`, 'write_file', { path, content: `g${k} created\n` })] }, { text: `Created ${path}.` }],
    });
  }

  const midReads = [1, 2, 3, 4].map(sourcePath);
  specs.push({
    node: node({ id: 'midread', kind: 'read', title: 'Read the first four edited files', reads: midReads, dependsOn: ['e01', 'e02', 'e03', 'e04'] }),
    turns: [{ toolCalls: midReads.map((path, position) => call(`midread-${position + 1}`, 'read_file', { path })) }, { text: 'Steps e01 to e04 are in place.' }],
  });

  for (let index = 1; index <= 6; index += 1) {
    const id = two(index);
    const path = sourcePath(index);
    // The first edit only matches after eNN. Its turn also reads another file, so a kill can land
    // between two calls of one batch. (Two edits of one file stay in separate turns: the calls of
    // a batch run in parallel.)
    edit(path, `step e${id}\n`, `step e${id}\nstep x${id}\n`);
    edit(path, `omega ${id}\n`, `omega ${id}\nclosed by x${id}\n`);
    specs.push({
      node: node({
        id: `x${id}`,
        kind: 'edit',
        title: `Add step x${id} after step e${id} in ${path}`,
        reads: [path],
        writes: [path],
        dependsOn: index === 1 ? [`e${id}`, 'midread'] : [`e${id}`],
      }),
      turns: [
        { toolCalls: [call(`x${id}-1`, 'read_file', { path })] },
        { toolCalls: [call(`x${id}-2`, 'edit_file', { path, old_string: `step e${id}\n`, new_string: `step e${id}\nstep x${id}\n` }), call(`x${id}-3`, 'read_file', { path: 'README.txt' })] },
        { toolCalls: [call(`x${id}-4`, 'edit_file', { path, old_string: `omega ${id}\n`, new_string: `omega ${id}\nclosed by x${id}\n` })] },
        { text: `Added step x${id} and the closing line in ${path}.` },
      ],
    });
  }

  for (const k of [1, 2]) {
    const path = `gen/g${k}.txt`;
    edit(path, `g${k} created\n`, `g${k} created\ng${k} grown\n`);
    specs.push({
      node: node({ id: `grow-g${k}`, kind: 'edit', title: `Append to ${path}`, reads: [path], writes: [path], dependsOn: [`make-g${k}`, `x0${k}`] }),
      turns: [
        { toolCalls: [call(`grow-g${k}-1`, 'read_file', { path })] },
        { toolCalls: [call(`grow-g${k}-2`, 'edit_file', { path, old_string: `g${k} created\n`, new_string: `g${k} created\ng${k} grown\n` })] },
        { text: `Appended "g${k} grown" to ${path}.` },
      ],
    });
  }

  const fanIn: Record<number, string[]> = { 13: ['x03', 'e07'], 14: ['x04', 'e08'], 15: ['x05', 'e09', 'e10'], 16: ['x06', 'e11', 'e12'] };
  for (const [indexText, dependsOn] of Object.entries(fanIn)) {
    const index = Number(indexText);
    const id = two(index);
    const path = sourcePath(index);
    edit(path, `gamma ${id}\n`, `gamma ${id}\nstep y${id}\n`);
    specs.push({
      node: node({ id: `y${id}`, kind: 'edit', title: `Add step y${id} to ${path}`, reads: [path], writes: [path], dependsOn }),
      turns: [
        { toolCalls: [call(`y${id}-1`, 'read_file', { path })] },
        { toolCalls: [call(`y${id}-2`, 'edit_file', { path, old_string: `gamma ${id}\n`, new_string: `gamma ${id}\nstep y${id}\n` })] },
        { text: `Added step y${id} in ${path}.` },
      ],
    });
  }

  specs.push({
    node: node({ id: 'final-read', kind: 'read', title: 'Read the generated files', reads: ['gen/*.txt'], dependsOn: ['grow-g1', 'grow-g2', 'y13', 'y14', 'y15', 'y16'] }),
    turns: [
      { toolCalls: [call('final-read-1', 'read_file', { path: 'gen/g1.txt' }), call('final-read-2', 'read_file', { path: 'gen/g2.txt' })] },
      { text: 'Both generated files hold their two lines.' },
    ],
  });

  const expectedBeforeCheck = new Map(files);
  const checkScript = checkScriptText(expectedBeforeCheck);
  initialFiles.set('check.mjs', checkScript);
  files.set('check.mjs', checkScript);
  const commandNode = node({ id: 'check', kind: 'command', title: 'Check every file', command: 'node check.mjs', dependsOn: ['final-read'] });

  const random = seededRandom(20_260_401);
  const agents: Record<string, Turn[]> = {};
  for (const spec of specs) agents[`node:${spec.node.id}`] = spec.turns.map((turn) => ({ ...turn, latencyMs: 20 + Math.floor(random() * 61) }));
  const plan: Plan = {
    goal: 'Add the step lines of the crash test to every file',
    rationale: 'A layered DAG with parallel branches; second edits of a file wait for the first.',
    nodes: [...specs.map((spec) => spec.node), commandNode],
  };
  return { plan, script: { description: 'The crash test of dagent: each node reads its file, edits it, answers.', contextWindow: 200_000, agents }, initialFiles, expectedFiles: files };
}

/** check.mjs: compares the workspace (src/, gen/, README.txt) with the expected contents; exit 1 on any difference. */
function checkScriptText(expected: ReadonlyMap<string, string>): string {
  const table = JSON.stringify(Object.fromEntries([...expected].sort(([a], [b]) => (a < b ? -1 : 1))), null, 1);
  return `// Generated by the crash test: the expected contents after every node ran exactly once.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
const expected = ${table};
const problems = [];
for (const [path, content] of Object.entries(expected)) {
  const actual = existsSync(path) ? readFileSync(path, 'utf8') : undefined;
  if (actual !== content) problems.push(path + ': expected ' + JSON.stringify(content) + ', found ' + JSON.stringify(actual));
}
for (const folder of ['src', 'gen']) {
  for (const name of existsSync(folder) ? readdirSync(folder) : []) {
    if (!(folder + '/' + name in expected)) problems.push(folder + '/' + name + ': unexpected file');
  }
}
if (problems.length > 0) {
  console.error(problems.join('\\n'));
  process.exit(1);
}
console.log('all ' + Object.keys(expected).length + ' files as expected');
`;
}

/** Writes the workspace before the run into `workspace`. */
export function writeCrashWorkspace(fixture: CrashFixture, workspace: string): void {
  for (const [path, content] of fixture.initialFiles) {
    const target = join(workspace, path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, content);
  }
}

/** Writes the plan document and the scripted model file into `into` (outside any workspace). */
export function writeCrashPlanAndScript(fixture: CrashFixture, into: string): { planFile: string; scriptFile: string } {
  mkdirSync(into, { recursive: true });
  const planFile = join(into, CRASH_PLAN_FILE);
  const scriptFile = join(into, CRASH_SCRIPT_FILE);
  writeFileSync(planFile, `${JSON.stringify(fixture.plan, null, 2)}\n`);
  writeFileSync(scriptFile, `${JSON.stringify(fixture.script, null, 2)}\n`);
  return { planFile, scriptFile };
}
