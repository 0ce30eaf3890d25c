import type { EvalResult } from './eval-store.js';
import type { EvalMode } from './eval-suite.js';

/** One mode's totals over an evaluation's attempts. */
export interface ModeSummary {
  readonly mode: EvalMode;
  readonly attempts: number;
  readonly passed: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly costUsd: number;
  /** The mean wall time of the attempts whose run ended. */
  readonly meanWallMs: number | null;
}

export function summarize(results: readonly EvalResult[]): ModeSummary[] {
  const modes = [...new Set(results.map((result) => result.mode))];
  return modes.map((mode) => {
    const ofMode = results.filter((result) => result.mode === mode);
    const walls = ofMode.flatMap((result) => (result.wallMs === null ? [] : [result.wallMs]));
    return {
      mode,
      attempts: ofMode.length,
      passed: ofMode.filter((result) => result.passed).length,
      inputTokens: sum(ofMode.map((result) => result.tokens.input)),
      outputTokens: sum(ofMode.map((result) => result.tokens.output)),
      costUsd: sum(ofMode.map((result) => result.costUsd)),
      meanWallMs: walls.length === 0 ? null : Math.round(sum(walls) / walls.length),
    };
  });
}

/** An evaluation as data: what `--json` prints. */
export function evalDocument(results: readonly EvalResult[]): Record<string, unknown> {
  const first = results[0];
  return {
    schema: 'dagent.eval/1',
    evalId: first?.evalId ?? null,
    suite: first?.suite ?? null,
    model: first?.model ?? null,
    label: first?.label ?? null,
    dagentVersion: first?.dagentVersion ?? null,
    summary: summarize(results),
    results,
  };
}

/** The evaluation's tables in markdown: one row per attempt, then one per mode. */
export function evalMarkdown(results: readonly EvalResult[]): string {
  const first = results[0];
  if (first === undefined) return 'no results';
  const lines = [
    `### dagent eval ${first.evalId} · ${cell(first.suite)} · ${cell(first.model)}${first.label === null ? '' : ` · ${cell(first.label)}`} · dagent ${first.dagentVersion}`,
    '',
    '| task | mode | # | pass | tokens in | tokens out | cost | wall | critical path | drift | run |',
    '|---|---|--:|---|--:|--:|--:|--:|---|---|---|',
    ...results.map((result) =>
      row([
        cell(result.task),
        result.mode,
        String(result.repetition),
        result.passed ? 'pass' : result.error === null ? 'fail' : `fail: ${cell(result.error)}`,
        String(result.tokens.input),
        String(result.tokens.output),
        usd(result.costUsd),
        seconds(result.wallMs),
        result.criticalPath.length === 0 ? '' : `${result.criticalPath.map(cell).join(' → ')} (${seconds(result.criticalPathMs)})`,
        driftCell(result),
        result.runId ?? '',
      ]),
    ),
    '',
    '| mode | passed | tokens in | tokens out | cost | mean wall |',
    '|---|--:|--:|--:|--:|--:|',
    ...summarize(results).map((mode) => row([mode.mode, `${mode.passed}/${mode.attempts}`, String(mode.inputTokens), String(mode.outputTokens), usd(mode.costUsd), seconds(mode.meanWallMs)])),
  ];
  return lines.join('\n');
}

/** Two evaluations side by side, per task and mode: pass rate, mean tokens, cost and wall time. */
export function compareMarkdown(left: readonly EvalResult[], right: readonly EvalResult[]): string {
  const [a, b] = [left[0], right[0]];
  if (a === undefined || b === undefined) return 'nothing to compare';
  const keys = [...new Set([...left, ...right].map((result) => `${result.task}\u0000${result.mode}`))].sort();
  const name = (result: EvalResult): string => `${result.evalId} (${cell(result.model)}${result.label === null ? '' : `, ${cell(result.label)}`}, dagent ${result.dagentVersion})`;
  const lines = [
    `### ${name(a)} → ${name(b)}`,
    '',
    '| task | mode | pass | tokens (in + out, mean) | cost (mean) | wall (mean) |',
    '|---|---|---|--:|--:|--:|',
    ...keys.map((key) => {
      const [task, mode] = key.split('\u0000') as [string, string];
      const [l, r] = [left, right].map((results) => means(results.filter((result) => result.task === task && result.mode === mode)));
      return row([cell(task), mode, `${l!.pass} → ${r!.pass}`, `${l!.tokens} → ${r!.tokens}`, `${l!.cost} → ${r!.cost}`, `${l!.wall} → ${r!.wall}`]);
    }),
  ];
  return lines.join('\n');
}

/** One line per stored evaluation: id, date, suite, model, label, version, each mode's passes. */
export function evalListLines(results: readonly EvalResult[]): string[] {
  const ids = [...new Set(results.map((result) => result.evalId))];
  return ids.map((id) => {
    const ofEval = results.filter((result) => result.evalId === id);
    const first = ofEval[0]!;
    const modes = summarize(ofEval).map((mode) => `${mode.mode} ${mode.passed}/${mode.attempts}`).join(' · ');
    return `${id}  ${first.createdAt.slice(0, 16).replace('T', ' ')}  ${first.suite}  ${first.model}${first.label === null ? '' : `  [${first.label}]`}  dagent ${first.dagentVersion}  ${modes}`;
  });
}

function means(results: readonly EvalResult[]): { pass: string; tokens: string; cost: string; wall: string } {
  if (results.length === 0) return { pass: '–', tokens: '–', cost: '–', wall: '–' };
  const walls = results.flatMap((result) => (result.wallMs === null ? [] : [result.wallMs]));
  return {
    pass: `${results.filter((result) => result.passed).length}/${results.length}`,
    tokens: String(Math.round(sum(results.map((result) => result.tokens.input + result.tokens.output)) / results.length)),
    cost: usd(sum(results.map((result) => result.costUsd)) / results.length),
    wall: walls.length === 0 ? '–' : seconds(sum(walls) / walls.length),
  };
}

function driftCell(result: EvalResult): string {
  if (result.drift === null) return '–';
  const parts = [...result.drift.unplanned.map((path) => `+${cell(path)}`), ...result.drift.unwritten.map((path) => `−${cell(path)}`)];
  return parts.length === 0 ? 'none' : parts.join(' ');
}

function row(cells: readonly string[]): string {
  return `| ${cells.join(' | ')} |`;
}

/** Text from a task or a model, safe in a table cell. */
function cell(text: string): string {
  return text.replace(/\s+/g, ' ').replace(/\|/g, '\\|');
}

function usd(value: number): string {
  return `$${value.toFixed(4)}`;
}

function seconds(ms: number | null): string {
  return ms === null ? '–' : `${(ms / 1000).toFixed(1)} s`;
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
