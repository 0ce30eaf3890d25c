import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RUN_VIEW_EVENT_TYPES, foldRunView, openDatabase, readEvents } from '../../../engine/index.js';
import { runCli, type CliResult } from '../../helpers/cli-harness.js';
import { tempDir } from '../../helpers/temp-store.js';

/**
 * Compaction end to end, through the CLI: a scripted read node whose history outgrows a small
 * context window compacts before a model call, goes on, reads a compacted tool output back with
 * `recall_history`, and finishes; the log, `inspect`, `status` and the run view show every step.
 *
 * Sizes. A node's request starts at ≈ 2.1K tokens (system prompt, its two tools, instruction); one
 * ledger row read back through read_file is ≈ 34 tokens. With a window W the compactor fires at
 * the threshold T = W − min(20K, W/4) − min(13K, W/8), keeps the last 3 turns, and stops at
 * stage 1 (pruning old tool outputs) only when that brings the request under 60 % of T. Each
 * story's rows are chosen so that the request crosses T exactly before the intended step, with
 * about 1K tokens of margin on every side; the assertions name the estimated sizes when a margin
 * is lost (e.g. because the system prompt or a tool description grew).
 */

/** A ledger module: one exported marker near the top, then `rows` settled rows. */
function ledger(k: number, rows: number): string {
  const lines = [`// Ledger ${k}: rows settled by the nightly job.`, `export const LEDGER_${k}_MARKER = 'ledger-${k}-origin';`];
  for (let row = 1; row <= rows; row += 1) {
    lines.push(`// row ${String(row).padStart(3, '0')}: account ${10_000 + k * 97 + row} credited ${(row * 3.17 + k).toFixed(2)} EUR on 2026-0${(row % 9) + 1}-1${row % 10} by settle-${k}`);
  }
  return `${lines.join('\n')}\n`;
}

/** Sentences of padding in the instruction (see runStory). */
const N_PAD = 100;

const path = (k: number): string => `src/ledger-${k}.ts`;
const HEADINGS = ['Primary request and intent', 'Files and code', 'Commands and results', 'Errors and fixes', 'Decisions and constraints', 'Pending work and next step', 'Critical context'];

/** A summary in the template of SPEC §5.1 that names every ledger path and marker (the survival check's facts). */
function templateSummary(files: number, options: { omit?: string } = {}): string {
  const all = Array.from({ length: files }, (_, index) => index + 1);
  const sections: Record<string, string[]> = {
    'Primary request and intent': [`Survey the ledgers ${all.map(path).join(', ')} and report the marker each one exports.`],
    'Files and code': all.map((k) => `- ${path(k)}: exports LEDGER_${k}_MARKER = 'ledger-${k}-origin', then settled rows of settle-${k}.`),
    'Commands and results': ['None run.'],
    'Errors and fixes': ['None.'],
    'Decisions and constraints': ['Read-only node: no file may be written.'],
    'Pending work and next step': ['Read the remaining ledgers, then answer with every marker.'],
    'Critical context': ['The exact rows of the early ledgers are in the log: recall_history with their path.'],
  };
  const text = HEADINGS.map((heading) => `## ${heading}\n${sections[heading]!.join('\n')}`).join('\n\n');
  return options.omit === undefined ? text : text.split(options.omit).join('that ledger');
}

interface Story {
  readonly window: number;
  /** Rows of each ledger, read one per step in this order. */
  readonly rows: readonly number[];
  readonly summaries: readonly string[];
  /** Turns before the recall of ledger 1 and the answer. */
  readonly beforeRecall?: readonly object[];
  /** Leave the background candidate on (the default); off, compaction runs at the threshold only. */
  readonly background?: boolean;
}

interface LoggedEvent {
  seq: number;
  nodeId: string | null;
  turn: number;
  step: number;
  type: string;
  payload: Record<string, any>;
  surfaceOp?: { op: string; start: number; end: number };
  sourceEventSeqs?: number[];
}

const ANSWER = 'Every ledger exports its marker: ledger-1-origin is confirmed from the recalled output of src/ledger-1.ts.';

let workspace: string;
let cleanup: () => void;
beforeEach(() => ({ dir: workspace, cleanup } = tempDir('dagent-compaction-e2e-')));
afterEach(() => cleanup());

const cli = (args: readonly string[]): Promise<CliResult> => runCli(args, { cwd: workspace });

/** Writes the ledgers, a one-node plan, the scripted model, and runs `plan --from … --yes`. */
async function runStory(story: Story): Promise<{ result: CliResult; runId: string; events: LoggedEvent[]; node: LoggedEvent[] }> {
  mkdirSync(join(workspace, 'src'));
  story.rows.forEach((rows, index) => writeFileSync(join(workspace, path(index + 1)), ledger(index + 1, rows)));
  const plan = {
    goal: 'Survey the ledgers and report their markers',
    nodes: [
      {
        id: 'survey',
        kind: 'read',
        title: 'Survey the ledgers',
        // Padded to the ≈ 1K tokens the default read tools' definitions took when the sizes were chosen.
        instructions: `Read every src/ledger-*.ts one by one and report the marker each exports.${' Each ledger row is settled by the nightly job.'.repeat(N_PAD)}`,
        reads: ['src/ledger-*.ts'],
        writes: [],
        dependsOn: [],
        // Only the tools the story uses: the request's size does not move when the catalog grows.
        tools: ['read_file', 'recall_history'],
      },
    ],
  };
  writeFileSync(join(workspace, 'plan.json'), JSON.stringify(plan, null, 2));
  const script = {
    contextWindow: story.window,
    agents: {
      'node:survey': [
        ...story.rows.map((_, index) => ({ toolCalls: [{ id: `read-${index + 1}`, name: 'read_file', args: { path: path(index + 1) } }] })),
        ...(story.beforeRecall ?? []),
        { toolCalls: [{ id: 'recall-1', name: 'recall_history', args: { path: path(1) } }] },
        { text: ANSWER },
      ],
      summarizer: story.summaries.map((text) => ({ text })),
    },
  };
  writeFileSync(join(workspace, 'model.json'), JSON.stringify(script, null, 2));
  // The candidate summary computed in the background at the soft watermark is off: compaction runs at the threshold, in step.
  if (story.background !== true) {
    mkdirSync(join(workspace, '.dagent'), { recursive: true });
    writeFileSync(join(workspace, '.dagent', 'config.json'), JSON.stringify({ compaction: { softWatermark: 1 } }));
  }

  const result = await cli(['plan', '--from', 'plan.json', '--yes', '--model', 'scripted:model.json', '--approval', 'auto']);
  const runId = /^approved plan v1 of run (\S+) ·/m.exec(result.stdout)?.[1] ?? '';
  expect(runId, result.stderr).not.toBe('');
  const log = await cli(['log', runId, '--json']);
  expect(log.code).toBe(0);
  const events = log.stdout.trim().split('\n').map((line) => JSON.parse(line) as LoggedEvent);
  return { result, runId, events, node: events.filter((event) => event.nodeId === 'survey') };
}

/** `step → estimated tokens` of every request, to name the sizes when an assertion fails. */
function sizes(events: readonly LoggedEvent[]): string {
  return events
    .filter((event) => event.type === 'request/context')
    .map((event) => `step ${event.step}: ${event.payload['estimatedTokens']}`)
    .join(', ');
}

function one(events: readonly LoggedEvent[], type: string): LoggedEvent {
  const found = events.filter((event) => event.type === type);
  expect(found.map((event) => event.type), `exactly one ${type}`).toEqual([type]);
  return found[0]!;
}

const threshold = (window: number): number => Math.floor(window - Math.min(20_000, window / 4) - Math.min(13_000, window / 8));

async function statusAndView(runId: string): Promise<{ status: any; view: ReturnType<typeof foldRunView> }> {
  const status = await cli(['status', runId, '--json']);
  expect(status.code).toBe(0);
  const store = await openDatabase(join(workspace, '.dagent', 'dagent.db'));
  try {
    return { status: JSON.parse(status.stdout), view: foldRunView(runId, await readEvents(store.db, runId, { types: RUN_VIEW_EVENT_TYPES })) };
  } finally {
    await store.close();
  }
}

describe('a scripted node that outgrows its context window', () => {
  it('summarizes its oldest turns, goes on, recalls a summarized tool output by path, and finishes', async () => {
    // W = 20K → T = 12.5K; summarizing is needed because the last 3 turns alone exceed 60 % of T.
    // Ledgers 1–2 (≈ 1.4K + 3.5K) form the region; ledgers 3–5 (≈ 2.3K each) are the kept turns.
    const story: Story = { window: 20_000, rows: [40, 105, 68, 68, 68], summaries: [templateSummary(5)] };
    const { result, runId, events, node } = await runStory(story);
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    const context = `request sizes: ${sizes(node)} (threshold ${threshold(story.window)})`;

    // The transaction: start → summary → the framed summary replacing the region → end, committed.
    const start = one(node, 'compaction/start');
    const summary = one(node, 'compaction/summary');
    const end = one(node, 'compaction/end');
    const replacement = node.find((event) => event.type === 'user/message' && event.payload['source'] === 'compaction-summary');
    expect(replacement, context).toBeDefined();
    expect([start.seq < summary.seq, summary.seq < replacement!.seq, replacement!.seq < end.seq]).toEqual([true, true, true]);
    const { compactionId } = start.payload;
    expect(start.payload).toMatchObject({ trigger: 'threshold', stage: 'summary' });
    expect(start.payload['tokensBefore'], context).toBeGreaterThanOrEqual(threshold(story.window));
    expect(summary.payload).toMatchObject({ compactionId, summary: templateSummary(5), attempts: 1, missingAfterFirst: [], appendedFacts: [] });
    expect(end.payload).toMatchObject({ compactionId, outcome: 'committed' });
    expect(end.payload['tokensAfter']).toBeLessThan(end.payload['tokensBefore']);

    // The region is the first two turns: the read calls of ledgers 1 and 2 with their results.
    const results = node.filter((event) => event.type === 'tool/result');
    const reads = results.filter((event) => event.payload['name'] === 'read_file');
    const calls = node.filter((event) => event.type === 'assistant/message' && event.payload['toolCalls'].length > 0);
    const regionSeqs = [calls[0]!.seq, reads[0]!.seq, calls[1]!.seq, reads[1]!.seq];
    expect(start.payload['range']).toEqual({ start: regionSeqs[0], end: regionSeqs[3] });
    expect(replacement!.surfaceOp).toEqual({ op: 'replace', start: regionSeqs[0], end: regionSeqs[3] });
    expect(replacement!.sourceEventSeqs).toEqual([start.seq, summary.seq, ...regionSeqs]);
    expect(replacement!.payload['content']).toContain(`<compaction-summary id="${compactionId}" covers="seq ${regionSeqs[0]}-${regionSeqs[3]}">`);
    expect(replacement!.payload['content']).toContain(templateSummary(5));

    // Compaction ran in the pre-step of step 6, after the fifth read; the request it let through is smaller.
    const requests = node.filter((event) => event.type === 'request/context');
    expect(requests.map((event) => event.step)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(requests[4]!.seq < start.seq && end.seq < requests[5]!.seq, context).toBe(true);
    expect(requests[4]!.payload['estimatedTokens'], context).toBeLessThan(threshold(story.window));
    expect(requests[5]!.payload['estimatedTokens'], context).toBeLessThan(start.payload['tokensBefore']);
    expect(requests[5]!.payload['estimatedTokens'], context).toBeLessThan(requests[4]!.payload['estimatedTokens']);
    expect(requests[6]!.payload['estimatedTokens'], context).toBeLessThan(threshold(story.window));
    expect(requests[5]!.payload['messageSeqs'], context).toEqual([
      expect.any(Number),
      replacement!.seq,
      ...node.filter((event) => event.seq > regionSeqs[3]! && event.seq < requests[5]!.seq && ['assistant/message', 'tool/result'].includes(event.type)).map((event) => event.seq),
    ]);

    // recall_history by path brings back the original output of the summarized read of ledger 1.
    const recall = results.find((event) => event.payload['name'] === 'recall_history');
    expect(recall?.payload).toMatchObject({ toolCallId: 'recall-1', isError: false });
    expect(recall!.payload['content']).toContain(`#${reads[0]!.seq} node survey turn 1 step 1 tool/result`);
    expect(recall!.payload['content']).toContain(reads[0]!.payload['content']);
    expect(reads[0]!.payload['content']).toContain("     2\texport const LEDGER_1_MARKER = 'ledger-1-origin';");

    // Every step in the log, in order, and the node and the run succeeded.
    const chain = node.filter((event) => !['prompt/recorded', 'tool/call', 'node/snapshotted', 'node/ready', 'node/started'].includes(event.type)).map((event) => event.type);
    expect(chain.slice(chain.indexOf('compaction/start'))).toEqual([
      'compaction/start',
      'compaction/summary',
      'user/message',
      'compaction/end',
      'request/header',
      'request/context',
      'assistant/message',
      'tool/result',
      'request/header',
      'request/context',
      'assistant/message',
      'agent/finished',
      'node/keyed',
      'node/succeeded',
    ]);
    expect(one(node, 'agent/finished').payload).toMatchObject({ reason: 'done', steps: 7 });
    expect(events.at(-1)?.type).toBe('run/succeeded');
    expect(result.stdout).toMatch(/⇣ survey compaction committed [\d.]+K → [\d.]+K tokens/);
    expect(result.stdout).toContain(`run ${runId} succeeded · plan v1 · 1/1 nodes succeeded`);

    // inspect after the compaction: the summary stands where the shadowed events were.
    const after = JSON.parse((await cli(['inspect', runId, '--node', 'survey', '--step', '6', '--json'])).stdout);
    const seqs = after.messages.map((message: { seq: number }) => message.seq);
    expect(seqs).toContain(replacement!.seq);
    for (const seq of regionSeqs) expect(seqs).not.toContain(seq);
    expect(after.messages[1]).toMatchObject({ role: 'user', source: 'compaction-summary', content: replacement!.payload['content'] });
    expect(after.estimatedTokens).toBe(requests[5]!.payload['estimatedTokens']);
    // … and a request from before it still replays as it was sent.
    const before = JSON.parse((await cli(['inspect', runId, '--node', 'survey', '--step', '5', '--json'])).stdout);
    expect(before.messages.map((message: { seq: number }) => message.seq)).toEqual(expect.arrayContaining(regionSeqs));
    expect(before.messages.find((message: { seq: number }) => message.seq === reads[0]!.seq).content).toBe(reads[0]!.payload['content']);

    // status --json and the run view carry the compaction and the node's context fill.
    const { status, view } = await statusAndView(runId);
    const compaction = { compactionId, seq: start.seq, trigger: 'threshold', tokensBefore: start.payload['tokensBefore'], tokensAfter: end.payload['tokensAfter'], outcome: 'committed' };
    expect(view.nodes.get('survey')?.compactions).toEqual([compaction]);
    expect(view.nodes.get('survey')?.contextTokens).toBe(requests[6]!.payload['estimatedTokens']);
    expect(status.nodes[0]).toMatchObject({ id: 'survey', status: 'succeeded', compactions: [compaction] });
  });

  it('prunes old tool outputs to placeholders when that is enough, and recalls a pruned output by path', async () => {
    // W = 32K → T = 20K, prune target 12K. Ledger 1 is the biggest (≈ 3K); ledgers 2–4 (≈ 2.7K)
    // are old too; the kept turns (ledgers 5–7, ≈ 2.9K each) fit under the target with the prompt.
    const story: Story = { window: 32_000, rows: [90, 80, 80, 80, 86, 86, 86], summaries: [] };
    const { result, runId, events, node } = await runStory(story);
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    const context = `request sizes: ${sizes(node)} (threshold ${threshold(story.window)})`;

    const start = one(node, 'compaction/start');
    const end = one(node, 'compaction/end');
    expect(node.some((event) => event.type === 'compaction/summary'), context).toBe(false);
    expect(start.payload).toMatchObject({ trigger: 'threshold', stage: 'prune' });
    expect(end.payload).toMatchObject({ compactionId: start.payload['compactionId'], outcome: 'committed' });
    expect(end.payload['tokensAfter'], context).toBeLessThanOrEqual(Math.floor(threshold(story.window) * 0.6));

    // Each pruned output is replaced on the surface by a placeholder naming its seq.
    const reads = node.filter((event) => event.type === 'tool/result' && event.payload['name'] === 'read_file' && event.payload['meta']['pruned'] !== true);
    const placeholders = node.filter((event) => event.type === 'tool/result' && event.payload['meta']['pruned'] === true);
    expect(reads).toHaveLength(7);
    expect(placeholders.map((event) => event.payload['meta']['prunedSeq']), context).toEqual(reads.slice(0, 4).map((event) => event.seq));
    for (const [index, placeholder] of placeholders.entries()) {
      const original = reads[index]!;
      expect(placeholder.seq > start.seq && placeholder.seq < end.seq).toBe(true);
      expect(placeholder.surfaceOp).toEqual({ op: 'replace', start: original.seq, end: original.seq });
      expect(placeholder.sourceEventSeqs).toEqual([original.seq]);
      expect(placeholder.payload).toMatchObject({
        toolCallId: original.payload['toolCallId'],
        content: `[output of read_file ${path(index + 1)} pruned — recall_history seq=${original.seq}]`,
      });
    }

    // The next request is smaller and carries the placeholders instead of the outputs.
    const requests = node.filter((event) => event.type === 'request/context');
    expect(requests.map((event) => event.step)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(requests[7]!.payload['estimatedTokens'], context).toBeLessThan(requests[6]!.payload['estimatedTokens']);
    const inspected = JSON.parse((await cli(['inspect', runId, '--node', 'survey', '--step', '8', '--json'])).stdout);
    const contents = inspected.messages.filter((message: { role: string }) => message.role === 'tool').map((message: { content: string }) => message.content);
    expect(contents.slice(0, 4)).toEqual(placeholders.map((event) => event.payload['content']));
    expect(contents[4]).toBe(reads[4]!.payload['content']);

    // recall_history by path: the original output of the pruned read of ledger 1, from the log.
    const recall = node.find((event) => event.type === 'tool/result' && event.payload['name'] === 'recall_history');
    expect(recall?.payload['isError']).toBe(false);
    expect(recall!.payload['content']).toContain(`#${reads[0]!.seq} node survey turn 1 step 1 tool/result`);
    expect(recall!.payload['content']).toContain(reads[0]!.payload['content']);
    expect(recall!.payload['content']).toContain("export const LEDGER_1_MARKER = 'ledger-1-origin';");

    expect(one(node, 'agent/finished').payload).toMatchObject({ reason: 'done', steps: 9 });
    expect(node.at(-1)?.type).toBe('node/succeeded');
    expect(events.at(-1)?.type).toBe('run/succeeded');
    const { status, view } = await statusAndView(runId);
    expect(view.nodes.get('survey')?.compactions).toMatchObject([{ outcome: 'committed', trigger: 'threshold' }]);
    expect(status.nodes[0].compactions).toMatchObject([{ outcome: 'committed', tokensAfter: end.payload['tokensAfter'] }]);
  });

  it('retries a summary that lost a file path once, naming it, and commits the complete one', async () => {
    const lossy = templateSummary(5, { omit: path(2) });
    const story: Story = { window: 20_000, rows: [40, 105, 68, 68, 68], summaries: [lossy, templateSummary(5)] };
    const { result, node } = await runStory(story);
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(lossy).not.toContain(path(2));
    const summary = one(node, 'compaction/summary');
    expect(summary.payload).toMatchObject({ summary: templateSummary(5), attempts: 2, missingAfterFirst: [{ kind: 'path', value: path(2) }], appendedFacts: [] });
    expect(one(node, 'compaction/end').payload).toMatchObject({ outcome: 'committed' });
    expect(one(node, 'agent/finished').payload).toMatchObject({ reason: 'done' });
  });

  it('compacts when the provider refuses the request as too long, then retries the call once and goes on', async () => {
    // Under the threshold by our estimate, but the provider says the context is exceeded (DeepSeek's 400 wording).
    const overflow = {
      error: {
        status: 400,
        message: "This model's maximum context length is 16384 tokens. However, you requested 17211 tokens (16211 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
      },
    };
    const story: Story = { window: 32_000, rows: [90, 80, 80, 86, 86], summaries: [], beforeRecall: [overflow] };
    const { result, node } = await runStory(story);
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    const context = `request sizes: ${sizes(node)} (threshold ${threshold(story.window)})`;

    const start = one(node, 'compaction/start');
    const end = one(node, 'compaction/end');
    expect(start.payload, context).toMatchObject({ trigger: 'overflow' });
    expect(start.payload['tokensBefore'], context).toBeLessThan(threshold(story.window));
    expect(end.payload).toMatchObject({ outcome: 'committed' });
    // The refused request, the compaction, then the same call again on the smaller surface.
    const requests = node.filter((event) => event.type === 'request/context');
    const refused = requests.filter((event) => event.seq < start.seq).at(-1)!;
    const retried = requests.find((event) => event.seq > end.seq)!;
    expect(node.filter((event) => event.seq > refused.seq && event.seq < start.seq && event.type === 'assistant/message')).toEqual([]);
    expect(retried.payload['estimatedTokens'], context).toBeLessThan(refused.payload['estimatedTokens']);
    const recall = node.find((event) => event.type === 'tool/result' && event.payload['name'] === 'recall_history');
    expect(recall!.payload['content']).toContain("export const LEDGER_1_MARKER = 'ledger-1-origin';");
    expect(one(node, 'agent/finished').payload).toMatchObject({ reason: 'done' });
    expect(node.at(-1)?.type).toBe('node/succeeded');
  });

  it('with the default soft watermark, summarizes in the background and commits the candidate at the threshold', async () => {
    // Same sizes as the first story; the soft watermark (70 % of T = 8.75K) is crossed at step 4.
    const story: Story = { window: 20_000, rows: [40, 105, 68, 68, 68], summaries: [templateSummary(5), templateSummary(5), templateSummary(5)], background: true };
    const { result, node } = await runStory(story);
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    const context = `request sizes: ${sizes(node)} (threshold ${threshold(story.window)})`;

    const starts = node.filter((event) => event.type === 'compaction/start');
    const ends = node.filter((event) => event.type === 'compaction/end');
    // Every compaction that started was closed, exactly once.
    expect(ends.map((event) => event.payload['compactionId']).sort()).toEqual(starts.map((event) => event.payload['compactionId']).sort());
    const [candidate] = starts;
    expect(candidate?.payload, context).toMatchObject({ trigger: 'background', stage: 'summary', surfaceGeneration: 0 });
    expect(candidate!.payload['tokensBefore'], context).toBeLessThan(threshold(story.window));
    const candidateEnd = ends.find((event) => event.payload['compactionId'] === candidate!.payload['compactionId'])!;
    expect(candidateEnd.payload).toMatchObject({ outcome: 'committed' });
    // Computed while the node went on (started after one request), committed before the first request at the threshold.
    const requests = node.filter((event) => event.type === 'request/context');
    const startedAfter = requests.filter((event) => event.seq < candidate!.seq).at(-1)!;
    const committedBefore = requests.find((event) => event.seq > candidateEnd.seq)!;
    expect(committedBefore.step, context).toBeGreaterThan(startedAfter.step);
    const replacement = node.find((event) => event.type === 'user/message' && event.payload['compactionId'] === candidate!.payload['compactionId']);
    expect(replacement?.surfaceOp).toEqual({ op: 'replace', ...candidate!.payload['range'] });
    // The request the compactions let through is back under the threshold, and the node finishes with its recall.
    expect(committedBefore.payload['estimatedTokens'], context).toBeLessThan(threshold(story.window));
    const recall = node.find((event) => event.type === 'tool/result' && event.payload['name'] === 'recall_history');
    expect(recall!.payload['content']).toContain("export const LEDGER_1_MARKER = 'ledger-1-origin';");
    expect(one(node, 'agent/finished').payload).toMatchObject({ reason: 'done' });
    expect(node.at(-1)?.type).toBe('node/succeeded');
  });
});
