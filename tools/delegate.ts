import { z } from 'zod';
import { awaitDelegation } from '../engine/index.js';
import { defineTool, loadToolDescription } from './define-tool.js';
import { ToolError } from './tool-errors/index.js';

const delegateArgs = z.strictObject({
  id: z.string().min(1).max(64).describe('the new node id: lowercase letters, digits and dashes, unique in the plan'),
  title: z.string().min(1).max(200).describe('short title, e.g. "Parse the dates"'),
  instructions: z.string().min(1).max(20_000).describe('what the member must do: complete, it sees nothing else of your conversation'),
  kind: z.enum(['edit', 'read', 'agent']).default('edit').describe('edit (default), read (look only) or agent'),
  reads: z.array(z.string().min(1)).max(200).default([]).describe('workspace files or globs it reads'),
  writes: z.array(z.string().min(1)).max(200).default([]).describe('workspace files or globs it may change'),
  dependsOn: z.array(z.string().min(1)).max(50).default([]).describe('ids of nodes you delegated before that it must wait for'),
});

/** How long the delegator waits for the controller's answer (a plan version or a refusal); the controller answers in milliseconds. */
const DELEGATION_ANSWER_TIMEOUT_MS = 60_000;

/**
 * `delegate` (team mode): writes a `work/delegated` event and waits for the run controller's
 * `delegation/answered`: the node is in a new plan version and scheduled, or refused with one line.
 */
export const delegateTool = defineTool({
  name: 'delegate',
  description: loadToolDescription(import.meta.url, 'delegate.md'),
  args: delegateArgs,
  risk: 'read',
  planOnly: true,
  teamOnly: true,
  timeoutMs: DELEGATION_ANSWER_TIMEOUT_MS,
  summarize: (args) => `delegate ${args.id} "${args.title}"${args.writes.length === 0 ? '' : ` (writes ${args.writes.join(', ')})`}`,
  async execute(args, context) {
    if (context.nodeId === null) throw new ToolError('delegate is for the lead of a team run (`dagent team`); this agent has no plan to grow');
    const event = await context.session.append({ type: 'work/delegated', turn: context.position.turn, step: context.position.step, payload: { ...args } });
    const answer = await awaitDelegation(context.session.log, event.seq, context.signal);
    if (answer.outcome === 'refused') return { content: `delegate ${args.id}: ${answer.reason ?? 'refused'}`, outcome: 'refused', meta: { delegationSeq: event.seq } };
    return {
      content: `Delegated ${args.id} (plan v${answer.planVersion ?? '?'}): it runs now${args.dependsOn.length === 0 ? '' : ` after ${args.dependsOn.join(', ')}`}. Call await_nodes {"ids":["${args.id}"]} for its result.`,
      meta: { delegationSeq: event.seq, nodeId: args.id, ...(answer.planVersion === undefined ? {} : { planVersion: answer.planVersion }) },
    };
  },
});
