import { readFileSync, statSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import { ConfigError, parsePlanDocument, type Plan, type PlanRules } from '../../engine/index.js';
import { fileProblem } from '../context/user-files.js';

/** The largest plan document read (4 MiB): a plan names work to do; content belongs in files. */
export const MAX_PLAN_FILE_BYTES = 4 * 1024 * 1024;

/** Reads a plan document (JSON, or YAML by extension) given by the user, checked by `rules`; errors name the file, node and field. */
export function readPlanFile(cwd: string, file: string, rules: PlanRules): Plan {
  const path = resolve(cwd, file);
  let text: string;
  try {
    const size = statSync(path).size;
    if (size > MAX_PLAN_FILE_BYTES) {
      throw new ConfigError(`plan file ${file} is ${(size / 1024 / 1024).toFixed(1)} MiB, over the ${MAX_PLAN_FILE_BYTES / 1024 / 1024} MiB a plan document may be: keep large content in workspace files and name them in the plan`);
    }
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(`cannot read plan file ${file}: ${fileProblem(error)}`);
  }
  const format = ['.yaml', '.yml'].includes(extname(path).toLowerCase()) ? 'yaml' : 'json';
  return parsePlanDocument(text, { format, source: file, rules });
}

/** The document `export` writes and `import` reads. */
export function planDocumentText(plan: Plan): string {
  return `${JSON.stringify(plan, null, 2)}\n`;
}
