import { describe, expect, it } from 'vitest';
import { DagentError } from '../../../engine/errors.js';
import { PlanLintBlockedError, lintGateVerdict, type LintGateAllowances, type LintGateVerdict } from '../../../engine/plan/lint-gate.js';
import type { LintFinding } from '../../../engine/plan/lint-finding.js';

const missing: LintFinding = { level: 'error', code: 'missing-file', message: 'check reads notes/release.md, which is not in the repository scan' };
const missingToo: LintFinding = { level: 'error', code: 'missing-file', message: 'check reads notes/other.md, which is not in the repository scan' };
const importer: LintFinding = { level: 'error', code: 'unwritten-importer', message: 'src/lazy.ts:3 uses Invoice.total but no node writes it' };
const untested: LintFinding = { level: 'warning', code: 'untested-edit', message: 'edit-api has no test downstream' };

const none: LintGateAllowances = { approvedWith: [], allowed: [] };

describe('lintGateVerdict', () => {
  it.each<[string, readonly LintFinding[], LintGateAllowances, LintGateVerdict]>([
    ['no findings', [], none, { blocking: [], letThrough: [] }],
    ['warnings never block', [untested], none, { blocking: [], letThrough: [] }],
    ['an error blocks', [missing, untested], none, { blocking: [missing], letThrough: [] }],
    ['every error of a code blocks, in order', [importer, missing, missingToo], none, { blocking: [importer, missing, missingToo], letThrough: [] }],
    ['--allow-lint CODE lets that code through', [missing, missingToo], { approvedWith: [], allowed: ['missing-file'] }, { blocking: [], letThrough: ['missing-file'] }],
    ['--allow-lint CODE lets only that code through', [importer, missing], { approvedWith: [], allowed: ['missing-file'] }, { blocking: [importer], letThrough: ['missing-file'] }],
    ['--allow-lint all lets every code through, sorted', [missing, importer], { approvedWith: [], allowed: ['all'] }, { blocking: [], letThrough: ['missing-file', 'unwritten-importer'] }],
    ['an allowed code with no error is not let through', [missing], { approvedWith: [], allowed: ['missing-file', 'unwritten-importer'] }, { blocking: [], letThrough: ['missing-file'] }],
    ['what the approval let through passes, and is not let through again', [missing], { approvedWith: ['missing-file'], allowed: [] }, { blocking: [], letThrough: [] }],
    ['the approval lets only its codes through', [missing, importer], { approvedWith: ['missing-file'], allowed: [] }, { blocking: [importer], letThrough: [] }],
    ['approval and flag together', [missing, importer], { approvedWith: ['missing-file'], allowed: ['all'] }, { blocking: [], letThrough: ['unwritten-importer'] }],
    ['a warning of an approved code is still no error', [untested], { approvedWith: ['untested-edit'], allowed: ['untested-edit'] }, { blocking: [], letThrough: [] }],
  ])('%s', (_name, findings, allowances, verdict) => {
    expect(lintGateVerdict(findings, allowances)).toEqual(verdict);
  });
});

describe('PlanLintBlockedError', () => {
  it('names each blocking finding and the flags that let them through, exit 2', () => {
    const error = new PlanLintBlockedError({ runId: 'r1', version: 2, blocking: [importer, missing, missingToo], relinted: false });
    expect(error).toBeInstanceOf(DagentError);
    expect(error.name).toBe('PlanLintBlockedError');
    expect(error.exitCode).toBe(2);
    expect(error.codes).toEqual(['unwritten-importer', 'missing-file']);
    expect(error.message).toBe(
      'plan v2 has 3 lint errors:\n' +
        `  unwritten-importer: ${importer.message}\n` +
        `  missing-file: ${missing.message}\n` +
        `  missing-file: ${missingToo.message}\n` +
        'fix the plan (dagent edit r1), or allow with --allow-lint unwritten-importer --allow-lint missing-file',
    );
  });

  it('says when the findings come from linting again', () => {
    const error = new PlanLintBlockedError({ runId: 'r1', version: 1, blocking: [missing], relinted: true });
    expect(error.message).toBe(
      `plan v1 has 1 lint error (linted again: the repository changed since it was planned):\n  missing-file: ${missing.message}\nfix the plan (dagent edit r1), or allow with --allow-lint missing-file`,
    );
  });
});
