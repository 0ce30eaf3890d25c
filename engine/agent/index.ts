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
} from './tool-runtime.js';
