import { describe, expect, it } from 'vitest';
import { checkPlan, checkPlanDocument, parsePlanDocument, PlanInvalidError, planSchema } from '../../../engine/index.js';
import { z } from 'zod';

const yamlPlan = `
goal: Rename Shape.area() to Shape.getArea()
rationale: A declares the interface; B implements it.
nodes:
  - id: read-all
    kind: read
    title: Read the shape modules
    reads: ["src/**/*.ts"]
  - id: edit-a
    kind: edit
    title: Change the interface in A
    instructions: Rename area() to getArea().
    reads: [src/shape.ts]
    writes: [src/shape.ts]
    dependsOn: [read-all]
  - id: test
    kind: command
    title: Run the tests
    command: npm test
    dependsOn: [edit-a]
`;

function messagesOf(text: string, source = 'plan.yaml'): string[] {
  try {
    parsePlanDocument(text, { source });
  } catch (error) {
    expect(error).toBeInstanceOf(PlanInvalidError);
    return (error as PlanInvalidError).issues.map((issue) => issue.message);
  }
  throw new Error('expected the document to be refused');
}

describe('parsePlanDocument', () => {
  it('reads YAML and fills in the defaults', () => {
    const plan = parsePlanDocument(yamlPlan, { source: 'plan.yaml' });
    expect(plan.nodes.map((node) => node.id)).toEqual(['read-all', 'edit-a', 'test']);
    expect(plan.nodes[0]).toEqual({ id: 'read-all', kind: 'read', title: 'Read the shape modules', instructions: '', reads: ['src/**/*.ts'], writes: [], dependsOn: [] });
    expect(plan.nodes[2]!.command).toBe('npm test');
  });

  it('reads the same plan as JSON, by extension, by content or by format', () => {
    const fromYaml = parsePlanDocument(yamlPlan, { format: 'yaml' });
    const json = JSON.stringify(fromYaml, null, 2);
    expect(parsePlanDocument(json, { source: 'plan.json' })).toEqual(fromYaml);
    expect(parsePlanDocument(json)).toEqual(fromYaml);
    expect(parsePlanDocument(json, { format: 'json', source: 'plan.txt' })).toEqual(fromYaml);
    expect(parsePlanDocument(json, { source: 'plan.yml' })).toEqual(fromYaml);
  });

  it('names the file, the node and the field of a graph problem', () => {
    const text = yamlPlan.replace('dependsOn: [edit-a]', 'dependsOn: [edit-z]');
    expect(() => parsePlanDocument(text, { source: 'plan.yaml' })).toThrow('plan.yaml: nodes[2] (test).dependsOn: unknown node "edit-z"');
  });

  it('names the node and field of schema problems in YAML', () => {
    const text = yamlPlan.replace('kind: edit', 'kind: edt').replace('    title: Run the tests\n', '').replace('dependsOn: [read-all]', 'depends_on: [read-all]');
    expect(messagesOf(text)).toEqual([
      'nodes[1] (edit-a).kind: "edt" is not one of read, edit, command, agent',
      'nodes[1] (edit-a): unknown field "depends_on" (did you mean "dependsOn"?)',
      'nodes[2] (test).title: is required',
    ]);
  });

  it('refuses a field the plan does not have at its top, as in a node, with the one meant', () => {
    const text = `strict_writes: true\ndescription: a typo'd plan\n${yamlPlan}`;
    expect(messagesOf(text)).toEqual(['plan: unknown field "strict_writes" (did you mean "strictWrites"?)', 'plan: unknown field "description"']);
  });

  it('says a plan is one YAML document when the file holds several', () => {
    expect(() => parsePlanDocument(`${yamlPlan}---\n${yamlPlan}`, { format: 'yaml', source: 'plan.yaml' })).toThrow('plan.yaml: a plan is one YAML document, and this file holds several (a line "---" starts another): keep one');
  });

  it('keeps the planner\'s id for the planner: a node that takes it is refused', () => {
    const text = yamlPlan.replace('id: edit-a', 'id: planner').replace('dependsOn: [edit-a]', 'dependsOn: [planner]');
    expect(messagesOf(text)).toEqual(['nodes[1] (planner).id: "planner" is reserved for the planner itself; choose another id']);
  });

  it('names the kinds a node without one may have', () => {
    const text = yamlPlan.replace('    kind: edit\n', '');
    expect(messagesOf(text)).toEqual(['nodes[1] (edit-a).kind: is required: one of read, edit, command, agent']);
  });

  it('names the node and field of schema problems in JSON', () => {
    const document = {
      goal: '',
      nodes: [
        { id: 'read all', kind: 'read', title: 'Read' },
        { id: 'edit-a', kind: 'edit', title: 'Edit', writes: ['/etc/passwd', '../x.ts', './src/a.ts', 'src\\a.ts', 7], maxSteps: 0, estimate: 1.5 },
        'oops',
      ],
    };
    expect(messagesOf(JSON.stringify(document), 'plan.json')).toEqual([
      'goal: must not be empty',
      'nodes[0] (read all).id: must be a short slug of letters, digits, "-", "_" or "." (e.g. "edit-invoice")',
      'nodes[1] (edit-a).writes[0]: "/etc/passwd" must be workspace-relative, not absolute',
      'nodes[1] (edit-a).writes[1]: "../x.ts" must stay inside the workspace (no "..")',
      'nodes[1] (edit-a).writes[2]: "./src/a.ts": drop the leading "./"',
      'nodes[1] (edit-a).writes[3]: "src\\a.ts" must use "/" as the separator',
      'nodes[1] (edit-a).writes[4]: must be a string (got 7)',
      'nodes[1] (edit-a).maxSteps: must be greater than 0',
      'nodes[1] (edit-a).estimate: must be a whole number (got 1.5)',
      'nodes[2]: must be an object (got "oops")',
    ]);
  });

  it('refuses an empty plan and an empty document', () => {
    expect(messagesOf('goal: nothing\nnodes: []\n')).toEqual(['nodes: a plan needs at least one node']);
    expect(messagesOf('')).toEqual(['plan: the document is empty']);
    expect(messagesOf('', 'plan.json')).toEqual(['plan: the document is empty']);
    expect(messagesOf(' \n', 'plan.json')).toEqual(['plan: the document is empty']);
    expect(messagesOf('[1, 2]', 'plan.json')).toEqual(['plan: must be an object (got a list)']);
  });

  it('reports JSON syntax errors with their line and column', () => {
    const check = checkPlanDocument('{\n  "goal": "x",\n}', { source: 'plan.json' });
    expect(check.ok).toBe(false);
    if (check.ok) return;
    expect(check.issues).toHaveLength(1);
    expect(check.issues[0]!.code).toBe('syntax');
    expect(check.issues[0]!.message).toMatch(/^not valid JSON: .*line 3/);
  });

  it('reports YAML syntax errors with their line and column', () => {
    const check = checkPlanDocument('goal: x\nnodes:\n  - id: a\n   kind: read\n', { source: 'plan.yaml' });
    expect(check.ok).toBe(false);
    if (check.ok) return;
    expect(check.issues[0]).toMatchObject({ code: 'syntax' });
    expect(check.issues[0]!.message).toMatch(/^not valid YAML: .+ at line 4, column \d+$/);
  });

  it('strips the review fields show --json adds, so its document imports again', () => {
    const plan = parsePlanDocument(yamlPlan);
    const shown = { ...plan, stages: [['read-all'], ['edit-a'], ['test']], criticalPath: ['read-all', 'edit-a', 'test'], width: 1, estimate: null, lint: [] };
    expect(checkPlan(shown)).toEqual({ ok: true, plan });
  });

  it('has a schema that converts to JSON Schema for a model', () => {
    const schema = z.toJSONSchema(planSchema, { io: 'input' }) as { required?: string[] };
    expect(schema.required).toEqual(['goal', 'nodes']);
  });
});
