import type { Argv } from 'yargs';
import type { CliContext, GlobalOptions } from './cli-context.js';

/** One CLI command: its yargs shape and a handler that returns the exit code. */
export interface CliCommand<A = Record<string, unknown>> {
  readonly command: string;
  readonly describe: string;
  builder(yargs: Argv<GlobalOptions>): Argv<GlobalOptions & A>;
  run(context: CliContext, args: GlobalOptions & A): Promise<number>;
}

export function defineCommand<A>(command: CliCommand<A>): CliCommand<A> {
  return command;
}
