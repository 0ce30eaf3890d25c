import type { Session, SessionEvent } from '../session/index.js';
import type { PromptParts } from './surface-view.js';

export interface PromptOfTime extends PromptParts {
  readonly model: string;
  readonly systemHash: string;
  readonly toolsHash: string;
}

/**
 * The model, system prompt and tools of this node's last model request at or before `seq`, from the
 * log (`request/header` names the version, `prompt/recorded` holds its text). Undefined when
 * the node made no request by then or the version is missing.
 */
export async function promptOfTime(session: Session, seq: number): Promise<PromptOfTime | undefined> {
  const headers = await session.log.read({ nodeId: session.nodeId, types: ['request/header'], toSeq: seq });
  const header = headers.at(-1) as SessionEvent<'request/header'> | undefined;
  if (header === undefined) return undefined;
  const prompts = await session.log.read({ types: ['prompt/recorded'], toSeq: header.seq });
  const prompt = prompts.findLast(
    (event): event is SessionEvent<'prompt/recorded'> =>
      event.type === 'prompt/recorded' && event.payload.systemHash === header.payload.systemHash && event.payload.toolsHash === header.payload.toolsHash,
  );
  if (prompt === undefined) return undefined;
  return {
    system: prompt.payload.system,
    tools: prompt.payload.tools,
    model: header.payload.model,
    systemHash: header.payload.systemHash,
    toolsHash: header.payload.toolsHash,
  };
}
