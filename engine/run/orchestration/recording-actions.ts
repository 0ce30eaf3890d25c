import type { ToolRuntime } from '../../agent/tool-runtime.js';
import type { NodeAction } from './node-outcome.js';

/** The runtime, recording each call's risk and outcome for the node's outcome checks. */
export function recordingActions(tools: ToolRuntime, actions: NodeAction[]): ToolRuntime {
  return {
    specs: (allowed) => tools.specs(allowed),
    ...(tools.riskOf === undefined ? {} : { riskOf: (name: string) => tools.riskOf?.(name) }),
    async execute(call, context) {
      const result = await tools.execute(call, context);
      const risk = typeof result.meta.risk === 'string' ? result.meta.risk : undefined;
      const humanNextStep = typeof result.meta.humanNextStep === 'string' ? result.meta.humanNextStep : undefined;
      actions.push({
        tool: call.name,
        ...(risk === undefined ? {} : { risk }),
        outcome: result.meta.outcome,
        summary: (result.content.split('\n', 1)[0] ?? '').slice(0, 240),
        ...(humanNextStep === undefined ? {} : { humanNextStep }),
        ...(result.meta.waitsFor === undefined ? {} : { waitsFor: result.meta.waitsFor }),
      });
      return result;
    },
  };
}
