import { describe, expect, it } from 'vitest';
import { formatTokens, formatUsd, planShowJson, renderPlanDot, renderPlanMermaid, renderPlanText } from '../../../cli/render/index.js';
import { analyzePlan, checkPlan, planEdges, type PlanEstimate } from '../../../engine/index.js';
import { parsePlan } from '../../../engine/plan/check-plan.js';

const plan = parsePlan({
  goal: 'Add a total to invoices',
  rationale: 'The model changes first; the PDF and the API read it.',
  nodes: [
    { id: 'read-models', kind: 'read', title: 'Read the models', reads: ['src/models/*.ts'] },
    { id: 'edit-invoice', kind: 'edit', title: 'Add Invoice.total', reads: ['src/models/invoice.ts'], writes: ['src/models/invoice.ts'], dependsOn: ['read-models'] },
    { id: 'edit-pdf', kind: 'edit', title: 'Print the "total" on the PDF', writes: ['src/render/pdf.ts'], dependsOn: ['edit-invoice'] },
    { id: 'edit-api', kind: 'edit', title: 'Return the total from the API', writes: ['src/api/invoices.ts'], dependsOn: ['edit-invoice'], role: 'coder' },
    { id: 'test', kind: 'command', title: 'Run the tests', command: 'npm test', dependsOn: ['edit-pdf', 'edit-api'] },
  ],
});

const estimate: PlanEstimate = {
  nodes: [
    { nodeId: 'read-models', files: [], inputTokens: 7_000, outputTokens: 300, tokens: 7_300, costUsd: 0.002 },
    { nodeId: 'edit-invoice', files: [], inputTokens: 10_000, outputTokens: 2_000, tokens: 12_000, costUsd: 0.005 },
    { nodeId: 'edit-pdf', files: [], inputTokens: 9_000, outputTokens: 1_500, tokens: 10_500, costUsd: 0.004 },
    { nodeId: 'edit-api', files: [], inputTokens: 16_000, outputTokens: 2_200, tokens: 18_200, costUsd: 0.007 },
    { nodeId: 'test', files: [], inputTokens: 0, outputTokens: 0, tokens: 0, costUsd: 0 },
  ],
  inputTokens: 42_000,
  outputTokens: 6_000,
  tokens: 48_000,
  costUsd: 0.018,
};

const lint = [{ level: 'warning', code: 'unwritten-importer', message: 'src/jobs/reminder.ts imports Invoice.total but no node writes it', file: 'src/jobs/reminder.ts' }] as const;

describe('renderPlanText', () => {
  it('prints stages, parallel brackets, the critical path, width, estimate and lint', () => {
    const analysis = analyzePlan(plan, { estimate, lint });
    expect(renderPlanText(plan, analysis, { runId: 'r-7f3a', version: 1, status: 'awaiting_approval' })).toBe(
      [
        'run r-7f3a · plan v1 · awaiting approval',
        'stage 1  read-models   read     src/models/*.ts',
        'stage 2  edit-invoice  edit     src/models/invoice.ts',
        'stage 3  edit-pdf      edit     src/render/pdf.ts    ┐ parallel',
        '         edit-api      edit     src/api/invoices.ts  ┘',
        'stage 4  test          command  npm test',
        'critical path: read-models → edit-invoice → edit-api → test · width 2 · ≈ 48K tokens ≈ $0.02',
        'lint: src/jobs/reminder.ts imports Invoice.total but no node writes it',
      ].join('\n'),
    );
  });

  it('leaves out what it does not know, and marks lint errors', () => {
    const analysis = analyzePlan(plan, { lint: [{ level: 'error', code: 'x', message: 'edit-api has no test downstream' }] });
    const text = renderPlanText(plan, analysis);
    expect(text.split('\n')[0]).toBe('stage 1  read-models   read     src/models/*.ts');
    expect(text).toContain('critical path: read-models → edit-invoice → edit-pdf → test · width 2\n');
    expect(text.endsWith('lint error: edit-api has no test downstream')).toBe(true);
  });

  it('brackets a stage of three with a middle bar and abbreviates long file lists', () => {
    const wide = parsePlan({
      goal: 'g',
      nodes: [
        { id: 'a', kind: 'read', title: 'A', reads: ['1.ts', '2.ts', '3.ts', '4.ts', '5.ts'] },
        { id: 'b', kind: 'read', title: 'B', reads: ['b.ts'] },
        { id: 'c', kind: 'agent', title: 'C' },
      ],
    });
    expect(renderPlanText(wide, analyzePlan(wide))).toBe(
      [
        'stage 1  a  read   1.ts, 2.ts, 3.ts +2 more  ┐ parallel',
        '         b  read   b.ts                      │',
        '         c  agent                            ┘',
        'critical path: c · width 3',
      ].join('\n'),
    );
  });

  it('adds per-node details on request', () => {
    const text = renderPlanText(plan, analyzePlan(plan, { estimate }), { details: true });
    expect(text).toContain(
      ['edit-api (edit): Return the total from the API', '  writes  src/api/invoices.ts', '  after   edit-invoice', '  role    coder', '  cost    ≈ 18K tokens ≈ $0.007'].join('\n'),
    );
    expect(text).toContain(['test (command): Run the tests', '  after   edit-pdf, edit-api', '  command npm test'].join('\n'));
  });
});

describe('renderPlanMermaid', () => {
  const text = renderPlanMermaid(plan);

  it('is a top-down flowchart with a subgraph per stage', () => {
    expect(text.startsWith('flowchart TD\n')).toBe(true);
    for (const stage of [1, 2, 3, 4]) expect(text).toContain(`  subgraph stage_${stage}["stage ${stage}"]`);
    expect(text.match(/^ {2}end$/gm)).toHaveLength(4);
  });

  it('has every node with its kind and escaped title, and every edge', () => {
    expect(text).toContain('    n_edit_pdf["edit-pdf (edit)<br/>Print the #quot;total#quot; on the PDF"]');
    for (const node of plan.nodes) expect(text).toContain(`n_${node.id.replace(/-/g, '_')}["${node.id} (${node.kind})<br/>`);
    for (const edge of planEdges(plan)) expect(text).toContain(`  n_${edge.from.replace(/-/g, '_')} --> n_${edge.to.replace(/-/g, '_')}`);
    expect(text.match(/-->/g)).toHaveLength(planEdges(plan).length);
  });

  it('keeps ids apart that sanitise alike', () => {
    const twins = parsePlan({ goal: 'g', nodes: [{ id: 'a-b', kind: 'read', title: 'x' }, { id: 'a_b', kind: 'read', title: 'y', dependsOn: ['a-b'] }] });
    expect(renderPlanMermaid(twins)).toContain('  n_a_b --> n_a_b_2');
  });
});

describe('renderPlanDot', () => {
  const text = renderPlanDot(plan);

  it('is a digraph with a cluster per stage, every node and every edge', () => {
    expect(text.startsWith('digraph plan {\n')).toBe(true);
    expect(text.endsWith('\n}')).toBe(true);
    for (const stage of [1, 2, 3, 4]) expect(text).toContain(`  subgraph cluster_stage_${stage} {\n    label="stage ${stage}";`);
    expect(text).toContain('    "edit-pdf" [label="edit-pdf (edit)\\nPrint the \\"total\\" on the PDF"];');
    for (const node of plan.nodes) expect(text).toContain(`    "${node.id}" [label="${node.id} (${node.kind})\\n`);
    for (const edge of planEdges(plan)) expect(text).toContain(`  "${edge.from}" -> "${edge.to}";`);
    expect(text.match(/->/g)).toHaveLength(planEdges(plan).length);
  });
});

describe('planShowJson', () => {
  it('is the plan document plus stages, critical path, width, estimate and lint', () => {
    const document = planShowJson(plan, analyzePlan(plan, { estimate, lint }));
    const json = JSON.parse(JSON.stringify(document)) as Record<string, unknown>;
    expect(Object.keys(json)).toEqual(['goal', 'rationale', 'nodes', 'stages', 'criticalPath', 'width', 'estimate', 'lint']);
    expect(json).toMatchObject({
      stages: [['read-models'], ['edit-invoice'], ['edit-pdf', 'edit-api'], ['test']],
      criticalPath: ['read-models', 'edit-invoice', 'edit-api', 'test'],
      width: 2,
      estimate: { tokens: 48_000, costUsd: 0.018 },
      lint: [{ level: 'warning', code: 'unwritten-importer', file: 'src/jobs/reminder.ts' }],
    });
    expect(checkPlan(json)).toEqual({ ok: true, plan });
  });

  it('has a null estimate when there is none', () => {
    expect(planShowJson(plan, analyzePlan(plan)).estimate).toBeNull();
  });
});

describe('formatTokens and formatUsd', () => {
  it.each([
    [0, '0'],
    [812, '812'],
    [4_000, '4K'],
    [4_830, '4.8K'],
    [48_000, '48K'],
    [999_600, '1M'],
    [1_240_000, '1.2M'],
  ])('%d tokens → %s', (tokens, text) => {
    expect(formatTokens(tokens)).toBe(text);
  });

  it.each([
    [0, '$0'],
    [0.0042, '$0.004'],
    [0.018, '$0.02'],
    [12.5, '$12.50'],
  ])('%d USD → %s', (usd, text) => {
    expect(formatUsd(usd)).toBe(text);
  });
});
