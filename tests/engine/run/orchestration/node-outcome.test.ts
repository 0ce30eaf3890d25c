import { describe, expect, it } from 'vitest';
import { unkeptPromise, type NodeAction, type NodeOutcomeInput } from '../../../../engine/run/orchestration/node-outcome.js';
import { changedCommandNodes } from '../../../../engine/run/orchestration/replan-verdict.js';
import { node, rawPlan } from '../../plan/plan-fixtures.js';

const write = (outcome: string, summary = `write_file src/a.ts: ${outcome}`): NodeAction => ({ tool: 'write_file', risk: 'write', outcome, summary });
const command = (outcome: string): NodeAction => ({ tool: 'run_command', risk: 'command', outcome, summary: `run_command npm test: ${outcome}` });
const read: NodeAction = { tool: 'read_file', risk: 'read', outcome: 'ok', summary: 'read src/a.ts' };

const edit = (fields: Partial<NodeOutcomeInput>): NodeOutcomeInput => ({ nodeId: 'edit-a', kind: 'edit', actions: [], filesChanged: ['src/a.ts'], writes: ['src/a.ts'], ...fields });

describe('unkeptPromise', () => {
  it.each<[string, NodeOutcomeInput, string | undefined]>([
    ['an edit that changed its file', edit({ actions: [read, write('ok')] }), undefined],
    ['an edit that changed nothing', edit({ actions: [read], filesChanged: [] }), 'edit node edit-a ended without changing any file (its writes: src/a.ts)'],
    ['a denied write, even with another file changed', edit({ actions: [write('ok'), write('denied', 'the user rejected this operation: write_file src/b.ts')] }), 'a write was denied: the user rejected this operation: write_file src/b.ts'],
    ['every risky action denied or refused', { nodeId: 'tidy', kind: 'agent', actions: [read, command('denied'), write('refused')], filesChanged: [], writes: [] }, 'every risky action was denied (2): write_file src/a.ts: refused'],
    ['one risky action through', { nodeId: 'tidy', kind: 'agent', actions: [command('denied'), command('ok')], filesChanged: [], writes: [] }, undefined],
    ['a read node that only read', { nodeId: 'look', kind: 'read', actions: [read], filesChanged: [], writes: [] }, undefined],
    ['an agent that changed nothing and was asked nothing risky', { nodeId: 'think', kind: 'agent', actions: [], filesChanged: [], writes: [] }, undefined],
  ])('%s', (_name, input, expected) => {
    expect(unkeptPromise(input)?.error).toBe(expected);
  });

  it.each<[string, NodeOutcomeInput, 'human-approval' | undefined]>([
    ['a write denied with no one to ask waits for a human', edit({ actions: [{ ...write('denied'), humanNextStep: 'pass --approval auto', waitsFor: 'human-approval' }] }), 'human-approval'],
    ['a write a human denied does not', edit({ actions: [write('denied')] }), undefined],
    ['the last risky call decides: denied with no one to ask', { nodeId: 'tidy', kind: 'agent', actions: [command('denied'), { ...command('denied'), waitsFor: 'human-approval' }], filesChanged: [], writes: [] }, 'human-approval'],
    ['an edit that changed nothing waits for no one', edit({ filesChanged: [] }), undefined],
  ])('%s', (_name, input, waitsFor) => {
    expect(unkeptPromise(input)?.waitsFor).toBe(waitsFor);
  });
});

describe('changedCommandNodes', () => {
  it('names the command nodes a new plan adds or changes, not the ones it keeps', () => {
    const before = rawPlan([node('edit-a', 'edit'), node('test', 'command', { command: 'npm test' })]);
    const after = rawPlan([node('edit-a', 'edit'), node('test', 'command', { command: 'npm test' }), node('lint', 'command', { command: 'npm run lint' })]);
    expect(changedCommandNodes(before, after)).toEqual(['lint']);
    const changed = rawPlan([node('edit-a', 'edit'), node('test', 'command', { command: 'npm test; curl evil' })]);
    expect(changedCommandNodes(before, changed)).toEqual(['test']);
    expect(changedCommandNodes(before, before)).toEqual([]);
  });
});

describe('changedCommandNodes after a merge conflict', () => {
  it('lets a new node run a command the plan already ran (made again on the merged result), not a new command', () => {
    const before = rawPlan([node('append', 'command', { command: 'echo x >> a.txt' })]);
    const again = rawPlan([node('append-remerge', 'command', { command: 'echo x >> a.txt' })]);
    expect(changedCommandNodes(before, again)).toEqual([]);
    const other = rawPlan([node('append-remerge', 'command', { command: 'echo y >> a.txt' })]);
    expect(changedCommandNodes(before, other)).toEqual(['append-remerge']);
  });
});
