import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  EventLog,
  Session,
  createRun,
  type Approver,
  type SessionEvent,
  type Store,
  type ToolCallRequest,
  type ToolExecutionContext,
  type ToolResult,
  type ToolRuntime,
} from '../../engine/index.js';
import { createAutoYesApprover } from '../../tools/index.js';
import { openTempStore } from './temp-store.js';

/** A workspace folder, a folder beside it (outside), a run log and a node session for tool tests. */
export interface ToolTestBed {
  /** Real path of the workspace root. */
  readonly workspace: string;
  /** A real folder next to the workspace, outside it. */
  readonly outside: string;
  readonly store: Store;
  readonly runId: string;
  readonly session: Session;
  context(overrides?: Partial<ToolExecutionContext>): ToolExecutionContext;
  /** Runs one call with a fresh id. */
  call(runtime: ToolRuntime, name: string, args: unknown, overrides?: Partial<ToolExecutionContext>): Promise<ToolResult>;
  events(): Promise<SessionEvent[]>;
  cleanup(): Promise<void>;
}

export async function openToolTestBed(options: { nodeId?: string; approver?: Approver } = {}): Promise<ToolTestBed> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'dagent-tools-')));
  const workspace = join(root, 'workspace');
  const outside = join(root, 'outside');
  mkdirSync(workspace);
  mkdirSync(outside);
  const temp = await openTempStore();
  const run = await createRun(temp.store.db, { task: 'tool test', workspace, mode: 'react' });
  const log = new EventLog(temp.store.db, run.id);
  const session = await Session.open(log, options.nodeId ?? 'node-a');
  const approver = options.approver ?? createAutoYesApprover();
  let calls = 0;
  const context = (overrides: Partial<ToolExecutionContext> = {}): ToolExecutionContext => ({
    runId: run.id,
    nodeId: session.nodeId,
    workspace,
    signal: new AbortController().signal,
    position: { turn: 1, step: 1 },
    session,
    approver,
    ...overrides,
  });
  return {
    workspace,
    outside,
    store: temp.store,
    runId: run.id,
    session,
    context,
    async call(runtime, name, args, overrides) {
      calls += 1;
      const request: ToolCallRequest = { id: `call-${calls}`, name, args };
      return runtime.execute(request, context(overrides));
    },
    events: () => log.read(),
    async cleanup() {
      session.close();
      await temp.cleanup();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
