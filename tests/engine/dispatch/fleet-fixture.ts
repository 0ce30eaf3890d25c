import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Plan, PlanNode } from '../../../engine/index.js';
import type { ScriptedModelScript } from '../../../engine/model/scripted-script.js';
import { seededRandom } from '../../helpers/crash-fixture.js';

/**
 * The fleet test's 60-node plan over 20 text files, generated with its scripted model and the
 * expected contents, so they cannot drift apart:
 *
 *   aNN (20, no dependencies) ─▶ bNN (after aNN and a(NN+1)) ─▶ cNN (after bNN and b(NN+1), 19) ─▶ check
 *
 * Every edit inserts a line after an anchor that only exists once the earlier edit of the file
 * is in place, so a node that ran twice, or before its dependency, leaves a visible difference;
 * `check` (a command node) compares every file and exits 1 on any.
 */

type Turn = ScriptedModelScript['agents'][string][number];

export interface FleetFixture {
  readonly plan: Plan;
  readonly script: ScriptedModelScript;
  readonly initialFiles: ReadonlyMap<string, string>;
  readonly expectedFiles: ReadonlyMap<string, string>;
}

export const FLEET_FILES = 20;
const two = (index: number): string => String(index).padStart(2, '0');
const pathOf = (index: number): string => `src/f${two(index)}.txt`;

export function createFleetFixture(): FleetFixture {
  const files = new Map<string, string>();
  for (let index = 1; index <= FLEET_FILES; index += 1) files.set(pathOf(index), `# file ${two(index)}\nalpha ${two(index)}\nomega ${two(index)}\n`);
  const initialFiles = new Map(files);
  const nodes: PlanNode[] = [];
  const agents: Record<string, Turn[]> = {};
  const random = seededRandom(16_016);
  const add = (id: string, index: number, anchor: string, line: string, dependsOn: string[]): void => {
    const path = pathOf(index);
    const before = files.get(path)!;
    if (before.split(anchor).length !== 2) throw new Error(`fixture: ${anchor} is not once in ${path}`);
    files.set(path, before.replace(anchor, `${anchor}${line}`));
    nodes.push({ id, kind: 'edit', title: `Add "${line.trim()}" to ${path}`, instructions: `Insert the line after ${anchor.trim()}.`, reads: [path], writes: [path], dependsOn });
    agents[`node:${id}`] = [
      { toolCalls: [{ id: `${id}-1`, name: 'read_file', args: { path } }] },
      { toolCalls: [{ id: `${id}-2`, name: 'edit_file', args: { path, old_string: anchor, new_string: `${anchor}${line}` } }] },
      { text: `Added ${line.trim()} to ${path}.` },
    ].map((turn) => ({ ...turn, latencyMs: 20 + Math.floor(random() * 60) }));
  };
  for (let index = 1; index <= FLEET_FILES; index += 1) add(`a${two(index)}`, index, `alpha ${two(index)}\n`, `step a${two(index)}\n`, []);
  for (let index = 1; index <= FLEET_FILES; index += 1) add(`b${two(index)}`, index, `step a${two(index)}\n`, `step b${two(index)}\n`, [`a${two(index)}`, `a${two((index % FLEET_FILES) + 1)}`]);
  for (let index = 1; index < FLEET_FILES; index += 1) add(`c${two(index)}`, index, `omega ${two(index)}\n`, `closed by c${two(index)}\n`, [`b${two(index)}`, `b${two(index + 1)}`]);
  const check = checkScript(files);
  initialFiles.set('check.mjs', check);
  files.set('check.mjs', check);
  nodes.push({ id: 'check', kind: 'command', title: 'Check every file', instructions: 'Run the check.', command: 'node check.mjs', reads: [], writes: [], dependsOn: nodes.filter((node) => node.id.startsWith('c')).map((node) => node.id) });
  return {
    plan: { goal: 'Add the fleet test lines to every file', rationale: 'Three layers of edits, then a check.', nodes },
    script: { description: 'The fleet test of dagent.', contextWindow: 200_000, agents },
    initialFiles,
    expectedFiles: files,
  };
}

function checkScript(expected: ReadonlyMap<string, string>): string {
  const table = JSON.stringify(Object.fromEntries([...expected].sort(([a], [b]) => (a < b ? -1 : 1))));
  return `import { existsSync, readFileSync } from 'node:fs';
const expected = ${table};
const problems = Object.entries(expected).filter(([path, content]) => (existsSync(path) ? readFileSync(path, 'utf8') : undefined) !== content).map(([path]) => path);
if (problems.length > 0) { console.error('differ: ' + problems.join(', ')); process.exit(1); }
console.log('all ' + Object.keys(expected).length + ' files as expected');
`;
}

export function writeFleetWorkspace(fixture: FleetFixture, workspace: string): void {
  for (const [path, content] of fixture.initialFiles) {
    mkdirSync(dirname(join(workspace, path)), { recursive: true });
    writeFileSync(join(workspace, path), content);
  }
}

export function writeFleetPlanAndScript(fixture: FleetFixture, into: string): { planFile: string; scriptFile: string } {
  mkdirSync(into, { recursive: true });
  const planFile = join(into, 'fleet-plan.json');
  const scriptFile = join(into, 'fleet-script.json');
  writeFileSync(planFile, JSON.stringify(fixture.plan, null, 2));
  writeFileSync(scriptFile, JSON.stringify(fixture.script, null, 2));
  return { planFile, scriptFile };
}
