import type { ImageSupport } from '../context/image-references.js';
import type { StepPosition } from '../context/runtime-context.js';
import type { SystemPrompt } from '../context/system-prompt.js';
import type { CallModelOptions } from '../model/call-model.js';
import type { AgentId, ModelParameters, ModelProvider, StreamPart, Usage } from '../model/model-provider.js';
import type { Session } from '../session/session.js';
import type { AgentCompactor, BeforeCompaction } from './agent-compactor.js';
import type { ToolContextBase } from './execute-tool-calls.js';
import type { NodeSteering } from './node-steering.js';
import type { ModelCallGate } from './model-call-gate.js';
import type { AgentLimits } from './stop-conditions.js';
import type { TextStreamOptions } from './text-stream-coalescer.js';
import type { ToolRuntime } from './tool-runtime.js';

/** A model an agent can run on: its provider, how its calls are priced, its compaction. */
export interface AgentModel {
  readonly provider: ModelProvider;
  readonly model: string;
  readonly price?: (usage: Usage) => number;
  readonly compactor?: AgentCompactor;
}

/** A model to fall back to, built only when the agent needs it (it may lack a key, say). */
export interface FallbackModel {
  /** `provider:model`, as the plan or config names it. */
  readonly id: string;
  resolve(): AgentModel;
}

/** What one ReAct agent runs with: `runAgent` loops over `agentStep`, and both read these. */
export interface RunAgentOptions {
  readonly agent: AgentId;
  readonly session: Session;
  /** System sections, dynamic contexts and the tool list: assembled anew every step. */
  readonly prompt: SystemPrompt;
  readonly provider: ModelProvider;
  readonly model: string;
  readonly parameters?: ModelParameters;
  readonly tools: ToolRuntime;
  readonly toolContext: ToolContextBase;
  /** Pinned first message of the surface; written once, a resumed agent finds it in the log. */
  readonly instruction: string;
  /** What finished dependencies handed over, each written once after the instruction. */
  readonly handoffs?: readonly string[];
  readonly limits?: Partial<AgentLimits>;
  readonly toolBatchTimeoutMs?: number;
  readonly compactor?: AgentCompactor;
  /** Runs just before each compaction of this agent's surface (the `PreCompact` hooks). */
  readonly beforeCompact?: BeforeCompaction;
  /** USD for one call's usage; zero when omitted. */
  readonly price?: (usage: Usage) => number;
  readonly signal: AbortSignal;
  /** Every stream part as it arrives, for live display. */
  readonly onPart?: (part: StreamPart) => void;
  /**
   * How the response text is written to the log while it streams (`text/streamed`, for a
   * dashboard in another process); `false` writes none. Coalesced to a few events a second by default.
   */
  readonly streamText?: TextStreamOptions | false;
  readonly callOptions?: Pick<CallModelOptions, 'retryPolicy' | 'sleep' | 'random'>;
  /**
   * Models that take over, in order, when the model fails in a way the next may not
   * (`fallbackVerdict`): from the same messages, recorded as `model/switched`.
   */
  readonly fallbacks?: readonly FallbackModel[];
  /**
   * Where `@image` references of the instruction are read, and their cap. Without it the
   * instruction's references stay plain text and no image is attached.
   */
  readonly images?: ImageSupport;
  /**
   * Words and pauses a person sends the node through the log (`dagent say`, `dagent pause`),
   * heeded at each step boundary; none when omitted.
   */
  readonly steering?: NodeSteering;
  /** Asked before every model call (the run's budget): a refused call is not sent and the agent stops. */
  readonly gate?: ModelCallGate;
  /** The conversation turn the agent's events carry (1 for a node). */
  readonly turn?: number;
  /**
   * Called after each step whose tool results are all in the log (a step boundary): a node
   * checkpoints its files there. It runs while the next step prepares and calls the model (neither
   * touches a file); that step's answer is recorded, and its calls run, only once it has ended. With
   * `beforeCompact` (hooks that may run commands in the workspace) it ends before the next step begins.
   */
  readonly onStepEnd?: (position: StepPosition) => Promise<void>;
  /**
   * A surface that goes on after its process stopped: its open tool calls whose ids are in
   * `rerunCalls` run again at their step; the others are closed with `interruptedContent`.
   */
  readonly resume?: { readonly rerunCalls: ReadonlySet<string>; readonly interruptedContent: string };
}
