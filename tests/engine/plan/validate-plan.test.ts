import { describe, expect, it } from 'vitest';
import { PlanInvalidError, type PlanIssue } from '../../../engine/index.js';
import { assertValidPlan, validatePlan } from '../../../engine/plan/validate-plan.js';
import { node, rawPlan, refactorPlan } from './plan-fixtures.js';
import PROTECTED_WRITE_GLOBS from './protected-write-globs.json' with { type: 'json' };

describe('validatePlan', () => {
  it('accepts the canonical refactor shape', () => {
    expect(validatePlan(refactorPlan())).toEqual([]);
  });

  const cases: { name: string; nodes: Parameters<typeof rawPlan>[0]; issues: PlanIssue[] }[] = [
    {
      name: 'a duplicate id',
      nodes: [node('edit-a', 'edit'), node('read-a', 'read'), node('edit-a', 'agent')],
      issues: [{ code: 'duplicate-id', nodeId: 'edit-a', message: 'nodes[2] (edit-a).id: "edit-a" is already the id of nodes[0]; ids must be unique' }],
    },
    {
      name: 'an unknown dependency',
      nodes: [node('edit-a', 'edit'), node('read-b', 'read'), node('edit-b', 'edit', { dependsOn: ['edit-a', 'edit-z'] })],
      issues: [{ code: 'unknown-dependency', nodeId: 'edit-b', message: 'nodes[2] (edit-b).dependsOn: unknown node "edit-z"' }],
    },
    {
      name: 'a self-dependency',
      nodes: [node('edit-a', 'edit', { dependsOn: ['edit-a'] })],
      issues: [{ code: 'self-dependency', nodeId: 'edit-a', message: 'nodes[0] (edit-a).dependsOn: a node cannot depend on itself' }],
    },
    {
      name: 'a command node without a command',
      nodes: [node('edit-a', 'edit'), node('test', 'command', { dependsOn: ['edit-a'] })],
      issues: [{ code: 'missing-command', nodeId: 'test', message: 'nodes[1] (test).command: a command node needs the command to run (e.g. "npm test")' }],
    },
    {
      name: 'a blank command',
      nodes: [node('test', 'command', { command: '  ' })],
      issues: [{ code: 'missing-command', nodeId: 'test', message: 'nodes[0] (test).command: a command node needs the command to run (e.g. "npm test")' }],
    },
    {
      name: 'a command node marked simple (it runs no model to route)',
      nodes: [node('test', 'command', { command: 'npm test', simple: true })],
      issues: [{ code: 'simple-without-model', nodeId: 'test', message: 'nodes[0] (test).simple: marks work for the small model (config `smallModel`), and a command node runs no model; remove it' }],
    },
    {
      name: 'a two-node cycle',
      nodes: [node('a', 'edit', { dependsOn: ['b'] }), node('b', 'edit', { dependsOn: ['a'] })],
      issues: [{ code: 'cycle', nodeId: 'a', message: 'dependency cycle a → b → a: each node waits for the one before it, so none can start; remove one of these dependencies' }],
    },
    {
      name: 'two writers of one file that nothing orders',
      nodes: [node('read', 'read'), node('edit-b', 'edit', { writes: ['src/shape.ts'], dependsOn: ['read'] }), node('edit-c', 'edit', { writes: ['src/other.ts', 'src/shape.ts'], dependsOn: ['read'] })],
      issues: [
        {
          code: 'write-conflict',
          nodeId: 'edit-c',
          file: 'src/shape.ts',
          message: 'write conflict: edit-b and edit-c both write src/shape.ts and no dependency orders them; make one depend on the other',
        },
      ],
    },
    {
      name: 'a path inside another unordered writer’s glob',
      nodes: [node('edit-all', 'agent', { writes: ['src/**/*.ts'] }), node('edit-b', 'edit', { writes: ['src/shapes/b.ts'] })],
      issues: [
        {
          code: 'write-conflict',
          nodeId: 'edit-b',
          file: 'src/shapes/b.ts',
          message: "write conflict: edit-b writes src/shapes/b.ts, which edit-all's glob src/**/*.ts also covers, and no dependency orders them; make one depend on the other",
        },
      ],
    },
    {
      name: 'two unordered globs that can match the same files',
      nodes: [node('edit-src', 'agent', { writes: ['src/**'] }), node('edit-api', 'agent', { writes: ['src/api/*.ts'] })],
      issues: [
        {
          code: 'write-conflict',
          nodeId: 'edit-api',
          file: 'src/api/*.ts',
          message:
            'write conflict: edit-src writes src/** and edit-api writes src/api/*.ts; the globs can match the same files (paths starting with "src/api/") and no dependency orders them; make one depend on the other or narrow the globs',
        },
      ],
    },
  ];

  it.each(cases)('reports $name', ({ nodes, issues }) => {
    expect(validatePlan(rawPlan(nodes))).toEqual(issues);
  });

  it('names a longer cycle from its earliest node, in the order the nodes wait', () => {
    const plan = rawPlan([
      node('start', 'read'),
      node('b', 'edit', { dependsOn: ['a', 'start'] }),
      node('a', 'edit', { dependsOn: ['c'] }),
      node('c', 'edit', { dependsOn: ['b'] }),
      node('end', 'command', { command: 'npm test', dependsOn: ['c'] }),
    ]);
    const issues = validatePlan(plan);
    expect(issues.map((issue) => issue.message)).toEqual([
      'dependency cycle b → c → a → b: each node waits for the one before it, so none can start; remove one of these dependencies',
    ]);
  });

  it('names one cycle per tangle of nodes', () => {
    const plan = rawPlan([
      node('a', 'edit', { dependsOn: ['b'] }),
      node('b', 'edit', { dependsOn: ['a'] }),
      node('x', 'edit', { dependsOn: ['z'] }),
      node('y', 'edit', { dependsOn: ['x'] }),
      node('z', 'edit', { dependsOn: ['y', 'x'] }),
    ]);
    expect(validatePlan(plan).map((issue) => issue.message.split(':')[0])).toEqual(['dependency cycle a → b → a', 'dependency cycle x → z → x']);
  });

  it('accepts writers of one file that a path orders, even through other nodes', () => {
    const plan = rawPlan([
      node('edit-1', 'edit', { writes: ['src/shape.ts'] }),
      node('middle', 'read', { dependsOn: ['edit-1'] }),
      node('edit-2', 'edit', { writes: ['src/**/*.ts'], dependsOn: ['middle'] }),
    ]);
    expect(validatePlan(plan)).toEqual([]);
  });

  it('accepts unordered writers of disjoint globs', () => {
    const plan = rawPlan([
      node('styles', 'agent', { writes: ['src/**/*.css'] }),
      node('code', 'agent', { writes: ['src/**/*.ts'] }),
      node('docs', 'agent', { writes: ['docs/**'] }),
      node('one', 'edit', { writes: ['README.md'] }),
    ]);
    expect(validatePlan(plan)).toEqual([]);
  });

  it('reports every problem at once, grouped by kind', () => {
    const plan = rawPlan([
      node('a', 'edit', { writes: ['x.ts'], dependsOn: ['ghost'] }),
      node('a', 'edit'),
      node('b', 'edit', { writes: ['x.ts'], dependsOn: ['b'] }),
      node('t', 'command'),
    ]);
    expect(validatePlan(plan).map((issue) => issue.code)).toEqual(['duplicate-id', 'unknown-dependency', 'self-dependency', 'missing-command', 'write-conflict']);
  });

  it('assertValidPlan throws PlanInvalidError carrying the issues and naming the source', () => {
    const plan = rawPlan([node('a', 'edit', { dependsOn: ['b'] }), node('b', 'edit', { dependsOn: ['a', 'zz'] })]);
    let caught: unknown;
    try {
      assertValidPlan(plan, 'plan.json');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(PlanInvalidError);
    const error = caught as PlanInvalidError;
    expect(error.issues.map((issue) => issue.code)).toEqual(['unknown-dependency', 'cycle']);
    expect(error.exitCode).toBe(2);
    expect(error.message).toBe(
      [
        'plan.json: 2 problems in the plan:',
        '  nodes[1] (b).dependsOn: unknown node "zz"',
        '  dependency cycle a → b → a: each node waits for the one before it, so none can start; remove one of these dependencies',
      ].join('\n'),
    );
    expect(assertValidPlan(refactorPlan())).toEqual(refactorPlan());
  });

  it('refuses writes into .git/ and .dagent/, by path or by a dot-glob, and allows **', () => {
    const plan = rawPlan([
      node('hook', 'edit', { writes: ['.git/hooks/pre-commit'] }),
      node('state', 'edit', { writes: ['.Dagent/dagent.db'], dependsOn: ['hook'] }),
      node('dots', 'edit', { writes: ['.g*/config'], dependsOn: ['state'] }),
      node('all', 'edit', { writes: ['**', 'src/.gitkeep'], dependsOn: ['dots'] }),
    ]);
    const issues = validatePlan(plan).filter((issue) => issue.code === 'protected-write');
    expect(issues.map((issue) => [issue.nodeId, issue.file])).toEqual([
      ['hook', '.git/hooks/pre-commit'],
      ['state', '.Dagent/dagent.db'],
      ['dots', '.g*/config'],
    ]);
    expect(issues[0]!.message).toBe('nodes[0] (hook).writes: ".git/hooks/pre-commit" writes into .git/, which no node may change (the repository history)');
  });

  /** The protected-write issue of a one-node plan writing `write`, if any. */
  const protectedWrite = (write: string): PlanIssue | undefined => validatePlan(rawPlan([node('w', 'edit', { writes: [write] })])).find((issue) => issue.code === 'protected-write');

  it.each(PROTECTED_WRITE_GLOBS.refused)('refuses the glob %s, which can reach .git/ or .dagent/', (write) => {
    expect(protectedWrite(write)?.file).toBe(write);
  });

  it.each(PROTECTED_WRITE_GLOBS.allowed)('allows %s', (write) => {
    expect(protectedWrite(write)).toBeUndefined();
  });

  it('says why a glob with a "/" inside a group is refused and what to write instead', () => {
    expect(protectedWrite('{.git/config,src/a.ts}')?.message).toMatch(/cannot be checked against \.git\/ and \.dagent\/: list each path \(or glob\) as its own entry/);
  });
});
