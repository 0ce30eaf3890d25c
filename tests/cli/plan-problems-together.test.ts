import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawnCli } from '../helpers/crash-process.js';
import { tempDir } from '../helpers/temp-store.js';

/**
 * Ana hand-writes a plan with a misspelt field, an empty title, a dependency on a node that does
 * not exist, a command node with no command and a cycle: one `plan --from` lists every problem,
 * the schema's and the graph's, so one round of edits fixes them all.
 */
let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir('dagent-plan-problems-')));
afterEach(() => cleanup());

const PLAN = {
  goal: 'Rename Invoice.total',
  nodes: [
    { id: 'a', kind: 'edit', title: 'A', writes: ['src/a.ts'], dependsOn: ['b'], depends_on: ['x'] },
    { id: 'b', kind: 'edit', title: 'B', writes: ['src/b.ts'], dependsOn: ['a', 'ghost'] },
    { id: 't', kind: 'command', title: '', dependsOn: ['a'] },
  ],
};

describe('plan --from a document with problems of both kinds', () => {
  it('lists the schema errors and the graph errors in one listing', async () => {
    writeFileSync(join(dir, 'plan.json'), JSON.stringify(PLAN));
    const result = await spawnCli(['plan', '--from', 'plan.json'], dir, { env: { HOME: join(dir, 'home') } }).exited;
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'dagent: plan.json: 5 problems in the plan:\n' +
        '  nodes[0] (a): unknown field "depends_on" (did you mean "dependsOn"?)\n' +
        '  nodes[2] (t).title: must not be empty\n' +
        '  nodes[1] (b).dependsOn: unknown node "ghost"\n' +
        '  nodes[2] (t).command: a command node needs the command to run (e.g. "npm test")\n' +
        '  dependency cycle a → b → a: each node waits for the one before it, so none can start; remove one of these dependencies\n',
    );
  }, 30_000);
});
