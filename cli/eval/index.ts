/** `dagent eval`: a suite of tasks run in both modes, verified, measured from the log, stored and compared. */
export { EVAL_MODES, loadSuite, type EvalMode, type EvalSuite, type EvalTask } from './eval-suite.js';
export { readEvalResults, type EvalResult } from './eval-store.js';
export { runEval } from './run-eval.js';
export { createEvalProgress } from './eval-progress.js';
export { compareMarkdown, evalDocument, evalListLines, evalMarkdown, summarize } from './eval-table.js';
export { planDrift, type PlanDrift } from './plan-drift.js';
