import { NO_TERMINAL_DENIAL, type ToolRuntime } from '../../engine/index.js';

/** What lets calls through that were denied for want of a terminal, where no plan or dashboard applies. */
function allowWithoutPlan(them: 'it' | 'them'): string {
  return `run ${them} from a terminal to be asked, or pass --approval auto to allow ${them} (the sandbox still confines commands)`;
}

/**
 * A call denied for want of a terminal, in the words of a command without a plan (`dagent tool`,
 * `dagent react`): there a terminal or the approval flag lets it through, not the plan or the
 * dashboard that the tool runtime's `humanNextStep` (`<call> was denied: …; to allow it: …`) names.
 */
export function deniedWithoutTerminal(humanNextStep: string): string {
  const call = humanNextStep.split(` ${NO_TERMINAL_DENIAL}`, 1)[0];
  return `${call} ${NO_TERMINAL_DENIAL}; ${allowWithoutPlan('it')}`;
}

/**
 * The tools of a run without a plan: a call denied for want of a terminal carries these words in
 * its `humanNextStep` (which the run's outcome and the log keep), and `count` says how many were.
 */
export function countingDenials(tools: ToolRuntime): { readonly tools: ToolRuntime; readonly count: () => number } {
  let count = 0;
  const counted: ToolRuntime = {
    specs: (allowed) => tools.specs(allowed),
    ...(tools.riskOf === undefined ? {} : { riskOf: (name: string) => tools.riskOf?.(name) }),
    async execute(call, context) {
      const result = await tools.execute(call, context);
      if (typeof result.meta.humanNextStep !== 'string') return result;
      count += 1;
      return { ...result, meta: { ...result.meta, humanNextStep: deniedWithoutTerminal(result.meta.humanNextStep) } };
    },
  };
  return { tools: counted, count: () => count };
}

/** The line that ends a run whose calls were denied for want of a terminal: how many, and what lets them through. */
export function deniedCallsLine(count: number): string {
  const calls = count === 1 ? '1 tool call was' : `${count} tool calls were`;
  return `${calls} denied: there was no terminal to ask for approval; ${allowWithoutPlan(count === 1 ? 'it' : 'them')}`;
}
