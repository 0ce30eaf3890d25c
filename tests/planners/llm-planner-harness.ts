import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLog, createRun, type ModelProvider, type Plan, type SessionEvent, type Store, type StreamPart } from '../../engine/index.js';
import type { ModelRequest } from '../../engine/model/model-provider.js';
import { createScriptedProvider } from '../../engine/model/scripted-provider.js';
import { createLlmPlanner, type LlmPlannerOptions, type RepoMap } from '../../planners/index.js';
import { writeFiles } from './fixture-repo.js';
import { openTempStore } from '../helpers/temp-store.js';

/** One scripted planner answer: text, tool calls, or a provider error. */
export type PlannerTurnScript =
  | { readonly text: string }
  | { readonly toolCalls: readonly { readonly name: string; readonly args: unknown; readonly id?: string }[] }
  | { readonly error: { readonly status: number; readonly message: string } };

/** A recording wrapper of a provider: keeps a copy of every request it was sent. */
export class RecordingProvider implements ModelProvider {
  readonly requests: ModelRequest[] = [];
  readonly id: string;
  constructor(readonly inner: ModelProvider) {
    this.id = inner.id;
  }
  contextWindow(model: string): number {
    return this.inner.contextWindow(model);
  }
  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<StreamPart> {
    this.requests.push(structuredClone({ ...request, messages: [...request.messages], tools: [...request.tools] }));
    return this.inner.stream(request, signal);
  }
}

export interface PlannerBed {
  readonly store: Store;
  readonly runId: string;
  readonly workspace: string;
  readonly provider: RecordingProvider;
  readonly planner: ReturnType<typeof createLlmPlanner>;
  /** The planner's events, in seq order. */
  plannerEvents(): Promise<SessionEvent[]>;
  /** The contents of the `user/message` events of the planner with this source. */
  userMessages(source: 'instruction' | 'note'): Promise<string[]>;
  cleanup(): Promise<void>;
}

export interface PlannerBedOptions {
  readonly turns: readonly PlannerTurnScript[];
  /** Files of the workspace, by relative path. */
  readonly files?: Readonly<Record<string, string>>;
  /** Default: a tiny fixed map, so no test depends on a scan unless it wants one. */
  readonly repoMap?: RepoMap | 'scan';
  readonly planner?: Partial<Omit<LlmPlannerOptions, 'db' | 'provider' | 'model'>>;
  readonly task?: string;
}

export const SMALL_MAP: RepoMap = {
  root: '/workspace',
  files: [
    { path: 'package.json', size: 120, language: 'JSON', exports: [] },
    { path: 'src/a.ts', size: 300, language: 'TypeScript', exports: ['Shape'] },
    { path: 'src/b.ts', size: 200, language: 'TypeScript', exports: ['Circle'] },
  ],
  imports: [{ from: 'src/b.ts', to: 'src/a.ts', specifier: './a.js', kind: 'import', line: 1, typeOnly: false }],
  unresolved: [],
  importers: { 'src/a.ts#Shape': [{ symbol: 'src/a.ts#Shape', file: 'src/b.ts', line: 1, text: "import { Shape } from './a.js';", name: 'Shape', via: [], kind: 'import', typeOnly: false }] },
  aliases: {},
  warnings: [],
};

/** A run in a temporary store and workspace, a scripted planner model, and the planner. */
export async function openPlannerBed(options: PlannerBedOptions): Promise<PlannerBed> {
  const workspace = realpathSync(mkdtempSync(join(tmpdir(), 'dagent-planner-')));
  writeFiles(workspace, options.files ?? {});
  const temp = await openTempStore();
  const run = await createRun(temp.store.db, { task: options.task ?? 'Rename Shape to Figure', workspace, mode: 'plan' });
  const provider = new RecordingProvider(createScriptedProvider({ script: { agents: { planner: options.turns } } }));
  const repoMap = options.repoMap ?? SMALL_MAP;
  const planner = createLlmPlanner({
    db: temp.store.db,
    provider,
    model: 'big-model',
    ...(repoMap === 'scan' ? {} : { repoMap }),
    ...options.planner,
  });
  const log = new EventLog(temp.store.db, run.id);
  const plannerEvents = (): Promise<SessionEvent[]> => log.read({ nodeId: 'planner' });
  return {
    store: temp.store,
    runId: run.id,
    workspace,
    provider,
    planner,
    plannerEvents,
    async userMessages(source) {
      return (await plannerEvents()).flatMap((event) => (event.type === 'user/message' && event.payload.source === source ? [event.payload.content] : []));
    },
    async cleanup() {
      await temp.cleanup();
      rmSync(workspace, { recursive: true, force: true });
    },
  };
}

/** A valid plan: read, edit the interface, edit its implementer, run the tests. */
export const GOOD_PLAN: Plan = {
  goal: 'Rename Shape to Figure',
  rationale: 'src/a.ts declares Shape; src/b.ts implements it.',
  nodes: [
    { id: 'read-all', kind: 'read', title: 'Read the shapes', instructions: 'Find every use of Shape.', reads: ['src/a.ts', 'src/b.ts'], writes: [], dependsOn: [] },
    { id: 'edit-a', kind: 'edit', title: 'Rename the interface', instructions: 'Rename Shape to Figure.', reads: ['src/a.ts'], writes: ['src/a.ts'], dependsOn: ['read-all'] },
    { id: 'edit-b', kind: 'edit', title: 'Rename in Circle', instructions: 'Use Figure.', reads: ['src/b.ts'], writes: ['src/b.ts'], dependsOn: ['edit-a'] },
    { id: 'test', kind: 'command', title: 'Run the tests', instructions: '', command: 'npm test', reads: [], writes: [], dependsOn: ['edit-b'] },
  ],
};

/** GOOD_PLAN with its nodes changed by `edit` (by index), as JSON text. */
export function planText(edit: (nodes: Record<string, unknown>[]) => void = () => undefined): string {
  const document = structuredClone(GOOD_PLAN) as unknown as { nodes: Record<string, unknown>[] };
  edit(document.nodes);
  return JSON.stringify(document, null, 2);
}

export function planInput(bed: PlannerBed, task = 'Rename Shape to Figure', paths: readonly string[] = []) {
  return { runId: bed.runId, task, workspace: bed.workspace, paths, signal: new AbortController().signal };
}
