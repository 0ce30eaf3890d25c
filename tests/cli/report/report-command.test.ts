import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAGENT_BIN } from '../../helpers/crash-process.js';
import { notifierRun } from '../../helpers/notifier-run.js';
import { tempDir } from '../../helpers/temp-store.js';

/**
 * `dagent report` on the demo's run (replan and compaction included), through the binary: the
 * markdown fits a GitHub comment with every section, the json's numbers are the log's, and a real
 * headless browser opens the html with the DAG's nodes in it.
 */
const exec = promisify(execFile);
const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) => existsSync(path));

let dir: { dir: string; cleanup: () => void };
let workspace: string;
let runId: string;

const dagent = async (...args: string[]): Promise<string> => (await exec(process.execPath, [DAGENT_BIN, '-w', workspace, ...args], { cwd: dir.dir, env: { ...process.env, NO_COLOR: '1' }, maxBuffer: 32 * 1024 * 1024 })).stdout;

beforeAll(async () => {
  dir = tempDir('dagent-report-');
  ({ workspace, runId } = await notifierRun(dir.dir));
}, 150_000);

afterAll(() => dir?.cleanup());

describe('dagent report', () => {
  it('writes a markdown comment under GitHub\'s size with the plan, nodes, replans, lint, changes and how to reproduce', async () => {
    const markdown = await dagent('report', runId);
    expect(markdown.length).toBeLessThan(65_536);
    expect(markdown).toContain(`## dagent run ${runId}: succeeded`);
    expect(markdown).toMatch(/### Plan v2\n/);
    expect(markdown).toContain('2. `edit-email` · `edit-sms` · `edit-webhook` (parallel)');
    expect(markdown).toMatch(/Critical path \(by measured time\): edit-channel → .* → test · width 3/);
    expect(markdown).toMatch(/\| edit-digest \| edit \| succeeded \| 1 \| \d[\d.]*m?s \| \d+K \| \$0 \| 9 \|/);
    expect(markdown).toContain('<details><summary>Node details</summary>');
    expect(markdown).toContain('after missed-work from edit-digest at 60% (append) → amended → plan v2');
    expect(markdown).toContain('changed: +edit-webhook, edge +edit-webhook→test, edge +edit-channel→edit-webhook');
    expect(markdown).toMatch(/\*\*warning\*\* `unwritten-importer` \(plan v1\)/);
    expect(markdown).toContain('<summary>8 files changed, +17 −17</summary>');
    expect(markdown).toContain(`export ${runId} plan.json && `);
    expect(markdown.match(/<details>/g)?.length).toBe(markdown.match(/<\/details>/g)?.length);
  });

  it('gives in json the numbers of the log: tokens, cost and model calls per node and in total, attempts', async () => {
    const report = JSON.parse(await dagent('report', runId, '--format', 'json')) as {
      nodes: { id: string; attempts: number; tokens: { input: number; output: number; cacheHit: number }; modelCalls: number; costUsd: number; toolCalls: { count: number }[] }[];
      totals: { tokens: { input: number; output: number; cacheHit: number }; modelCalls: number; toolCalls: number };
      replans: { outcome: string; addedNodes: string[] }[];
    };
    const events = (await dagent('log', runId, '--json')).trim().split('\n').map((line) => JSON.parse(line) as { nodeId: string | null; type: string; payload: Record<string, unknown> });
    const messages = events.filter((event) => event.type === 'assistant/message');
    const usageOf = (event: (typeof events)[number]): { input: number; output: number; cacheHit: number } => event.payload.usage as { input: number; output: number; cacheHit: number };
    const sum = (list: typeof events, pick: (usage: { input: number; output: number; cacheHit: number }) => number): number => list.reduce((total, event) => total + pick(usageOf(event)), 0);
    expect(report.totals.tokens).toMatchObject({ input: sum(messages, (usage) => usage.input), output: sum(messages, (usage) => usage.output), cacheHit: sum(messages, (usage) => usage.cacheHit) });
    expect(report.totals.modelCalls).toBe(messages.length);
    expect(report.totals.toolCalls).toBe(events.filter((event) => event.type === 'tool/result').length);
    expect(report.nodes.map((node) => node.id)).toEqual(['edit-channel', 'edit-email', 'edit-sms', 'edit-digest', 'test', 'edit-webhook']);
    for (const node of report.nodes) {
      const own = messages.filter((event) => event.nodeId === node.id);
      expect(node.tokens.input, node.id).toBe(sum(own, (usage) => usage.input));
      expect(node.tokens.output, node.id).toBe(sum(own, (usage) => usage.output));
      expect(node.modelCalls, node.id).toBe(own.length);
      expect(node.attempts, node.id).toBe(events.filter((event) => event.type === 'node/started' && event.nodeId === node.id).length);
      expect(node.toolCalls.reduce((total, tool) => total + tool.count, 0), node.id).toBe(events.filter((event) => event.type === 'tool/result' && event.nodeId === node.id).length);
    }
    expect(report.replans).toEqual([expect.objectContaining({ outcome: 'amended', addedNodes: ['edit-webhook'] })]);
  });

  it.skipIf(CHROMIUM === undefined)('writes one html file a headless browser opens with the DAG drawn (needs chromium)', async () => {
    const page = join(dir.dir, 'report.html');
    await dagent('report', runId, '--format', 'html', '--out', page);
    const html = readFileSync(page, 'utf8');
    expect(html).not.toMatch(/<script|<link|src="http|href="http/);
    const browser = (args: string[]): ReturnType<typeof spawnSync> =>
      spawnSync(CHROMIUM!, ['--headless', '--no-sandbox', '--disable-gpu', '--user-data-dir=' + join(dir.dir, 'chromium'), ...args, `file://${page}`], { encoding: 'utf8', timeout: 60_000 });
    const dom = String(browser(['--dump-dom']).stdout);
    for (const id of ['edit-channel', 'edit-email', 'edit-sms', 'edit-digest', 'edit-webhook', 'test']) {
      expect(dom, id).toMatch(new RegExp(`<g class="node( critical)?" data-node-id="${id}">`));
      expect(dom, id).toMatch(new RegExp(`<text class="id"[^>]*>${id}</text>`));
    }
    const screenshot = join(dir.dir, 'report.png');
    browser([`--screenshot=${screenshot}`, '--window-size=1200,1400']);
    expect(statSync(screenshot).size).toBeGreaterThan(10_000);
  }, 130_000);
});
