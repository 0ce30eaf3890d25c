import { DagentError } from '../../engine/index.js';

/** How a failed tool call is shown: `error` (the tool failed) or `refused` (a guard said no). */
export type ToolErrorOutcome = 'error' | 'refused';

/**
 * A tool failure the model reads as the tool's result. Recoverable by default: the model can
 * correct its call. A fatal one (`fatal: true`) means asking again cannot help (disk full,
 * database gone); the runtime marks the result `meta.fatal` so the agent stops.
 */
export class ToolError extends DagentError {
  readonly outcome: ToolErrorOutcome;
  readonly fatal: boolean;
  constructor(message: string, options: { outcome?: ToolErrorOutcome; fatal?: boolean; cause?: unknown } = {}) {
    super(message, { exitCode: 1, cause: options.cause });
    this.outcome = options.outcome ?? 'error';
    this.fatal = options.fatal ?? false;
  }
}
