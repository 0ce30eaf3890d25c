import type { ModelMessage, ModelParameters, ModelRequest, ToolSpec } from '../model/index.js';
import type { SurfaceEvent } from '../session/index.js';
import type { SurvivalFact } from './survival-check.js';

/** The fixed sections of every compaction summary, in order (SPEC §5.1). */
export const SUMMARY_SECTIONS = [
  { title: 'Primary request and intent', guide: 'What the node was asked to do, in full, and every refinement added since.' },
  {
    title: 'Files and code (read, changed, key facts)',
    guide: 'Every file path read or changed, what changed in it, and the key facts learned: signatures, exported names, types, line numbers that matter. Quote short code the remaining work depends on.',
  },
  { title: 'Commands and results', guide: 'Commands run and their outcome: exit status, passing and failing test names, the error output that matters.' },
  { title: 'Errors and fixes', guide: 'Errors met, and how each was fixed or that it is still open.' },
  { title: 'Decisions and constraints', guide: 'Decisions taken and why; constraints from the instruction, the plan or the code.' },
  { title: 'Pending work and next step', guide: 'What is left to do, and the very next step, as precisely as the conversation allows.' },
  { title: 'Critical context', guide: 'Anything else the work cannot continue without.' },
  {
    title: 'Key facts for later',
    guide: 'Decisions, conventions and lessons worth keeping beyond this task, one per line as `- decision: …`, `- convention: …` or `- lesson: …`; nothing when there are none.',
  },
] as const;

/** The longest tool-result index a summary instruction lists. */
const MAX_INDEX_LINES = 300;

/** Surface positions a compaction covers, both inclusive. */
export interface SeqRange {
  readonly start: number;
  readonly end: number;
}

export interface SummaryInstructionInput {
  readonly covered: SeqRange;
  /** The region's events, for the index of tool results by seq. */
  readonly region: readonly SurfaceEvent[];
  /** Facts an earlier attempt lost; the retry names them. */
  readonly missing?: readonly SurvivalFact[];
}

/** The user message that asks for the summary: the template, the covered seqs and an index of tool results. */
export function summaryInstruction(input: SummaryInstructionInput): string {
  const sections = SUMMARY_SECTIONS.map((section) => `## ${section.title}\n${section.guide}`).join('\n');
  const parts = [
    `Stop working on the task for now and write a summary of the conversation above. It will replace the events seq ${input.covered.start}–${input.covered.end} of this node's log, so the work can go on in a smaller context. The original events stay in the log and can be read back with recall_history, so name the seq of any tool result whose detail may be needed again.`,
    `Write Markdown with exactly these sections:\n\n${sections}`,
    'Rules: answer with the summary text only and call no tools. Keep every file path, exported identifier and failing test name that appears above, spelled exactly. Be specific and dense; leave out pleasantries and repetition.',
  ];
  const index = toolResultIndex(input.region);
  if (index.length > 0) parts.push(`Tool results in this part, by seq:\n${index.join('\n')}`);
  if (input.missing !== undefined && input.missing.length > 0) {
    parts.push(
      `A first summary left out these facts. The summary must mention each of them, spelled exactly:\n${input.missing.map(formatFact).join('\n')}`,
    );
  }
  return parts.join('\n\n');
}

/** `- path: src/a.ts` */
export function formatFact(fact: SurvivalFact): string {
  return `- ${fact.kind}: ${fact.value}`;
}

export interface SummaryRequestInput {
  readonly model: string;
  readonly sessionId: string;
  /** The system prompt and tools of the region's time, so the request shares the node's cached prefix. */
  readonly system: string;
  readonly tools: readonly ToolSpec[];
  /** The pinned messages and the region's messages, in surface order. */
  readonly messages: readonly ModelMessage[];
  readonly instruction: string;
  /** The seq of the `compaction/start` event that records the instruction. */
  readonly instructionSeq: number;
  readonly parameters?: ModelParameters;
}

/** The summarizer's request: the history as the node saw it, then the instruction to summarize. */
export function buildSummaryRequest(input: SummaryRequestInput): ModelRequest {
  return {
    agent: 'summarizer',
    model: input.model,
    system: input.system,
    tools: input.tools,
    messages: [...input.messages, { role: 'user', seq: input.instructionSeq, source: 'note', content: input.instruction }],
    parameters: input.parameters ?? {},
    sessionId: input.sessionId,
  };
}

function toolResultIndex(region: readonly SurfaceEvent[]): string[] {
  const calls = new Map<string, unknown>();
  const lines: string[] = [];
  for (const event of region) {
    if (event.type === 'assistant/message') for (const call of event.payload.toolCalls) calls.set(call.id, call.args);
    if (event.type !== 'tool/result') continue;
    const args = event.payload.meta.args ?? calls.get(event.payload.toolCallId);
    const seq = typeof event.payload.meta['prunedSeq'] === 'number' ? event.payload.meta['prunedSeq'] : event.seq;
    lines.push(`- seq ${seq}: ${event.payload.name} ${compactArgs(args)}${event.payload.isError ? ' (error)' : ''}`.trimEnd());
  }
  if (lines.length <= MAX_INDEX_LINES) return lines;
  return [...lines.slice(0, MAX_INDEX_LINES), `- … and ${lines.length - MAX_INDEX_LINES} more`];
}

function compactArgs(args: unknown): string {
  if (args === undefined) return '';
  const text = JSON.stringify(args) ?? '';
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}
