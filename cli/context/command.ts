import type { Argv } from 'yargs';
import type { CliContext, GlobalOptions } from './cli-context.js';

/**
 * One CLI command's behaviour: its options and a handler that returns the exit code. Its name and
 * one-line description live in the registry (commands/index.ts), so `dagent --help` lists every
 * command without loading any of them.
 */
export interface CliCommand<A = Record<string, unknown>> {
  builder(yargs: Argv<GlobalOptions>): Argv<GlobalOptions & A>;
  /** `[command line, what it does]` pairs, listed under "Examples:" in the command's `--help`. */
  readonly examples?: readonly (readonly [string, string])[];
  run(context: CliContext, args: GlobalOptions & A): Promise<number>;
}

export function defineCommand<A>(command: CliCommand<A>): CliCommand<A> {
  return command;
}
