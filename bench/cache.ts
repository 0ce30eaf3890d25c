import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  anthropicRequestBody,
  messageText,
  openDatabase,
  readEvents,
  reconstructRequest,
  requestParts,
  requestText,
  requestTokens,
  type ModelRequest,
  type Usage,
} from '../engine/index.js';
import { anthropicModel, commonPrefix, contentBound, deepSeekModel, oracleModel, openAIModel, type CacheModel } from './lib/cache-models.js';
import { legacyAnthropicBody, legacyRequest } from './lib/legacy-layout.js';
import { printTable, verdict } from './lib/table.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DAGENT = join(ROOT, 'bin', 'dagent.js');
const GOAL_SHARE = 0.9;

/**
 * The prompt cache, measured on real runs: `dagent demo` (examples/notifier with its scripted
 * model) and a run whose sibling nodes differ in kind and role. Every request is rebuilt from the
 * run's log exactly as it was sent; the bench compares them byte for byte (where does each
 * request stop extending the node's previous one, where does each node's first request leave the
 * other nodes' first requests) and feeds them, in the order they were sent, to the prefix caches
 * of DeepSeek (the scripted provider's model), OpenAI and Anthropic, and to the bound no prefix
 * cache can beat. Each share is given for this layout and for the layout before the prompt-cache
 * work (role prompt in the system prompt, tools by name, two Anthropic breakpoints): same
 * content, only the placement differs.
 */
export async function runCacheBench(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'dagent-bench-cache-'));
  try {
    const demo = runDemo(join(root, 'demo'));
    const demoShare = await reportRun('the demo (`dagent demo`, examples/notifier, scripted model with its latencies)', demo.workspace, demo.runId);
    const mixed = runMixedSiblings(join(root, 'mixed'));
    await reportRun('siblings of different kinds and roles (2 read nodes, then a coder, an edit and a reviewer node in parallel)', mixed.workspace, mixed.runId);
    printTable('goal', ['measure', 'goal', 'result', ''], [
      ['demo cache-hit share as `dagent status` shows it (scripted provider)', `≥ ${GOAL_SHARE * 100} %`, pct(demoShare.recorded), verdict(demoShare.recorded >= GOAL_SHARE)],
      ['  the most any prefix cache could serve of the demo\'s content, in any layout', '', pct(demoShare.bound), ''],
    ]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

interface RunShares {
  readonly recorded: number;
  readonly bound: number;
}

interface SentRequest {
  readonly nodeId: string;
  readonly step: number;
  readonly request: ModelRequest;
  readonly usage?: Usage;
}

async function reportRun(title: string, workspace: string, runId: string): Promise<RunShares> {
  const dbPath = join(workspace, '.dagent', 'dagent.db');
  const store = await openDatabase(dbPath);
  try {
    const requests = await sentRequests(store.db, runId);
    process.stdout.write(`\n${title}: run ${runId}, ${requests.length} model requests\n`);
    printPrefixTable(requests);
    process.stdout.write(`static prefixes (system + tools) contain: ${dynamicInStatic(requests, runId, workspace)}\n`);
    return printShareTable(requests);
  } finally {
    await store.close();
  }
}

/** Every request of the run in the order it was sent, rebuilt from the log, with the usage its answer recorded. */
async function sentRequests(db: Parameters<typeof readEvents>[0], runId: string): Promise<SentRequest[]> {
  const events = await readEvents(db, runId, { types: ['request/header', 'assistant/message'] });
  const requests: SentRequest[] = [];
  for (const event of events) {
    const nodeId = event.nodeId ?? 'planner';
    if (event.type === 'request/header') {
      const rebuilt = await reconstructRequest(db, runId, event.nodeId, event.step);
      const request: ModelRequest = {
        agent: event.payload.agent as ModelRequest['agent'],
        model: event.payload.model,
        system: rebuilt.system,
        tools: rebuilt.tools,
        messages: rebuilt.messages,
        parameters: {},
        sessionId: runId,
      };
      requests.push({ nodeId, step: event.step, request });
    } else if (event.type === 'assistant/message') {
      const index = requests.findLastIndex((entry) => entry.nodeId === nodeId && entry.step === event.step && entry.usage === undefined);
      if (index >= 0) requests[index] = { ...requests[index]!, usage: event.payload.usage };
    }
  }
  return requests;
}

/**
 * Per agent: its static prefix (system + tools), whether each request extends its previous one
 * byte for byte, and where its first request leaves the other nodes' first requests: nodes with
 * the same tools should share their whole static prefix, nodes with other tools the system and
 * the tools they have in common.
 */
function printPrefixTable(requests: readonly SentRequest[]): void {
  const rows: string[][] = [];
  for (const layout of ['this layout', 'old layout'] as const) {
    const laidOut = requests.map((entry) => (layout === 'this layout' ? entry.request : legacyRequest(entry.request)));
    const texts = laidOut.map((request) => Buffer.from(requestText(request)));
    const agents = [...new Set(requests.map((entry) => entry.nodeId))];
    const firsts = new Map(agents.map((agent) => [agent, requests.findIndex((entry) => entry.nodeId === agent)]));
    const toolNames = (index: number): string => laidOut[index]!.tools.map((tool) => tool.name).sort().join(',');
    let extending = 0;
    let pairs = 0;
    let sharedTotal = 0;
    let bytesTotal = 0;
    let sharingStatic = 0;
    let nodes = 0;
    for (const agent of agents) {
      const indexes = requests.flatMap((entry, index) => (entry.nodeId === agent ? [index] : []));
      const first = indexes[0]!;
      const staticBytes = Buffer.byteLength(requestParts(laidOut[first]!).filter((part) => part.kind !== 'message').map((part) => part.text).join(''));
      const breaks: string[] = [];
      let extended = 0;
      for (let position = 1; position < indexes.length; position++) {
        const previous = texts[indexes[position - 1]!]!;
        const offset = commonPrefix(previous, texts[indexes[position]!]!);
        if (offset === previous.length) extended++;
        else breaks.push(`step ${requests[indexes[position]!]!.step} at byte ${offset} of ${previous.length}: ${whyNotExtended(laidOut[indexes[position - 1]!]!, laidOut[indexes[position]!]!)}`);
      }
      extending += extended;
      pairs += indexes.length - 1;
      // Bytes each request shares with the one before it (its node's previous request, or for a first request the longest match among earlier requests).
      let shared = 0;
      let bytes = 0;
      for (const [position, index] of indexes.entries()) {
        const candidates = position > 0 ? [indexes[position - 1]!] : texts.slice(0, index).map((_, earlier) => earlier);
        shared += Math.max(0, ...candidates.map((earlier) => commonPrefix(texts[earlier]!, texts[index]!)));
        bytes += texts[index]!.length;
      }
      sharedTotal += shared;
      bytesTotal += bytes;
      const isNode = agent !== 'planner';
      const others = agents.filter((other) => other !== agent && other !== 'planner').map((other) => ({
        sameTools: toolNames(firsts.get(other)!) === toolNames(first),
        offset: commonPrefix(texts[first]!, texts[firsts.get(other)!]!),
      }));
      const same = others.filter((other) => other.sameTools).map((other) => other.offset);
      const different = others.filter((other) => !other.sameTools).map((other) => other.offset);
      if (isNode) {
        nodes++;
        if (same.every((offset) => offset >= staticBytes)) sharingStatic++;
      }
      rows.push([
        layout === 'this layout' ? agent : `  (old) ${agent}`,
        String(indexes.length),
        String(staticBytes),
        pct(shared / bytes),
        indexes.length < 2 ? '—' : `${extended}/${indexes.length - 1}${breaks.length === 0 ? '' : ` (${breaks.join('; ')})`}`,
        isNode ? range(same, staticBytes) : '—',
        isNode ? range(different, staticBytes) : '—',
      ]);
    }
    rows.push([
      `all (${layout})`,
      String(requests.length),
      '',
      pct(sharedTotal / bytesTotal),
      `${extending}/${pairs}`,
      `${sharingStatic}/${nodes} nodes share their whole static prefix with every node that has their tools`,
      '',
    ]);
  }
  printTable(
    'prefix bytes per agent (requests rendered system → tools → messages; static prefix = system + tools; shared-prefix share = bytes of its requests that the previous request of the agent, or for its first request any earlier request, began with; * = the first difference lies inside the static prefix)',
    ['agent', 'requests', 'static prefix B', 'shared-prefix share', 'requests that extend the previous one byte for byte', 'first differing byte vs first requests of nodes with the same tools', 'vs nodes with other tools'],
    rows,
  );
}

/** Why a request does not extend the previous one of its agent: the first message that differs, and what changed it. */
function whyNotExtended(previous: ModelRequest, current: ModelRequest): string {
  if (previous.system !== current.system || JSON.stringify(previous.tools) !== JSON.stringify(current.tools)) return 'the system prompt or tools changed';
  const index = previous.messages.findIndex((message, position) => messageText(message) !== messageText(current.messages[position] ?? message) || current.messages[position] === undefined);
  const changed = current.messages[index];
  if (index === 0) return 'a new conversation (new instruction)';
  if (changed === undefined) return `message ${index + 1} is gone`;
  if (changed.role === 'user' && changed.source === 'compaction-summary') return `compaction summarised from message ${index + 1}`;
  if (changed.role === 'tool' && changed.content.includes('pruned')) return `compaction pruned tool output from message ${index + 1}`;
  return `message ${index + 1} (${changed.role}) changed`;
}

/** Parts of a static prefix that would make it differ from run to run or node to node. */
function dynamicInStatic(requests: readonly SentRequest[], runId: string, workspace: string): string {
  const statics = new Set(requests.map((entry) => requestParts(entry.request).filter((part) => part.kind !== 'message').map((part) => part.text).join('')));
  const nodeIds = [...new Set(requests.map((entry) => entry.nodeId).filter((id) => id !== 'planner'))];
  const found = new Set<string>();
  for (const text of statics) {
    if (text.includes(runId)) found.add('the run id');
    if (text.includes(workspace)) found.add('the workspace path');
    for (const id of nodeIds) if (text.includes(id)) found.add(`node id ${id}`);
    if (/\b\d{4}-\d{2}-\d{2}\b|\b\d{2}:\d{2}:\d{2}\b/.test(text)) found.add('a date or time');
  }
  return found.size === 0 ? 'none of the run id, node ids, the workspace path, a date or time' : [...found].join(', ');
}

function range(offsets: readonly number[], staticBytes: number): string {
  if (offsets.length === 0) return '—';
  const low = Math.min(...offsets);
  const high = Math.max(...offsets);
  const mark = low < staticBytes ? '*' : '';
  return low === high ? `${low}${mark}` : `${low}–${high}${mark}`;
}

/** Cache-hit share of the run's input under each provider's cache, old layout beside this one. */
function printShareTable(requests: readonly SentRequest[]): RunShares {
  const recordedInput = requests.reduce((sum, entry) => sum + (entry.usage?.input ?? 0), 0);
  const recordedHit = requests.reduce((sum, entry) => sum + (entry.usage?.cacheHit ?? 0), 0);
  const models: readonly (() => CacheModel)[] = [deepSeekModel, openAIModel, anthropicModel, oracleModel];
  const rows: string[][] = [['as recorded in the log (`dagent status`)', '', pct(recordedHit / recordedInput)]];
  let bound: number;
  for (const create of models) {
    const shares = (['old', 'this'] as const).map((layout) => {
      const model = create();
      let input = 0;
      let hit = 0;
      for (const entry of requests) {
        const request = layout === 'this' ? entry.request : legacyRequest(entry.request);
        const body = layout === 'this' ? anthropicRequestBody(request) : legacyAnthropicBody(anthropicRequestBody(request));
        const result = model.lookupAndStore({ tokens: requestTokens(request), anthropicBody: body });
        input += result.input;
        hit += result.hit;
      }
      return hit / input;
    });
    rows.push([create().name, pct(shares[0]!), pct(shares[1]!)]);
  }
  const anyLayout = contentBound(requests.map((entry) => entry.request));
  bound = anyLayout.hit / anyLayout.input;
  rows.push(['bound for any layout of the same content (parts no earlier request sent are misses)', '', pct(bound)]);
  printTable('cache-hit share of all input tokens (requests in the order they were sent, one cache per run)', ['cache model', 'old layout', 'this layout'], rows);
  return { recorded: recordedHit / recordedInput, bound };
}

function runDemo(folder: string): { workspace: string; runId: string } {
  const result = spawnSync(process.execPath, [DAGENT, 'demo', '--no-dashboard', '--json', '--into', folder], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, timeout: 300_000 });
  const line = result.stdout.trim().split('\n').reverse().find((candidate) => candidate.startsWith('{"demo"'));
  if (line === undefined) throw new Error(`dagent demo failed (exit ${result.status}):\n${result.stdout}\n${result.stderr}`);
  const { demo } = JSON.parse(line) as { demo: { runId: string } };
  return { workspace: folder, runId: demo.runId };
}

/** A run with sibling nodes of different kinds and roles, through the real CLI, tools and scripted model (no latency). */
function runMixedSiblings(folder: string): { workspace: string; runId: string } {
  mkdirSync(join(folder, 'src'), { recursive: true });
  writeFileSync(join(folder, 'src', 'circle.ts'), 'export class Circle {\n  constructor(readonly radius: number) {}\n  area(): number {\n    return Math.PI * this.radius ** 2;\n  }\n}\n');
  writeFileSync(join(folder, 'src', 'square.ts'), 'export class Square {\n  constructor(readonly side: number) {}\n  area(): number {\n    return this.side ** 2;\n  }\n}\n');
  const node = (id: string, kind: string, files: string[], extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    id, kind, title: `${kind} ${files.join(', ')}`, instructions: `Work on ${files.join(' and ')}.`, reads: files, writes: kind === 'edit' ? files : [], ...extra,
  });
  const plan = {
    goal: 'Document area() of the shapes',
    nodes: [
      node('read-circle', 'read', ['src/circle.ts'], { dependsOn: [] }),
      node('read-square', 'read', ['src/square.ts'], { dependsOn: [] }),
      node('edit-circle', 'edit', ['src/circle.ts'], { role: 'coder', dependsOn: ['read-circle', 'read-square'] }),
      node('edit-square', 'edit', ['src/square.ts'], { dependsOn: ['read-circle', 'read-square'] }),
      node('review-shapes', 'read', ['src/circle.ts', 'src/square.ts'], { role: 'reviewer', dependsOn: ['read-circle', 'read-square'] }),
    ],
  };
  const read = (path: string, id: string): Record<string, unknown> => ({ toolCalls: [{ id, name: 'read_file', args: { path } }] });
  const write = (path: string, id: string, content: string): Record<string, unknown> => ({ toolCalls: [{ id, name: 'write_file', args: { path, content } }] });
  const script = {
    defaults: { latencyMs: 0 },
    agents: {
      'node:read-circle': [read('src/circle.ts', 'r1'), { text: 'Circle has area(): π r².' }],
      'node:read-square': [read('src/square.ts', 'r2'), { text: 'Square has area(): side².' }],
      'node:edit-circle': [read('src/circle.ts', 'e1'), write('src/circle.ts', 'e2', '/** A circle. area() is π r². */\nexport class Circle {\n  constructor(readonly radius: number) {}\n  area(): number {\n    return Math.PI * this.radius ** 2;\n  }\n}\n'), { text: 'Documented Circle.' }],
      'node:edit-square': [read('src/square.ts', 'e3'), write('src/square.ts', 'e4', '/** A square. area() is side². */\nexport class Square {\n  constructor(readonly side: number) {}\n  area(): number {\n    return this.side ** 2;\n  }\n}\n'), { text: 'Documented Square.' }],
      'node:review-shapes': [read('src/circle.ts', 'v1'), read('src/square.ts', 'v2'), { text: 'Both area() methods are correct.' }],
    },
  };
  writeFileSync(join(folder, 'plan.json'), JSON.stringify(plan, null, 2));
  const scriptFile = join(folder, 'mixed.script.json');
  writeFileSync(scriptFile, JSON.stringify(script, null, 2));
  const result = spawnSync(process.execPath, [DAGENT, '-w', folder, '-m', `scripted:${scriptFile}`, '--approval', 'auto', 'plan', '--from', join(folder, 'plan.json'), '--yes'], {
    encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, timeout: 120_000,
  });
  const runId = /\br-[0-9a-f]+\b/.exec(result.stdout)?.[0];
  if (result.status !== 0 || runId === undefined) throw new Error(`the mixed-siblings run failed (exit ${result.status}):\n${result.stdout}\n${result.stderr}`);
  return { workspace: folder, runId };
}

function pct(value: number): string {
  return `${(value * 100).toFixed(1)} %`;
}
