import { describe, expect, it } from 'vitest';
import { checkPlanAnswer, extractJsonText, plannerPromptText, plannerSystemSections } from '../../planners/index.js';
import { planText } from './llm-planner-harness.js';

describe('extractJsonText', () => {
  const object = '{"goal":"g","nodes":[{"id":"a"}]}';
  it.each([
    ['a bare object', object, object],
    ['an object with whitespace around', `\n  ${object}\n`, object],
    ['a ```json fence with prose around', `Here it is:\n\`\`\`json\n${object}\n\`\`\`\nDone.`, object],
    ['a bare ``` fence', `\`\`\`\n${object}\n\`\`\``, object],
    ['an unterminated fence', `\`\`\`json\n${object}\n`, object],
    ['a json fence after a ts fence', `\`\`\`ts\nconst x = {};\n\`\`\`\n\`\`\`json\n${object}\n\`\`\``, object],
    ['prose with stray braces before the object', `I replaced {placeholders} first. ${object} That is all.`, object],
    ['braces inside strings', '{"goal":"use } and { freely","nodes":[]}', '{"goal":"use } and { freely","nodes":[]}'],
    ['escaped quotes inside strings', '{"goal":"say \\"}\\"","nodes":[]} trailing', '{"goal":"say \\"}\\"","nodes":[]}'],
    ['a broken object: the whole of it, not an object nested inside', '{"goal" "g", "nodes": [{"id": "a"}]}', '{"goal" "g", "nodes": [{"id": "a"}]}'],
    ['an object that never closes', 'Plan: {"goal": "g", "nodes": [', '{"goal": "g", "nodes": ['],
  ])('%s', (_name, answer, expected) => {
    expect(extractJsonText(answer)).toBe(expected);
  });

  it('finds nothing in an answer without a brace', () => {
    expect(extractJsonText('I will read the files first.')).toBeUndefined();
  });
});

describe('checkPlanAnswer', () => {
  it('takes a valid plan and rejects the reserved node id "planner"', () => {
    expect(checkPlanAnswer(planText()).ok).toBe(true);
    const reserved = checkPlanAnswer(planText((nodes) => void (nodes[3]!['id'] = 'planner')));
    expect(reserved).toEqual({
      ok: false,
      issues: [{ code: 'schema', nodeId: 'planner', message: 'nodes[3] (planner).id: "planner" is reserved for the planner itself; choose another id' }],
    });
  });

  it('passes the example plan of the planner prompt', () => {
    const example = /```json\n([\s\S]*?)\n```/.exec(plannerPromptText())?.[1];
    expect(example).toBeDefined();
    const check = checkPlanAnswer(example!);
    expect(check.ok ? 'valid' : check.issues).toBe('valid');
  });
});

describe('plannerSystemSections', () => {
  it('is static text: no template variable fires, and tools change only the tools section', () => {
    const withTools = plannerSystemSections({ tools: true, projectMemory: 'Use {{pnpm}} here.' });
    const without = plannerSystemSections({ tools: false });
    expect(withTools.map((section) => section.id)).toEqual(['planner', 'planner-tools', 'plan-schema', 'project-memory']);
    expect(without.map((section) => section.id)).toEqual(['planner', 'planner-tools', 'plan-schema']);
    expect(withTools[0]).toEqual(without[0]);
    expect(withTools[3]!.text).toContain('# Project memory');
    expect(withTools[3]!.text).not.toContain('{{');
  });
});
