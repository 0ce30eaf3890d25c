import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Plan, PlanNode } from '../../engine/index.js';
import type { WorkspaceLanguageService } from '../../planners/language-service/index.js';
import { lintForReview, type LintForReviewInput } from '../../planners/lint-for-review.js';
import { listedFilesMap } from '../../planners/listed-files-map.js';
import type { RepoMap } from '../../planners/repo-scan/index.js';
import { tempDir } from '../helpers/temp-store.js';
import { writeFiles } from './fixture-repo.js';

function node(id: string, kind: PlanNode['kind'], fields: Partial<Omit<PlanNode, 'id' | 'kind'>> = {}): PlanNode {
  return { id, kind, title: id, instructions: '', reads: [], writes: [], dependsOn: [], ...fields };
}

const plan: Plan = {
  goal: 'Add a greeting',
  rationale: '',
  nodes: [node('read', 'read', { reads: ['app/main.py', 'app/missing.py'] }), node('edit', 'edit', { writes: ['app/main.py'], dependsOn: ['read'] })],
};

const SCAN_FAILED = {
  level: 'warning',
  code: 'scan-failed',
  message: "the repository scan failed (EACCES: permission denied, scandir 'app'): lint checked only that the plan's files exist, not who imports them",
};
const MISSING = {
  level: 'error',
  code: 'missing-file',
  message: 'read reads app/missing.py, which is not in the repository scan (missing, or hidden by .gitignore) and no node creates',
  nodeId: 'read',
  file: 'app/missing.py',
};
const UNTESTED = { level: 'warning', code: 'untested-edit', message: expect.stringContaining('edit') as string, nodeId: 'edit' };

describe('lintForReview when the scan fails', () => {
  let workspace: string;
  let cleanup: () => void;
  const asked: string[] = [];
  beforeEach(() => {
    ({ dir: workspace, cleanup } = tempDir('dagent-lint-review-'));
    writeFiles(workspace, { 'app/main.py': 'print("hi")\n', 'README.md': '# app\n' });
    asked.length = 0;
  });
  afterEach(() => cleanup());

  const input = (fields: Partial<LintForReviewInput> = {}): LintForReviewInput => ({
    workspace,
    plan,
    scan: () => Promise.reject(new Error("EACCES: permission denied, scandir 'app'")),
    languageService: () => {
      asked.push('language service');
      return Promise.reject(new Error('no language service after a failed scan'));
    },
    signal: new AbortController().signal,
    ...fields,
  });

  it('says the scan failed and lints against the file listing: missing files are still found', async () => {
    const { findings, fingerprint } = await lintForReview(input());
    expect(findings).toEqual([SCAN_FAILED, MISSING, UNTESTED]);
    expect(fingerprint).toBeUndefined();
    expect(asked).toEqual([]);
  });

  it('lints the listing with the configured errors', async () => {
    const { findings } = await lintForReview(input({ options: { errors: 'all' } }));
    expect(findings.map((finding) => [finding.code, finding.level])).toEqual([
      ['scan-failed', 'warning'],
      ['missing-file', 'error'],
      ['untested-edit', 'error'],
    ]);
  });

  it('says only that the scan failed when the listing fails too', async () => {
    const listFiles = (): Promise<RepoMap> => Promise.reject(new Error('ENOENT: no such file or directory'));
    expect((await lintForReview(input({ listFiles }))).findings).toEqual([SCAN_FAILED]);
  });

  it('throws the scan error when the signal aborted the scan', async () => {
    const controller = new AbortController();
    controller.abort();
    const aborted = new Error('aborted');
    await expect(lintForReview(input({ signal: controller.signal, scan: () => Promise.reject(aborted) }))).rejects.toBe(aborted);
  });

  it('lints against the scan, and says its fingerprint, when the scan succeeds', async () => {
    const map = { ...(await listedFilesMap(workspace)), fingerprint: 'f1' };
    const service = {} as WorkspaceLanguageService;
    const { findings, fingerprint } = await lintForReview(input({ scan: () => Promise.resolve(map), languageService: () => Promise.resolve(service) }));
    expect(findings).toEqual([MISSING, UNTESTED]);
    expect(fingerprint).toBe('f1');
  });
});

describe('listedFilesMap', () => {
  it('lists every file, ignored ones included, but not .git, node_modules or .dagent', async () => {
    const { dir, cleanup } = tempDir('dagent-listing-');
    try {
      writeFiles(dir, { 'src/a.ts': '', '.gitignore': 'build/\n', 'build/out.js': '', '.git/HEAD': '', 'node_modules/x/index.js': '', '.dagent/config.json': '{}' });
      const map = await listedFilesMap(dir);
      expect(map.files.map((file) => file.path)).toEqual(['.gitignore', 'build/out.js', 'src/a.ts']);
      expect(map.imports).toEqual([]);
    } finally {
      cleanup();
    }
  });
});
