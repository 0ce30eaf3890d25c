import { readFileSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import { ConfigError, parsePlanDocument, type Plan } from '../../engine/index.js';

/** Reads a plan document (JSON, or YAML by extension) given by the user; errors name the file, node and field. */
export function readPlanFile(cwd: string, file: string): Plan {
  const path = resolve(cwd, file);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read plan file ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const format = ['.yaml', '.yml'].includes(extname(path).toLowerCase()) ? 'yaml' : 'json';
  return parsePlanDocument(text, { format, source: file });
}

/** The document `export` writes and `import` reads. */
export function planDocumentText(plan: Plan): string {
  return `${JSON.stringify(plan, null, 2)}\n`;
}
