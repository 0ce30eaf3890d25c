export type {
  ApprovalAnswer,
  ApprovalPolicy,
  ApprovalRequest,
  Approver,
  ToolCallRequest,
  ToolExecutionContext,
  ToolOutcome,
  ToolResult,
  ToolResultMeta,
  ToolRuntime,
  WriteScope,
  ClaimFence,
  PlanGrant,
} from './tool-runtime.js';
export type { AgentCompactor } from './agent-compactor.js';
export { END_REASONS, type EndReason } from './end-reason.js';
export { DEFAULT_TOOL_BATCH_TIMEOUT_MS, MAX_PARALLEL_TOOL_CALLS, MAX_TOOL_CALLS_PER_RESPONSE, executeToolCalls, type ExecuteToolCallsInput, type ToolContextBase } from './execute-tool-calls.js';
export { NO_STEERING, NodeSteering, STEERING_POLL_MS, reduceSteering, type SteeringState } from './node-steering.js';
export { runAgent, type AgentOutcome } from './run-agent.js';
export type { RunAgentOptions } from './run-agent-options.js';
export { DEFAULT_AGENT_LIMITS, checkStopConditions, repeatedToolCall, type AgentLimits, type StopInput, type StopVerdict } from './stop-conditions.js';
export { DEFAULT_TEXT_STREAM_INTERVAL_MS, TextStreamCoalescer, type TextStreamOptions } from './text-stream-coalescer.js';
