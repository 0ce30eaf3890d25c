import type { CliCommand } from '../command.js';
import { inspectCommand } from './inspect.js';
import { logCommand } from './log.js';
import { statusCommand } from './status.js';

/** Every command, in the order `dagent --help` lists them. */
export const COMMANDS: readonly CliCommand<never>[] = [statusCommand, logCommand, inspectCommand] as unknown as readonly CliCommand<never>[];
