import { describe, expect, it } from 'vitest';
import type { HookRunner } from '../../../../engine/hooks/hook-runner.js';
import type { PlanNode } from '../../../../engine/index.js';
import { ownWorkspacesAtOnce, readsOnly } from '../../../../engine/run/orchestration/reads-only.js';

/**
 * A node that cannot change a file shares a view of the run's files (`isolation: worktree`);
 * anything that could write, or a hook that runs in its workspace, gets the node its own.
 */

const RISK: Record<string, string> = { read_file: 'read', search: 'read', write_file: 'write', run_command: 'command' };
const DEFAULT_TOOLS: Record<string, string[] | undefined> = { read: ['read_file', 'search'], edit: undefined, agent: undefined, command: [] };

function runtime(hooks?: Partial<Record<string, string[]>>) {
  const runner = hooks === undefined ? undefined : ({ matches: (event: string, subject?: string) => (hooks[event] ?? []).includes(subject ?? '*') } as unknown as HookRunner);
  return {
    tools: { riskOf: (name: string) => RISK[name] } as never,
    defaultTools: (kind: string) => DEFAULT_TOOLS[kind],
    ...(runner === undefined ? {} : { hooks: runner }),
  };
}

const node = (fields: Partial<PlanNode>): PlanNode => ({ id: 'n', kind: 'read', title: 't', instructions: 'i', reads: [], writes: [], dependsOn: [], ...fields });

describe('whether a node only reads', () => {
  it('holds for a read node with its default tools, or any node whose named tools all read', () => {
    expect(readsOnly(runtime(), node({}))).toBe(true);
    expect(readsOnly(runtime(), node({ kind: 'agent', tools: ['search'] }))).toBe(true);
  });

  it('does not hold for a node with a tool that writes or runs commands, every tool, or no model', () => {
    expect(readsOnly(runtime(), node({ tools: ['read_file', 'write_file'] }))).toBe(false);
    expect(readsOnly(runtime(), node({ tools: ['run_command'] }))).toBe(false);
    expect(readsOnly(runtime(), node({ kind: 'edit' }))).toBe(false);
    expect(readsOnly(runtime(), node({ kind: 'command', command: 'npm test' }))).toBe(false);
    expect(readsOnly(runtime(), node({ tools: ['a_tool_nobody_knows'] }))).toBe(false);
  });

  it('does not hold when a hook would run in its workspace: at its start or end, or around one of its tools', () => {
    expect(readsOnly(runtime({ NodeStart: ['n'] }), node({}))).toBe(false);
    expect(readsOnly(runtime({ NodeEnd: ['n'] }), node({}))).toBe(false);
    expect(readsOnly(runtime({ PostToolUse: ['search'] }), node({}))).toBe(false);
    expect(readsOnly(runtime({ NodeStart: ['other'], PreToolUse: ['write_file'] }), node({}))).toBe(true);
  });
});

describe('how many nodes need a workspace of their own at once', () => {
  const plan = {
    goal: 'g',
    rationale: 'r',
    nodes: [
      node({ id: 'plan' }),
      ...['a', 'b', 'c'].map((id) => node({ id: `read-${id}`, dependsOn: ['plan'] })),
      node({ id: 'interface', kind: 'edit', writes: ['src/shape.ts'], dependsOn: ['read-a', 'read-b', 'read-c'] }),
      ...['1', '2', '3', '4'].map((id) => node({ id: `edit-${id}`, kind: 'edit', writes: [`src/s${id}.ts`], dependsOn: ['interface'] })),
      node({ id: 'test', kind: 'command', command: 'npm test', dependsOn: ['edit-1', 'edit-2', 'edit-3', 'edit-4'] }),
    ],
  };

  it('is the widest stage of nodes that can change files, within the run concurrency', () => {
    expect(ownWorkspacesAtOnce(runtime(), plan, 8)).toBe(4);
    expect(ownWorkspacesAtOnce(runtime(), plan, 2)).toBe(2);
    expect(ownWorkspacesAtOnce(runtime(), { ...plan, nodes: plan.nodes.slice(0, 4) }, 8)).toBe(0);
  });
});
