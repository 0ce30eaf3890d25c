import type { StepPosition } from '../context/runtime-context.js';
import { errorMessage } from '../errors.js';
import type { Session } from '../session/session.js';
import type { FallbackReason } from './fallback-verdict.js';
import type { AgentModel, RunAgentOptions } from './run-agent-options.js';

/** Which model of its list an agent is on: the primary (index -1) or `fallbacks[index]`. */
export interface ActiveModel {
  readonly options: RunAgentOptions;
  readonly index: number;
}

/** `provider:model` as the log and `status` show it. */
export function modelLabel(model: Pick<AgentModel, 'provider' | 'model'>): string {
  return `${model.provider.id}:${model.model}`;
}

/**
 * The model a (resumed) agent starts with: the primary, or the fallback its surface's last
 * `model/switched` event went to, so a resumed node does not go back to a model that failed.
 */
export async function resumedModel(options: RunAgentOptions): Promise<ActiveModel> {
  const fallbacks = options.fallbacks ?? [];
  const { session } = options;
  // A surface not begun yet holds no switch: it starts on the primary.
  if (fallbacks.length === 0 || !session.begun) return { options, index: -1 };
  const switched = await session.log.read({ nodeId: session.nodeId, types: ['model/switched'], fromSeq: session.fromSeq });
  const last = switched.at(-1);
  const index = last === undefined ? -1 : fallbacks.findIndex((fallback) => fallback.id === last.payload.to);
  if (index < 0) return { options, index: -1 };
  try {
    return { options: withModel(options, fallbacks[index]!.resolve()), index };
  } catch {
    return { options, index: -1 };
  }
}

/**
 * Hands the agent to the next model of its list that can be built, recording `model/switched`
 * (one per model it leaves); undefined when none is left. The messages stay as they are: the next
 * model answers the same conversation.
 */
export async function switchModel(
  active: ActiveModel,
  base: RunAgentOptions,
  reason: FallbackReason,
  detail: string,
  position: StepPosition,
): Promise<ActiveModel | undefined> {
  const fallbacks = base.fallbacks ?? [];
  let from = modelLabel(active.options);
  let error = detail;
  for (let index = active.index + 1; index < fallbacks.length; index++) {
    const next = fallbacks[index]!;
    let model: AgentModel;
    try {
      model = next.resolve();
    } catch (cause) {
      // A fallback that cannot be built (no key, a bad id) is passed over, and the log says why.
      await base.session.append({ type: 'model/switched', ...position, payload: { from, to: next.id, reason, error } });
      from = next.id;
      error = errorMessage(cause);
      continue;
    }
    await base.session.append({ type: 'model/switched', ...position, payload: { from, to: next.id, reason, error } });
    return { options: withModel(base, model), index };
  }
  return undefined;
}

function withModel(options: RunAgentOptions, model: AgentModel): RunAgentOptions {
  const { price: _price, compactor: _compactor, ...rest } = options;
  return {
    ...rest,
    provider: model.provider,
    model: model.model,
    ...(model.price === undefined ? {} : { price: model.price }),
    ...(model.compactor === undefined ? {} : { compactor: model.compactor }),
  };
}
