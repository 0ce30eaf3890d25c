import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Plan, LintFinding } from '../../engine/index.js';

/** Where the repository each lint answer was computed on is remembered. */
const LINT_BASIS_DIR = join('.dagent', 'cache', 'lint-basis');

/**
 * What a plan's lint findings were computed on: the repository scan's fingerprint, remembered
 * under `.dagent/cache/lint-basis/` for the plan and the findings (one file per pair). Findings
 * recorded with a plan version stand only while the scan still has that fingerprint: a file
 * edited, created or deleted since, or a config changed, and the plan is linted again.
 */
export async function rememberLintBasis(workspace: string, plan: Plan, findings: readonly LintFinding[], fingerprint: string | undefined): Promise<void> {
  if (fingerprint === undefined) return;
  const path = basisPath(workspace, plan, findings);
  try {
    await mkdir(join(workspace, LINT_BASIS_DIR), { recursive: true });
    await writeFile(`${path}.${process.pid}.tmp`, JSON.stringify({ fingerprint }));
    await rename(`${path}.${process.pid}.tmp`, path);
  } catch {
    // Unremembered means linted again at the gate: slower, not wrong.
  }
}

/** Whether these findings of this plan were computed on a repository with this fingerprint. */
export async function lintBasisHolds(workspace: string, plan: Plan, findings: readonly LintFinding[], fingerprint: string | undefined): Promise<boolean> {
  if (fingerprint === undefined) return false;
  try {
    const basis = JSON.parse(await readFile(basisPath(workspace, plan, findings), 'utf8')) as { fingerprint?: unknown };
    return basis.fingerprint === fingerprint;
  } catch {
    return false;
  }
}

function basisPath(workspace: string, plan: Plan, findings: readonly LintFinding[]): string {
  const digest = createHash('sha1').update(sortedJson(plan)).update('\0').update(sortedJson(findings)).digest('hex');
  return join(workspace, LINT_BASIS_DIR, `${digest}.json`);
}

/** JSON with object keys sorted: the same plan read back from the store gives the same text. */
function sortedJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === 'object' && !Array.isArray(inner) ? Object.fromEntries(Object.entries(inner).sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0))) : inner,
  );
}
