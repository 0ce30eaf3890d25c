import type { AgentId, ModelParameters, ModelRequest } from '../model/model-provider.js';
import type { ModelMessage } from '../model/model-message.js';
import type { PromptSnapshot } from './system-prompt.js';

export interface BuildRequestInput {
  readonly agent: AgentId;
  readonly model: string;
  readonly snapshot: PromptSnapshot;
  /** From `Session.deriveMessages()`: the only way history reaches a model. */
  readonly messages: readonly ModelMessage[];
  readonly parameters?: ModelParameters;
  readonly sessionId: string;
}

/** The request for one model call, ordered static → dynamic: system, tools, then history. */
export function buildRequest(input: BuildRequestInput): ModelRequest {
  return {
    agent: input.agent,
    model: input.model,
    system: input.snapshot.system,
    tools: input.snapshot.tools,
    messages: input.messages,
    parameters: input.parameters ?? {},
    sessionId: input.sessionId,
  };
}
