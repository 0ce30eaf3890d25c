export * from './model-errors.js';
export type { AgentId, FinishReason, ModelParameters, ModelProvider, ModelRequest, StreamPart, ToolSpec, Usage } from './model-provider.js';
export { MESSAGE_OVERHEAD_TOKENS, estimateMessageTokens, estimateTextTokens, estimateToolTokens } from './token-estimate.js';
