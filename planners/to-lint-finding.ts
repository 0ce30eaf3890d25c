import type { PlanLintFinding } from '../engine/index.js';
import type { LintIssue } from './plan-lint.js';

/** A lint issue as the engine records and `show` prints it: the fields it has, none set to `undefined`. */
export function toLintFinding(issue: LintIssue): PlanLintFinding {
  return {
    level: issue.level,
    code: issue.code,
    message: issue.message,
    ...(issue.nodeId === undefined ? {} : { nodeId: issue.nodeId }),
    ...(issue.file === undefined ? {} : { file: issue.file }),
    ...(issue.symbol === undefined ? {} : { symbol: issue.symbol }),
    ...(issue.line === undefined ? {} : { line: issue.line }),
    ...(issue.text === undefined ? {} : { text: issue.text }),
  };
}
