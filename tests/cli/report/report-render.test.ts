import { describe, expect, it } from 'vitest';
import { GITHUB_COMMENT_MAX_CHARS, renderReportHtml, renderReportMarkdown, type RunReport } from '../../../cli/report/index.js';

/** The renderers on hostile and oversized runs: nothing from the run becomes markup, and the comment always fits. */
const HOSTILE = 'x<script>alert(1)</script> @octocat ``` \u001b[2Kgone\u202e|pipe|';

function reportWith(nodeCount: number, answer: string): RunReport {
  const ids = Array.from({ length: nodeCount }, (_, index) => `node-${index}`);
  return {
    schema: 'dagent.report/1',
    run: { id: 'r-1', task: HOSTILE, status: 'failed', mode: 'plan', model: 'scripted:x', workspace: '/w', planVersion: 1, createdAt: '', startedAt: null, finishedAt: null, durationMs: null, error: HOSTILE },
    plan: { version: 1, goal: HOSTILE, stages: [ids], criticalPath: [ids[0]!], criticalPathBasis: 'plan', width: nodeCount, edges: [] },
    nodes: ids.map((id) => ({
      id,
      title: HOSTILE,
      kind: 'edit',
      status: 'failed',
      attempts: 2,
      startedAt: null,
      finishedAt: null,
      durationMs: null,
      tokens: { input: 1, output: 1, cacheHit: 0, reasoning: 0 },
      costUsd: 0,
      modelCalls: 1,
      toolCalls: [{ name: 'read_file', count: 1, errors: 1 }],
      compactions: 0,
      filesChanged: ['src/<a>.ts'],
      result: answer,
      error: HOSTILE,
    })),
    totals: { tokens: { input: 1, output: 1, cacheHit: 0, reasoning: 0 }, costUsd: 0, modelCalls: 1, toolCalls: 1, nodes: { failed: nodeCount } },
    replans: [],
    lint: [{ version: 1, findings: [{ level: 'warning', code: 'c`ode', message: HOSTILE }] }],
    diff: { available: false, reason: HOSTILE },
    reproduce: ['dagent show r-1'],
  };
}

describe('report renderers', () => {
  it('escape the run\'s text in markdown: no html, no mention, no terminal control, no early fence', () => {
    const markdown = renderReportMarkdown(reportWith(2, HOSTILE));
    // Inside a code block text is shown as it is (GitHub neither renders html nor mentions there).
    const outsideCode = markdown.replace(/^(`{3,})[^\n]*\n[\s\S]*?\n\1$/gm, '');
    expect(outsideCode).not.toContain('<script>');
    expect(outsideCode).not.toContain('@octocat');
    expect(markdown).not.toMatch(/[\u001b\u202e]/);
    expect(markdown).toContain('&lt;script&gt;');
    expect(markdown).toContain('````\nx<script>'); // the answer's ``` cannot close a longer fence
  });

  it('cut long answers with a note, then everything, so a comment always fits', () => {
    const long = renderReportMarkdown(reportWith(12, 'a'.repeat(20_000)));
    expect(long.length).toBeLessThan(GITHUB_COMMENT_MAX_CHARS);
    expect(long).toMatch(/Answers and errors are cut to \d+ characters to fit a comment/);
    expect(long).toMatch(/… \d+ more characters:_ `dagent log r-1 --node node-0`/);
    const huge = renderReportMarkdown(reportWith(3_000, 'short'));
    expect(huge.length).toBeLessThan(GITHUB_COMMENT_MAX_CHARS);
    expect(huge).toContain('The report was cut at');
  });

  it('escape the run\'s text in html, inside the DAG as well', () => {
    const html = renderReportHtml(reportWith(2, HOSTILE));
    expect(html.match(/<script/g)).toBeNull();
    expect(html).not.toMatch(/[\u001b\u202e]/);
    expect(html).toContain('<text class="id" x="26" y="35">node-0</text>');
    expect(html).toContain('<title>node-0: x&lt;script&gt;');
  });
});
