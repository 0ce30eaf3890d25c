import { describe, expect, it } from 'vitest';
import { runSchedule } from '../../../engine/index.js';
import { createScheduleGraph } from '../../../engine/scheduler/schedule-graph.js';
import { ScheduleInputError } from '../../../engine/scheduler/scheduler-errors.js';
import { node } from './schedule-harness.js';

function issuesOf(build: () => unknown): readonly string[] {
  try {
    build();
  } catch (error) {
    if (error instanceof ScheduleInputError) return error.issues;
    throw error;
  }
  return [];
}

describe('createScheduleGraph', () => {
  it.each<[string, ReturnType<typeof node>[], string[]]>([
    ['a valid diamond', [node('a'), node('b', ['a']), node('c', ['a']), node('d', ['b', 'c'])], []],
    ['duplicate ids', [node('a'), node('a')], ['duplicate node id "a"']],
    ['an empty id', [node('')], ['node #1 has an empty id']],
    ['an unknown dependency', [node('a', ['ghost'])], ['node "a" depends on unknown node "ghost"']],
    ['a self dependency', [node('a', ['a'])], ['node "a" depends on itself']],
    ['a cycle, named in execution order', [node('x'), node('a', ['c', 'x']), node('b', ['a']), node('c', ['b'])], ['dependency cycle a → b → c → a']],
  ])('%s', (_name, nodes, expected) => {
    expect(issuesOf(() => createScheduleGraph(nodes))).toEqual(expected);
  });

  it('drops repeated dependencies and indexes dependents', () => {
    const graph = createScheduleGraph([node('a'), node('b', ['a', 'a'])]);
    expect(graph.dependencies).toEqual([[], [0]]);
    expect(graph.dependents).toEqual([[1], []]);
  });

  it('makes runSchedule throw at once', () => {
    expect(() => runSchedule({ nodes: [node('a', ['b'])], concurrency: 1, execute: async () => ({ status: 'succeeded', result: null }) })).toThrow(ScheduleInputError);
  });
});
