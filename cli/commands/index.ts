import type { CliCommand } from '../command.js';
import { approveCommand, rejectCommand } from './approve.js';
import { demoCommand } from './demo.js';
import { diffCommand, revertCommand } from './diff.js';
import { inspectCommand } from './inspect.js';
import { logCommand } from './log.js';
import { memoryCommand } from './memory.js';
import { editCommand, exportCommand, importCommand } from './plan-documents.js';
import { planCommand } from './plan.js';
import { cancelCommand, resumeCommand, runCommand } from './run.js';
import { reactCommand } from './react.js';
import { scanCommand } from './scan.js';
import { showCommand } from './show.js';
import { statusCommand } from './status.js';
import { toolCommand } from './tool.js';

/** Every command, in the order `dagent --help` lists them. */
export const COMMANDS: readonly CliCommand<never>[] = [
  planCommand,
  showCommand,
  editCommand,
  exportCommand,
  importCommand,
  approveCommand,
  rejectCommand,
  runCommand,
  resumeCommand,
  cancelCommand,
  reactCommand,
  toolCommand,
  scanCommand,
  memoryCommand,
  demoCommand,
  statusCommand,
  diffCommand,
  revertCommand,
  logCommand,
  inspectCommand,
] as unknown as readonly CliCommand<never>[];
