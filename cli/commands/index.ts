import type { CliCommand } from '../context/command.js';

/** A command as `dagent --help` lists it; its module is loaded only when it is the one run. */
export interface CommandEntry {
  /** yargs syntax: the name, then its positionals. */
  readonly command: string;
  readonly describe: string;
  load(): Promise<CliCommand<never>>;
  /** Whether the command, with these arguments, will count tokens in this process (it runs model nodes or plans here). */
  countsTokens?(argv: readonly string[]): boolean;
}

const entry = <A>(command: string, describe: string, load: () => Promise<CliCommand<A>>, countsTokens?: (argv: readonly string[]) => boolean): CommandEntry => ({
  command,
  describe,
  load: load as unknown as () => Promise<CliCommand<never>>,
  ...(countsTokens === undefined ? {} : { countsTokens }),
});

/** Runs model nodes in this process, unless they go to workers. */
const runsNodesHere = (argv: readonly string[]): boolean => !argv.includes('--workers');
/** `plan TASK` asks the planner (its prompt is counted); `plan --from FILE` only stores a plan, unless `--yes` runs it. */
const plansOrRunsHere = (argv: readonly string[]): boolean => (!argv.includes('--from') || argv.includes('--yes')) && runsNodesHere(argv);

/** Every command, in the order `dagent --help` lists them. */
export const COMMANDS: readonly CommandEntry[] = [
  entry('plan [task..]', 'plan a task as a DAG (or load a plan document with --from); prints the run id and the plan for review', async () => (await import('./plan.js')).planCommand, plansOrRunsHere),
  entry('show <run>', 'the plan for review: stages, nodes, files, critical path, width, estimate, lint', async () => (await import('./show.js')).showCommand),
  entry('edit <run>', 'edit the plan in $VISUAL / $EDITOR; the result is validated and stored as a new version', async () => (await import('./plan-documents.js')).editCommand),
  entry('export <run> [file]', "write the run's plan as a plan document (JSON) to FILE or stdout", async () => (await import('./plan-documents.js')).exportCommand),
  entry('import <run> <file>', 'replace the plan with a plan document (validated, stored as a new version; prints the diff)', async () => (await import('./plan-documents.js')).importCommand),
  entry('approve <run>', "approve the run's current plan (its hash is recorded; `run --approved HASH` checks it)", async () => (await import('./approve.js')).approveCommand),
  entry('reject <run>', "reject the run's current plan", async () => (await import('./approve.js')).rejectCommand),
  entry('run <run>', 'execute an approved plan: every node whose dependencies are done runs at once', async () => (await import('./run.js')).runCommand, runsNodesHere),
  entry('resume <run>', 'finish a run that was interrupted, failed or cancelled; succeeded nodes are not run again; of a running run, let its paused nodes go on (--node ID: that one)', async () => (await import('./run.js')).resumeCommand, runsNodesHere),
  entry('rerun <run>', 'run a node again, and every node that depends on it: their changes reverted, a new plan version; the nodes before it keep their results', async () => (await import('./rerun.js')).rerunCommand, runsNodesHere),
  entry('cancel <run>', 'stop a running run: its process aborts the running nodes and leaves the run resumable', async () => (await import('./run.js')).cancelCommand),
  entry('say <run> [text..]', 'tell a running node something (--node ID): it reads it as a user message at its next step', async () => (await import('./steer.js')).sayCommand),
  entry('pause <run>', 'stop a running node (--node ID) at its next step, the other nodes go on, until `dagent resume --node`', async () => (await import('./steer.js')).pauseCommand),
  entry('worker', 'run nodes of `run --workers` runs from the PostgreSQL job queue (--db postgres://…); Ctrl-C or SIGTERM drains', async () => (await import('./worker.js')).workerCommand, () => true),
  entry('team <task..>', 'team mode: a lead agent delegates the task to nodes it adds to the plan as it learns (each a new plan version, run at once), gathers their results and finishes', async () => (await import('./team.js')).teamCommand, runsNodesHere),
  entry('react <task..>', 'one ReAct agent, no plan: for short tasks', async () => (await import('./react.js')).reactCommand, () => true),
  entry('tool <name> [args]', "run one tool in the workspace under the same guards and approvals (args: a JSON object, e.g. '{\"path\":\"src/a.ts\"}')", async () => (await import('./tool.js')).toolCommand),
  entry('scan', 'the repository map: files, import graph, importers of a symbol', async () => (await import('./scan.js')).scanCommand),
  entry('language-service', 'the warm TypeScript service that member queries (scan, plan lint) start in the background: whether it runs, --stop', async () => (await import('./language-service.js')).languageServiceCommand),
  entry('memory <action> [text..]', 'long-term memory: add TEXT | list | search QUERY | rm ID', async () => (await import('./memory.js')).memoryCommand),
  entry('mcp <action>', 'MCP servers: list (each configured server, its state and its tools)', async () => (await import('./mcp.js')).mcpCommand),
  entry('demo', 'the offline demo: plan, review and run a TypeScript refactor of examples/notifier with the scripted model (a replan and a compaction on the way)', async () => (await import('./demo.js')).demoCommand, runsNodesHere),
  entry('status [run]', "list runs, or one run's nodes and totals", async () => (await import('./status.js')).statusCommand),
  entry('dashboard <run>', 'attach the live dashboard to a run started elsewhere (q detaches; the run goes on)', async () => (await import('./dashboard.js')).dashboardCommand),
  entry('diff <run>', 'the files a run (or one node) changed, as a unified diff', async () => (await import('./diff.js')).diffCommand),
  entry('revert <run>', 'put the files a run (or one node) changed back as they were before it', async () => (await import('./diff.js')).revertCommand),
  entry('report <run>', 'a report of a run for a pull request: plan, nodes, replans, lint, changes, how to reproduce (markdown, html or json)', async () => (await import('./report.js')).reportCommand),
  entry('trace <run>', "export a run's OpenTelemetry trace, built from its log, to the OTLP endpoint of OTEL_EXPORTER_OTLP_ENDPOINT (or --out FILE as OTLP/JSON)", async () => (await import('./trace.js')).traceCommand),
  entry('eval [suite]', 'run a suite of tasks in plan-and-execute and single-agent (react) mode: pass/fail, tokens, cost, time, critical path, plan drift; `eval list`, `--compare A B`', async () => (await import('./eval.js')).evalCommand, () => true),
  entry('log <run>', "print a run's session log (JSONL with --json)", async () => (await import('./log.js')).logCommand),
  entry('inspect <run>', 'the exact request a model received: system prompt, tools and messages, rebuilt from the log', async () => (await import('./inspect.js')).inspectCommand),
  entry('doctor', 'what this machine offers: the command sandbox, git, the database, provider keys', async () => (await import('./doctor.js')).doctorCommand),
  entry('trust', "let this workspace's .dagent/config.json set models, base URLs and approval policies (asks again when it changes)", async () => (await import('./trust.js')).trustCommand),
];

/** The name a registry entry answers to: the first word of its syntax. */
export function commandName(entry: CommandEntry): string {
  return entry.command.split(' ', 1)[0]!;
}
