import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError, visibleJson, visibleText } from '../../engine/index.js';
import { integerAtLeast } from '../context/cli-args.js';
import { writeLine } from '../context/cli-io.js';
import { defineCommand } from '../context/command.js';
import { packageRoot } from '../context/package-root.js';
import { EVAL_MODES, compareMarkdown, createEvalProgress, evalDocument, evalListLines, evalMarkdown, loadSuite, readEvalResults, runEval, type EvalMode, type EvalResult } from '../eval/index.js';
import { writeUserFile } from '../context/user-files.js';

interface EvalArgs {
  suite?: string;
  repeat?: number;
  mode?: EvalMode[];
  label?: string;
  compare?: string[];
  out?: string;
  keep?: boolean;
}

export const evalCommand = defineCommand<EvalArgs>({
  examples: [
    ['$0 eval examples/eval', 'the shipped refactor suite, offline with its scripted models, both modes'],
    ['$0 eval examples/eval -m deepseek:deepseek-chat --repeat 3', 'the same suite for real, three times each'],
    ['$0 eval list', 'the stored evaluations'],
    ['$0 eval --compare e-1a2b3c e-4d5e6f', 'two evaluations side by side'],
  ],
  builder: (yargs) =>
    yargs
      .positional('suite', { type: 'string', describe: 'a folder of tasks, or `list` for the stored evaluations' })
      .option('repeat', { requiresArg: true, coerce: integerAtLeast('--repeat', 1), describe: 'attempts per task and mode (default 1)' })
      .option('mode', { type: 'string', array: true, choices: EVAL_MODES, describe: 'only these modes (default: plan and react)' })
      .option('label', { type: 'string', requiresArg: true, describe: 'a name kept with the results (a version, a branch) for comparisons' })
      .option('compare', { type: 'string', array: true, describe: 'two evaluation ids (or unique prefixes): their results side by side' })
      .option('out', { type: 'string', requiresArg: true, describe: 'also write the results as JSON to this file' })
      .option('keep', { type: 'boolean', describe: "keep each attempt's workspace (for dagent diff RUN) instead of removing it" }),
  async run(context, args) {
    const { db } = await context.store();
    if (args.compare !== undefined) {
      if (args.compare.length !== 2) throw new ConfigError('--compare takes two evaluation ids, e.g. dagent eval --compare e-1a2b3c e-4d5e6f (dagent eval list shows them)');
      const [left, right] = await Promise.all(args.compare.map((id) => oneEval(db, id)));
      writeLine(context.io.stdout, context.json ? visibleJson(JSON.stringify({ left: evalDocument(left!), right: evalDocument(right!) })) : visibleText(compareMarkdown(left!, right!), { multiline: true }));
      return 0;
    }
    if (args.suite === undefined) throw new ConfigError('name a suite folder (dagent eval examples/eval), or `list`, or --compare A B');
    if (args.suite === 'list') {
      const stored = await readEvalResults(db);
      if (context.json) writeLine(context.io.stdout, visibleJson(JSON.stringify([...new Set(stored.map((result) => result.evalId))].map((id) => evalDocument(stored.filter((result) => result.evalId === id))))));
      else writeLine(context.io.stdout, stored.length === 0 ? 'no evaluations yet: dagent eval examples/eval runs the shipped suite' : visibleText(evalListLines(stored).join('\n'), { multiline: true }));
      return 0;
    }
    const suite = loadSuite(resolve(context.io.cwd, args.suite));
    const modes = args.mode === undefined || args.mode.length === 0 ? EVAL_MODES : [...new Set(args.mode)];
    const root = packageRoot();
    const model = context.config.model === undefined || context.config.model === 'scripted' ? null : context.config.model;
    const repeat = args.repeat ?? 1;
    const total = suite.tasks.length * modes.length * repeat;
    const results = await runEval({
      db,
      suite,
      modes,
      repeat,
      label: args.label ?? null,
      dagentVersion: dagentVersion(root),
      setup: { command: [process.execPath, join(root, 'bin', 'dagent.js')], dbUrl: context.dbUrl, model, sandbox: context.config.sandbox?.enabled !== false, env: context.io.env },
      keep: args.keep === true,
      progress: createEvalProgress(context.io.stderr, total),
      signal: context.io.interrupt,
    });
    const document = evalDocument(results);
    writeLine(context.io.stdout, context.json ? visibleJson(JSON.stringify(document)) : visibleText(evalMarkdown(results), { multiline: true }));
    // After the results are shown (and kept in the store): a file that cannot be written loses nothing.
    if (args.out !== undefined) writeUserFile(context.io.cwd, args.out, `${JSON.stringify(document, null, 2)}\n`, 'the evaluation');
    return results.length === total && results.every((result) => result.passed) ? 0 : 1;
  },
});

async function oneEval(db: Parameters<typeof readEvalResults>[0], prefix: string): Promise<EvalResult[]> {
  const results = await readEvalResults(db, prefix);
  const ids = new Set(results.map((result) => result.evalId));
  if (ids.size === 0) throw new ConfigError(`no evaluation ${prefix}: dagent eval list shows the stored ones`);
  if (ids.size > 1) throw new ConfigError(`evaluation ${prefix} is ambiguous (${[...ids].join(', ')}): give more of its id`);
  return results;
}

/** The package's version, and the commit of a git checkout, so two builds of one version tell apart. */
function dagentVersion(root: string): string {
  const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
  try {
    const commit = execFileSync('git', ['-C', root, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return commit === '' ? version : `${version}+${commit}`;
  } catch {
    return version;
  }
}
