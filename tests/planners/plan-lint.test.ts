import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lintFindingSchema } from '../../engine/index.js';
import { lintPlan, scanRepository, type LintablePlan, type LintPlanNode, type RepoMap } from '../../planners/index.js';
import { copyFixtureRepo } from './fixture-repo.js';

let map: RepoMap;
let cleanup: () => void;

beforeAll(async () => {
  const copy = copyFixtureRepo('billing');
  cleanup = copy.cleanup;
  map = await scanRepository(copy.root);
});
afterAll(() => cleanup());

function node(id: string, kind: LintPlanNode['kind'], fields: Partial<Omit<LintPlanNode, 'id' | 'kind'>> = {}): LintPlanNode {
  return { id, kind, reads: [], writes: [], dependsOn: [], ...fields };
}

const RENAME = 'Rename Invoice.total() to Invoice.grandTotal() and update its callers in this file.';

/** Mei's plan from the user stories: it misses src/jobs/reminder.ts. */
const storyPlan: LintablePlan = {
  nodes: [
    node('read-models', 'read', { reads: ['src/models/*.ts'] }),
    node('edit-invoice', 'edit', { reads: ['src/models/invoice.ts'], writes: ['src/models/invoice.ts'], dependsOn: ['read-models'], instructions: RENAME }),
    node('edit-pdf', 'edit', { writes: ['src/render/pdf.ts'], dependsOn: ['edit-invoice'], instructions: RENAME }),
    node('edit-api', 'edit', { writes: ['src/api/invoices.ts'], dependsOn: ['edit-invoice'], instructions: RENAME }),
    node('test', 'command', { command: 'npm test', dependsOn: ['edit-pdf', 'edit-api'] }),
  ],
};

/** The same plan, corrected: reminder.ts gets a node and the tests wait for it. */
const correctPlan: LintablePlan = {
  nodes: [
    ...storyPlan.nodes.filter((candidate) => candidate.id !== 'test'),
    node('edit-reminder', 'edit', { writes: ['src/jobs/reminder.ts'], dependsOn: ['edit-invoice'], instructions: RENAME }),
    node('test', 'command', { command: 'npm test', dependsOn: ['edit-pdf', 'edit-api', 'edit-reminder'] }),
  ],
};

const replaceNode = (plan: LintablePlan, replacement: LintPlanNode): LintablePlan => ({
  nodes: plan.nodes.map((candidate) => (candidate.id === replacement.id ? replacement : candidate)),
});

describe('lintPlan', () => {
  it('is silent on a correct plan', () => {
    expect(lintPlan(correctPlan, map)).toEqual([]);
  });

  describe('unwritten-importer', () => {
    it('names the file that uses the changed member and no node writes (the user story), from the import graph alone', () => {
      expect(lintPlan(storyPlan, map)).toEqual([
        {
          level: 'warning',
          code: 'unwritten-importer',
          message: "src/jobs/reminder.ts:2 uses Invoice.total (src/models/invoice.ts#Invoice.total, changed by edit-invoice — inferred from its instructions; declare `changes:` to make it exact) but no node writes it: import { Invoice } from '@models/index';",
          nodeId: 'edit-invoice',
          file: 'src/jobs/reminder.ts',
          symbol: 'src/models/invoice.ts#Invoice.total',
          line: 2,
          text: "import { Invoice } from '@models/index';",
        },
      ]);
    });

    it.each([
      'Rename Invoice.total() to Invoice.grandTotal(). Invoice does not change otherwise.',
      'Tidy the pdf module. Invoice stays as it is.',
      'Reword the comments; leave Invoice unchanged.',
      "Reformat the file but don't touch Invoice.",
    ])('says nothing of a type the instructions say stays as it is: %s', (instructions) => {
      const plan: LintablePlan = {
        nodes: [node('edit-invoice', 'edit', { writes: ['src/models/invoice.ts'], instructions }), node('test', 'command', { dependsOn: ['edit-invoice'] })],
      };
      const symbols = lintPlan(plan, map).map((finding) => finding.symbol);
      expect(symbols).not.toContain('src/models/invoice.ts#Invoice');
      if (instructions.startsWith('Rename')) expect(symbols).toContain('src/models/invoice.ts#Invoice.total');
    });

    it('says nothing when a node changes none of its exports (a comment, a function body)', () => {
      const plan: LintablePlan = {
        nodes: [node('edit-invoice', 'edit', { writes: ['src/models/invoice.ts'], instructions: 'Tidy up this module.' }), node('test', 'command', { dependsOn: ['edit-invoice'] })],
      };
      expect(lintPlan(plan, map)).toEqual([]);
    });

    it('takes what a node changes from its changes, and makes a left-out user an error', () => {
      const plan: LintablePlan = {
        nodes: [
          node('edit-invoice', 'edit', { writes: ['src/models/invoice.ts'], instructions: 'Tidy up this module.', changes: ['src/models/invoice.ts#formatInvoiceId'] }),
          node('test', 'command', { dependsOn: ['edit-invoice'] }),
        ],
      };
      expect(lintPlan(plan, map)).toEqual([
        expect.objectContaining({ level: 'error', code: 'unwritten-importer', file: 'src/api/invoices.ts', symbol: 'src/models/invoice.ts#formatInvoiceId' }),
      ]);
    });

    it('counts importers that reach the symbol through a written barrel', () => {
      const plan: LintablePlan = {
        nodes: [node('edit-barrel', 'edit', { writes: ['src/models/index.ts'], instructions: 'Rename the Client alias of Customer.' }), node('test', 'command', { dependsOn: ['edit-barrel'] })],
      };
      expect(lintPlan(plan, map)).toEqual([
        expect.objectContaining({ code: 'unwritten-importer', file: 'src/render/pdf.ts', message: expect.stringMatching(/^src\/render\/pdf\.ts:3 uses Client \(src\/models\/index\.ts#Client, changed by edit-barrel — inferred from its instructions; declare `changes:` to make it exact\) but no node writes it/) }),
      ]);
    });

    it('matches write globs against the scanned files', () => {
      const plan: LintablePlan = {
        nodes: [
          node('edit-models', 'edit', { writes: ['src/models/**'], instructions: 'Rename Invoice.total().' }),
          node('edit-callers', 'edit', { writes: ['src/{api,render,jobs}/*.ts'], dependsOn: ['edit-models'] }),
          node('test', 'command', { dependsOn: ['edit-callers'] }),
        ],
      };
      expect(lintPlan(plan, map)).toEqual([]);
    });
  });

  describe('unordered-edits', () => {
    it('reports edits of an importer and its import with no path between them, through barrels too', () => {
      const plan: LintablePlan = {
        nodes: correctPlan.nodes.map((candidate) => (candidate.kind === 'edit' && candidate.id !== 'edit-invoice' ? { ...candidate, dependsOn: ['read-models'] } : candidate)),
      };
      const issues = lintPlan(plan, map).filter((issue) => issue.code === 'unordered-edits');
      expect(issues.map((issue) => [issue.nodeId, issue.file])).toEqual([
        ['edit-pdf', 'src/render/pdf.ts'],
        ['edit-api', 'src/api/invoices.ts'],
        ['edit-reminder', 'src/jobs/reminder.ts'],
      ]);
      expect(issues[0]?.message).toBe(
        'edit-pdf writes src/render/pdf.ts, which imports src/models/invoice.ts written by edit-invoice, but neither node depends on the other: the code may not build between the two edits; make edit-pdf depend on edit-invoice',
      );
    });

    it('accepts a path in either direction, however long', () => {
      const plan = replaceNode(correctPlan, node('edit-invoice', 'edit', { writes: ['src/models/invoice.ts'], dependsOn: ['edit-pdf'], instructions: RENAME }));
      const reordered = replaceNode(plan, node('edit-pdf', 'edit', { writes: ['src/render/pdf.ts'], dependsOn: ['read-models'], instructions: RENAME }));
      expect(lintPlan(reordered, map).filter((issue) => issue.code === 'unordered-edits')).toEqual([]);
    });
  });

  describe('unordered-writers', () => {
    const twoWriters: LintablePlan = {
      nodes: [
        node('edit-total', 'edit', { writes: ['src/models/invoice.ts'], instructions: 'Round the total.' }),
        node('edit-models', 'edit', { writes: ['src/models/*.ts'], instructions: 'Add a doc comment to each model.' }),
        node('test', 'command', { command: 'npm test', dependsOn: ['edit-total', 'edit-models'] }),
      ],
    };

    it('notes two unordered nodes writing one file where each runs in its own worktree, as a warning', () => {
      const notes = lintPlan(twoWriters, map, { parallelWrites: 'merge' }).filter((finding) => finding.code === 'unordered-writers');
      expect(notes).toEqual([
        {
          level: 'warning',
          code: 'unordered-writers',
          nodeId: 'edit-models',
          file: 'src/models/invoice.ts',
          message:
            'edit-total and edit-models both write src/models/invoice.ts and neither depends on the other: each runs in its own worktree and their changes merge three-way, but edits of the same lines conflict (onConflict decides); make one depend on the other to order them',
        },
      ]);
    });

    it('says nothing once a dependency orders them, nor where the plan rules refuse them (a shared working copy)', () => {
      const ordered = replaceNode(twoWriters, node('edit-models', 'edit', { writes: ['src/models/*.ts'], dependsOn: ['edit-total'], instructions: 'Add a doc comment to each model.' }));
      expect(lintPlan(ordered, map, { parallelWrites: 'merge' }).filter((finding) => finding.code === 'unordered-writers')).toEqual([]);
      expect(lintPlan(twoWriters, map).filter((finding) => finding.code === 'unordered-writers')).toEqual([]);
    });
  });

  describe('missing-file and read-before-create', () => {
    it.each([
      [node('r', 'read', { reads: ['src/models/missing.ts'] }), 'r reads src/models/missing.ts, which is not in the repository scan (missing, or hidden by .gitignore) and no node creates'],
      [node('r', 'read', { reads: ['build/out.js'] }), 'r reads build/out.js, which is not in the repository scan (missing, or hidden by .gitignore) and no node creates'],
      [node('r', 'read', { reads: ['lib/**/*.ts'] }), 'r reads lib/**/*.ts, which matches no file in the repository scan and no node creates'],
      [node('w', 'command', { writes: ['src/new/*.ts'] }), 'w writes src/new/*.ts, which matches no file; name new files by their path'],
    ])('reports %j', (offending, message) => {
      expect(lintPlan({ nodes: [offending] }, map)).toEqual([expect.objectContaining({ level: 'error', code: 'missing-file', message, nodeId: offending.id })]);
    });

    it('accepts files a node creates, when the reader depends on the creator', () => {
      const plan: LintablePlan = {
        nodes: [
          node('create-tax', 'edit', { writes: ['src/models/tax.ts'] }),
          node('use-tax', 'edit', { reads: ['src/models/tax.ts', 'src/models/*.ts'], writes: ['src/api/tax.ts'], dependsOn: ['create-tax'] }),
          node('test', 'command', { dependsOn: ['use-tax'], reads: ['src/api/tax.ts'] }),
        ],
      };
      expect(lintPlan(plan, map)).toEqual([]);
    });

    it('reports a read of a file only a node it does not depend on creates', () => {
      const plan: LintablePlan = {
        nodes: [
          node('create-tax', 'edit', { writes: ['src/models/tax.ts'] }),
          node('read-tax', 'read', { reads: ['src/models/tax.ts'] }),
          node('test', 'command', { dependsOn: ['create-tax', 'read-tax'] }),
        ],
      };
      expect(lintPlan(plan, map)).toEqual([
        {
          level: 'error',
          code: 'read-before-create',
          message: 'read-tax reads src/models/tax.ts, which only create-tax creates, but read-tax does not depend on it',
          nodeId: 'read-tax',
          file: 'src/models/tax.ts',
        },
      ]);
    });
  });

  describe('untested-edit', () => {
    it('reports edits with no command after them, even when a command runs before', () => {
      const plan: LintablePlan = {
        nodes: [
          node('baseline', 'command', { command: 'npm test' }),
          node('edit-pdf', 'edit', { writes: ['src/render/pdf.ts'], dependsOn: ['baseline'] }),
          node('explore', 'agent', { dependsOn: ['edit-pdf'] }),
          node('fix-docs', 'agent', { writes: ['README.md'] }),
        ],
      };
      expect(lintPlan(plan, map)).toEqual([
        {
          level: 'warning',
          code: 'untested-edit',
          message: 'edit-pdf changes files but no command node runs after it: add a node that runs the tests and depends on edit-pdf',
          nodeId: 'edit-pdf',
        },
        expect.objectContaining({ code: 'untested-edit', nodeId: 'fix-docs' }),
      ]);
    });
  });

  describe('options.errors', () => {
    it('raises the listed codes to errors (missing files are errors already)', () => {
      const plan: LintablePlan = { nodes: [node('edit-pdf', 'edit', { writes: ['src/render/pdf.ts'], reads: ['nothing.ts'] })] };
      expect(lintPlan(plan, map, { errors: ['untested-edit'] }).map((issue) => [issue.code, issue.level])).toEqual([
        ['missing-file', 'error'],
        ['untested-edit', 'error'],
      ]);
      expect(lintPlan(plan, map, { errors: 'all' }).map((issue) => issue.level)).toEqual(['error', 'error']);
    });
  });
});

describe('the shape of a finding', () => {
  it('is the one lint finding schema the log records and the CLI prints, with no field left undefined', () => {
    const findings = lintPlan(storyPlan, map);

    expect(findings.length).toBeGreaterThan(0);
    for (const finding of findings) {
      expect(lintFindingSchema.strict().parse(finding)).toEqual(finding);
      expect(Object.values(finding)).not.toContain(undefined);
    }
  });
});
