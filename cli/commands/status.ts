import { REVERTS_FOLD_TYPES, RUN_VIEW_EVENT_TYPES, countRunsByMode, foldReverts, nodeRevertedLabel, revertedState, revertedStateLabel, budgetUse, budgetUseJson, budgetUseText, nodeBudgetUse, pausedBudgetWayOn, nodeWorkspaceLabel, nodeWorkspaceLine, shortCommit, deadRunOwner, foldRunView, getRun, listRuns, needsLivingProcess, readEvents, runOwner, visibleJson, visibleText, type RevertedState, type RunOwner, type NodeView, type RunRecord, type RunView } from '../../engine/read-face.js';
import { basename } from 'node:path';
import { integerAtLeast } from '../context/cli-args.js';
import { writeLine } from '../context/cli-io.js';
import { defineCommand } from '../context/command.js';
import { durationBetween, foldLines, formatDuration, formatTokens, formatUsd, nodeRevertedJson, overlappedNote, plural, renderTable, revertedLines } from '../render/index.js';

export const statusCommand = defineCommand<{ run?: string; all?: boolean; limit?: number }>({
  examples: [
    ['$0 status', 'every run, newest first'],
    ['$0 status r-7f3a', 'one run\'s nodes, tokens and cost'],
  ],
  builder: (yargs) =>
    yargs
      .positional('run', { type: 'string', describe: 'run id (a unique prefix is enough)' })
      .option('all', { type: 'boolean', describe: 'list the runs of `dagent tool` too (each tool call is a run of its own)' })
      .option('limit', { type: 'number', coerce: integerAtLeast('--limit', 1), describe: 'list at most N runs, newest first (default 50)' }),
  async run(context, args) {
    const { db } = await context.readStore();
    if (args.run === undefined) {
      const limit = args.limit ?? 50;
      // `dagent tool` calls are runs too (their log is kept), but not the plans and tasks the user follows.
      const runs = await listRuns(db, { limit, ...(args.all === true ? {} : { exceptModes: ['tool'] }) });
      const counts = await countRunsByMode(db);
      const toolRuns = args.all === true ? 0 : (counts.get('tool') ?? 0);
      const listable = [...counts.values()].reduce((sum, count) => sum + count, 0) - toolRuns;
      // A planning or running run whose process is gone will not move on by itself: the list says so.
      const dead = new Map<string, RunOwner>();
      for (const run of runs) {
        const owner = await deadRunOwner(db, run);
        if (owner !== undefined) dead.set(run.id, owner);
      }
      const reverted = await revertedStates(db, runs);
      if (context.json) {
        const listed = runs.map((run) => ({ id: run.id, status: run.status, mode: run.mode, planVersion: run.planVersion, task: run.task, createdAt: run.createdAt, ...(dead.has(run.id) ? { process: dead.get(run.id) } : {}), ...withDefined('revertState', reverted.get(run.id)) }));
        writeLine(context.io.stdout, visibleJson(JSON.stringify({ runs: listed, total: listable })));
      } else if (runs.length === 0) {
        writeLine(context.io.stdout, `no runs yet: \`dagent plan "<task>"\` starts one${toolRuns === 0 ? '' : ` (${toolRuns} \`dagent tool\` call${toolRuns === 1 ? '' : 's'}: status --all lists them)`}`);
      } else {
        const status = (run: RunRecord): string => `${dead.has(run.id) ? `${statusText(run.status)}, process gone` : statusText(run.status)}${revertedPart(reverted.get(run.id))}`;
        const rows = [['RUN', 'STATUS', 'PLAN', 'CREATED', 'TASK'], ...runs.map((run) => [run.id, status(run), run.planVersion === null ? '-' : `v${run.planVersion}`, run.createdAt.slice(0, 16).replace('T', ' '), oneLine(run.task, 60)])];
        writeLine(context.io.stdout, renderTable(rows));
        if (runs.length < listable) writeLine(context.io.stdout, `the newest ${runs.length} of ${listable} runs: --limit ${listable} lists them all`);
        if (dead.size > 0) writeLine(context.io.stdout, `\n${deadRunsHint(runs.filter((run) => dead.has(run.id)))}`);
        if (toolRuns > 0) writeLine(context.io.stdout, `${toolRuns} \`dagent tool\` call${toolRuns === 1 ? '' : 's'} not listed: status --all lists them`);
      }
      return 0;
    }
    const run = await getRun(db, args.run);
    const view = foldRunView(run.id, await readEvents(db, run.id, { types: RUN_VIEW_EVENT_TYPES }));
    const owner = needsLivingProcess(view.status) ? await runOwner(db, run.id) : undefined;
    const undeclared = await undeclaredChangesOf(db, run.id);
    if (context.json) writeLine(context.io.stdout, visibleJson(JSON.stringify(withUndeclared(statusJson(view, owner), undeclared))));
    else writeLine(context.io.stdout, [renderStatusText(view, new Date(), owner, run.mode), ...undeclaredLines(undeclared), ...workspaceLines(view), ...revertedLines(view.runId, view.reverts)].join('\n'));
    return 0;
  },
});

/**
 * The `status <run> --json` document of the CLI contract; a running run also names its process
 * (`alive: false` when it was killed and the run waits for `dagent resume`).
 */
export function statusJson(view: RunView, owner?: RunOwner): unknown {
  const nodes = view.order.map((id) => view.nodes.get(id)!);
  return {
    run: { id: view.runId, status: view.status, planVersion: view.planVersion, task: view.task, ...(owner === undefined ? {} : { process: owner }), ...(view.rejection === null ? {} : { rejection: view.rejection }), ...(view.reverts.run === null ? {} : { reverted: view.reverts.run }), ...withDefined('revertState', revertedState(view.reverts)) },
    nodes: nodes.map((node) => ({
      id: node.id,
      status: node.status,
      attempts: node.attempts,
      startedAt: node.startedAt,
      finishedAt: node.finishedAt,
      tokens: node.tokens,
      costUsd: node.costUsd,
      contextTokens: node.contextTokens,
      compactions: node.compactions,
      ...nodeBudgetJson(node),
      ...(node.model === null ? {} : { model: node.model }),
      ...(node.routedTo === null ? {} : { routedTo: node.routedTo }),
      ...(node.modelSwitches.length === 0 ? {} : { modelSwitches: node.modelSwitches.map(({ from, to, reason, error }) => ({ from, to, reason, error })) }),
      ...(node.error === null ? {} : { error: node.error }),
      ...(node.status === 'running' && node.pause !== null ? { pause: node.pause } : {}),
      ...(node.reused ? { reused: true } : {}),
      ...(node.resumedFromStep === null ? {} : { resumedFromStep: node.resumedFromStep }),
      ...(node.savedCostUsd > 0 || node.saved.input + node.saved.output > 0 ? { saved: { tokens: node.saved, costUsd: node.savedCostUsd } } : {}),
      // Its own workspace (isolation: worktree): clean, changed, merged (its commit), conflict or discarded.
      ...(node.workspace === null ? {} : { workspace: node.workspace }),
      // Its change undone by `dagent revert` (its own, or the run's).
      ...withDefined('reverted', nodeRevertedJson(view.reverts, node.id)),
    })),
    totals: {
      tokens: { input: view.totals.input, output: view.totals.output, cacheHit: view.totals.cacheHit, reasoning: view.totals.reasoning },
      costUsd: view.totals.costUsd,
      modelCalls: view.totals.modelCalls,
      nodes: countBy(nodes.map((node) => node.status)),
      // What reuse (and resume) did not pay again.
      saved: view.saved,
    },
    ...budgetJson(view),
  };
}

export function renderStatusText(view: RunView, now: Date = new Date(), owner?: RunOwner, mode?: string): string {
  const nodes = view.order.map((id) => view.nodes.get(id)!);
  const done = nodes.filter((node) => node.status === 'succeeded').length;
  const gone = owner !== undefined && !owner.alive && needsLivingProcess(view.status);
  const status = gone ? `${statusText(view.status)}, but its process (pid ${owner.pid}) is gone` : statusText(view.status);
  // A dead run's clock stopped with its last event: its nodes' time does not keep growing.
  const clock = gone && view.lastEventAt !== null ? new Date(view.lastEventAt) : now;
  const header = `run ${view.runId} · ${status}${revertedPart(revertedState(view.reverts))}${view.planVersion === null ? '' : ` · plan v${view.planVersion}`} · ${done}/${nodes.length} nodes done`;
  const lines = [header, oneLine(view.task, 100)];
  if (nodes.length > 0) {
    // Nodes in their own workspaces (isolation: worktree) show where each stands.
    const isolated = nodes.some((node) => node.workspace !== null);
    const rows = [['NODE', 'STATUS', 'TRIES', 'TIME', 'TOKENS', 'COST', ...(isolated ? ['WORKSPACE'] : []), 'MODEL']];
    for (const node of nodes) {
      const duration = durationBetween(node.startedAt, node.finishedAt, clock);
      rows.push([
        visibleText(node.id),
        nodeStatusText(node),
        String(node.attempts),
        duration === undefined ? '-' : formatDuration(duration),
        formatTokens(node.tokens.input + node.tokens.output),
        formatUsd(node.costUsd),
        ...(isolated ? [node.workspace === null ? '-' : withReverted(nodeWorkspaceLabel(node.workspace), view, node.id)] : []),
        modelLabel(node),
      ]);
    }
    lines.push('', renderTable(rows, { rightAlign: [2, 3, 4, 5] }));
    const paused = nodes.filter((node) => node.status === 'running' && node.pause !== null).map((node) => visibleText(node.id));
    if (paused.length > 0) lines.push(`paused by request: ${paused.join(', ')}; \`dagent resume ${view.runId}\` lets ${paused.length === 1 ? 'it' : 'them'} go on`);
    // An error's first line says it all (a command's: its exit code and the line that names the error); the log holds the rest.
    for (const node of nodes) if (node.status === 'failed' && node.error !== null) lines.push(`${visibleText(node.id)} failed: ${oneLine(node.error.split('\n', 1)[0]!, 200)}`);
    for (const node of nodes) for (const change of node.modelSwitches) lines.push(modelSwitchLine(node.id, change));
    for (const node of nodes) if (node.resumedFromStep !== null) lines.push(`${visibleText(node.id)} resumed from step ${node.resumedFromStep}: its completed steps were not run again`);
  }
  const cacheShare = view.totals.input === 0 ? 0 : view.totals.cacheHit / view.totals.input;
  lines.push(
    '',
    `tokens ${formatTokens(view.totals.input)} in (${Math.round(cacheShare * 100)}% cache hit) · ${formatTokens(view.totals.output)} out · ${plural(view.totals.modelCalls, 'model call')} · ${formatUsd(view.totals.costUsd)}`,
  );
  lines.push(...budgetLines(view));
  const saved = savedLine(view);
  if (saved !== undefined) lines.push(saved);
  if (view.status === 'paused' && view.pausedReason !== null) lines.push(`paused: ${visibleText(view.pausedReason)}; ${visibleText(pausedBudgetWayOn(view))}`);
  for (const replan of view.replans) if (replan.outcome !== 'amended' && replan.reason !== undefined) lines.push(replanLine(view.runId, replan.trigger, replan.outcome, replan.reason));
  if (view.error !== null) lines.push(`error: ${visibleText(view.error, { multiline: true })}`);
  if (view.status === 'rejected' && view.rejection !== null) lines.push(rejectionLine(view.runId, view.rejection));
  if (gone && view.status === 'planning') lines.push(`it has no plan: \`dagent cancel ${view.runId}\` closes it, and \`dagent plan\` plans the task again`);
  else if (gone && mode === 'react') lines.push(reactGoneLine(view.runId));
  else if (gone) lines.push(`\`dagent resume ${view.runId}\` finishes it: succeeded nodes are not run again, nodes that were running go on from their last completed step; \`dagent cancel ${view.runId}\` closes it`);
  return lines.join('\n');
}

/** `plan v1 was rejected: too broad; …`: why, when the reviewer said, and how a new version is made. */
function rejectionLine(runId: string, rejection: NonNullable<RunView['rejection']>): string {
  const why = rejection.reason === null ? '' : `: ${oneLine(visibleText(rejection.reason), 200)}`;
  return `plan v${rejection.version} was rejected${why}; \`dagent edit ${runId}\` or \`dagent import ${runId} FILE\` makes a new version to review`;
}

/** A node's STATUS cell: `reused` for a kept result, `paused` or `pausing` for a running node a pause was asked of. */
function nodeStatusText(node: NodeView): string {
  if (node.reused && node.status === 'succeeded') return 'reused';
  if (node.status === 'running' && node.pause !== null) return node.pause === 'paused' ? 'paused' : 'pausing';
  return node.status;
}

/** `budget: { maxCostUsd, maxTokens, spentUsd, spentTokens }` when the run has one. */
function budgetJson(view: RunView): { budget?: unknown } {
  const use = budgetUse(view);
  return use === undefined ? {} : { budget: budgetUseJson(use) };
}

/** A node's own plan budget, the same shape as the run's: its caps and what the node spent. */
function nodeBudgetJson(node: NodeView): { budget?: unknown } {
  const use = nodeBudgetUse(node);
  return use === undefined ? {} : { budget: budgetUseJson(use) };
}

/**
 * `budget: $0.0412 of $0.0500 (82%) · 41200 of 100000 tokens (41%)` when the run has one, and a
 * line per node with its own plan budget (`budget of edit-b: 4371 of 6000 tokens (73%)`).
 */
export function budgetLines(view: RunView): string[] {
  const use = budgetUse(view);
  const nodes = view.order.flatMap((id) => {
    const node = view.nodes.get(id);
    const nodeUse = node === undefined ? undefined : nodeBudgetUse(node);
    return nodeUse === undefined ? [] : [`budget of ${visibleText(id)}: ${budgetUseText(nodeUse)}`];
  });
  return [...(use === undefined ? [] : [`budget: ${budgetUseText(use)}`]), ...nodes];
}

/** `saved by reuse: 2 nodes reused · 5 model calls · 48K tokens · $0.01 not paid again`, when anything was. */
export function savedLine(view: RunView): string | undefined {
  const { saved } = view;
  if (saved.modelCalls === 0 && saved.reusedNodes === 0 && saved.resumedNodes === 0) return undefined;
  const parts = [
    ...(saved.reusedNodes > 0 ? [`${saved.reusedNodes} node${saved.reusedNodes === 1 ? '' : 's'} reused`] : []),
    ...(saved.resumedNodes > 0 ? [`${saved.resumedNodes} resumed from their last step`] : []),
    `${plural(saved.modelCalls, 'model call')} · ${formatTokens(saved.tokens.input + saved.tokens.output)} tokens · ${formatUsd(saved.costUsd)} not paid again`,
  ];
  return `saved: ${parts.join(' · ')}`;
}

/**
 * The model a node ran with (its last answer's), `-` before any; a scripted model by its file's
 * name; `(small)` when routing sent it to the small model and it stayed there.
 */
function modelLabel(node: NodeView): string {
  if (node.model === null) return node.routedTo === null ? '-' : `${visibleText(shortModel(node.routedTo))} (small)`;
  const small = node.routedTo !== null && node.modelSwitches.length === 0;
  return `${visibleText(shortModel(node.model))}${small ? ' (small)' : ''}`;
}

function shortModel(model: string): string {
  return model.startsWith('scripted:') ? `scripted:${basename(model.slice('scripted:'.length))}` : model;
}

/** `edit-a: model openai:gpt-4.1 gave way to deepseek:deepseek-chat (retries exhausted: openai 503: …)`. */
function modelSwitchLine(nodeId: string, change: { readonly from: string; readonly to: string; readonly reason: string; readonly error: string }): string {
  return `${visibleText(nodeId)}: model ${visibleText(change.from)} gave way to ${visibleText(change.to)} (${change.reason.replace('-', ' ')}: ${oneLine(change.error, 160)})`;
}

/** A react run whose process is gone is not resumed (it has no plan): its diff, which records what a command cut short changed, and cancel. */
function reactGoneLine(runId: string): string {
  return `a react run has no plan to resume: \`dagent diff ${runId}\` shows what it changed, a command the crash cut short included; \`dagent cancel ${runId}\` closes it`;
}

/** What to do with runs whose process is gone: resume a running one (see the diff of a react one), cancel a planning one. */
function deadRunsHint(runs: readonly RunRecord[]): string {
  const planning = runs.filter((run) => run.status === 'planning').map((run) => run.id);
  const running = runs.filter((run) => run.status === 'running' && run.mode !== 'react').map((run) => run.id);
  const reacting = runs.filter((run) => run.status === 'running' && run.mode === 'react').map((run) => run.id);
  const parts = [
    ...(running.length === 0 ? [] : [`\`dagent resume ${running[0]}\` finishes a run whose process is gone (\`dagent cancel\` closes it)`]),
    ...(reacting.length === 0 ? [] : [`\`dagent diff ${reacting[0]}\` shows what a react run changed before its process went (\`dagent cancel\` closes it)`]),
    ...(planning.length === 0 ? [] : [`\`dagent cancel ${planning[0]}\` closes one that was planning`]),
  ];
  return `process gone: killed, crashed or its terminal closed; ${parts.join('; ')}`;
}

/** Per node, the files it changed outside its declared writes (from its `writes/exceeded` events). */
async function undeclaredChangesOf(db: Parameters<typeof readEvents>[0], runId: string): Promise<Map<string, Undeclared>> {
  const byNode = new Map<string, Undeclared>();
  for (const event of await readEvents(db, runId, { types: ['writes/exceeded'] })) {
    if (event.type !== 'writes/exceeded' || event.nodeId === null) continue;
    const paths = [...new Set([...(byNode.get(event.nodeId)?.paths ?? []), ...event.payload.paths])].sort();
    const overlapped = [...new Set([...(byNode.get(event.nodeId)?.overlapped ?? []), ...(event.payload.overlapped ?? [])])].sort();
    // The node's last attempt says whether strictWrites failed it.
    byNode.set(event.nodeId, { paths, enforced: event.payload.enforced === true, overlapped });
  }
  return byNode;
}

/** A node's changes beyond its declared writes; `enforced`: strictWrites failed it for them (not merged). */
interface Undeclared {
  readonly paths: readonly string[];
  readonly enforced: boolean;
  /** Without git: nodes whose commands ran at the same time (the changes may be theirs). */
  readonly overlapped: readonly string[];
}

function undeclaredLines(undeclared: ReadonlyMap<string, Undeclared>): string[] {
  return [...undeclared].map(([node, { paths, enforced, overlapped }]) =>
    enforced
      ? `error: ${visibleText(node)} changed files outside its declared writes: ${visibleText(paths.join(', '))} (strictWrites: the node failed and its change was not merged)`
      : `warning: ${visibleText(node)} changed files outside its declared writes: ${visibleText(paths.join(', '))} (in \`dagent diff\`; \`dagent revert --node ${visibleText(node)}\` undoes them)${visibleText(overlappedNote(overlapped))}`,
  );
}

function withUndeclared(document: unknown, undeclared: ReadonlyMap<string, Undeclared>): unknown {
  const status = document as { nodes: { id: string }[] };
  return {
    ...status,
    nodes: status.nodes.map((node) => {
      const found = undeclared.get(node.id);
      return found === undefined ? node : { ...node, undeclaredChanges: found.paths, ...(found.enforced ? { strictWritesFailed: true } : {}), ...(found.overlapped.length > 0 ? { undeclaredOverlapped: found.overlapped } : {}) };
    }),
  };
}

function countBy(values: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

/** Per listed run, where its changes stand after `dagent revert` (only the runs with one undone now). */
async function revertedStates(db: Parameters<typeof readEvents>[0], runs: readonly RunRecord[]): Promise<Map<string, RevertedState>> {
  const states = new Map<string, RevertedState>();
  for (const run of runs) {
    const state = revertedState(foldReverts(await readEvents(db, run.id, { types: REVERTS_FOLD_TYPES })));
    if (state !== undefined) states.set(run.id, state);
  }
  return states;
}

/** ` · reverted`, ` · 1 node reverted` after a run's status, so a run whose changes are undone does not read as in the workspace. */
function revertedPart(state: RevertedState | undefined): string {
  return state === undefined ? '' : ` · ${revertedStateLabel(state)}`;
}

/** A run's status as the text shows it: `awaiting approval`, not the stored `awaiting_approval` (JSON keeps that). */
function statusText(status: string): string {
  return status.replaceAll('_', ' ');
}

/** `text` on one line of at most `max` characters, with control characters and escapes made visible. */
function oneLine(text: string, max: number): string {
  const line = visibleText(foldLines(text));
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/**
 * `workspace: cmd-a merged 2 files as 1a2b3c4d5e6f on dagent/r-7f3a` for each node whose commit is
 * on the run branch, and the files left as the user edited them.
 */
/** `replan after node-failure gave-up: …`: its reason's first line; one too long for a line ends where the log has it whole. */
function replanLine(runId: string, trigger: string, outcome: string | undefined, reason: string): string {
  const first = reason.split('\n', 1)[0]!;
  const line = oneLine(first, 240);
  const cut = line.endsWith('…') || first.length < reason.trimEnd().length;
  return `replan after ${trigger} ${outcome ?? 'ended'}: ${line}${cut ? ` (\`dagent log ${runId} --type replan/\` has it whole)` : ''}`;
}

/** Past this many merged nodes, their commits are one line (`git log` lists them), not a line each under the table. */
const MERGED_LINES_MAX = 8;

function workspaceLines(view: RunView): string[] {
  const merged = view.order.filter((id) => view.nodes.get(id)?.workspace?.state === 'merged');
  if (merged.length > MERGED_LINES_MAX) {
    const branch = view.nodes.get(merged[0]!)?.workspace?.branch ?? `dagent/${view.runId}`;
    const line = `workspace: ${merged.length} nodes merged, each as a commit on ${branch} (\`git log --oneline ${branch}\` lists them; \`dagent inspect ${view.runId} --node ID\` names one)`;
    return [line, ...merged.flatMap((id) => keptYoursWarning(view, id))];
  }
  return view.order.flatMap((id) => {
    const workspace = view.nodes.get(id)?.workspace;
    if (workspace === null || workspace === undefined || workspace.state !== 'merged' || workspace.commit === undefined) return [];
    return [`workspace: ${visibleText(id)} ${visibleText(withReverted(nodeWorkspaceLine(workspace), view, id))}`, ...keptYoursWarning(view, id)];
  });
}

/** A merged node's workspace label, and `, reverted since` when `dagent revert` undid its change. */
function withReverted(label: string, view: RunView, id: string): string {
  const reverted = view.nodes.get(id)?.workspace?.state === 'merged' ? nodeRevertedLabel(view.reverts, id) : undefined;
  return reverted === undefined ? label : `${label}, ${reverted} since`;
}

function withDefined(key: string, value: object | undefined): Record<string, object> {
  return value === undefined ? {} : { [key]: value };
}

/** A merged node's change that your own edits of a file kept out of it. */
function keptYoursWarning(view: RunView, id: string): string[] {
  const workspace = view.nodes.get(id)?.workspace;
  if (workspace === null || workspace === undefined || workspace.state !== 'merged' || workspace.commit === undefined) return [];
  const kept = workspace.keptYours ?? [];
  const commit = shortCommit(workspace.commit);
  return kept.length === 0 ? [] : [`warning: ${visibleText(id)}'s change was not brought into your edited ${visibleText(kept.join(', '))} (\`git diff ${commit}^ ${commit}\` shows it)`];
}
