import { z } from 'zod';
import { defineTool, loadToolDescription } from './define-tool.js';
import { ToolError } from './tool-errors/index.js';

const reportMissingWorkArgs = z.strictObject({
  title: z.string().min(1).max(200).describe('short title of the missed work, e.g. "Update the reminder job"'),
  files: z.array(z.string().min(1)).min(1).max(50).describe('workspace-relative files that must change'),
  reason: z.string().min(1).max(4000).describe('why: what changed that makes these files need work'),
});

/**
 * `report_missing_work`: writes a `work/reported` event to the run log; the run controller reads
 * it and applies the replanning rules (SPEC §2.5). Paths are checked like any other path.
 */
export const reportMissingWorkTool = defineTool({
  name: 'report_missing_work',
  description: loadToolDescription(import.meta.url, 'report-missing-work.md'),
  args: reportMissingWorkArgs,
  risk: 'read',
  planOnly: true,
  summarize: (args) => `report missing work "${args.title}" (${args.files.join(', ')})`,
  async execute(args, context) {
    if (context.nodeId === null) throw new ToolError('report_missing_work is for nodes of a plan; this agent has no plan to amend');
    const files: string[] = [];
    for (const file of args.files) files.push((await context.workspace.resolve(file, 'read')).relative);
    const event = await context.session.append({
      type: 'work/reported',
      turn: context.position.turn,
      step: context.position.step,
      payload: { title: args.title, files, reason: args.reason },
    });
    return {
      content: `Recorded (event ${event.seq}): the plan will get a node for "${args.title}" (${files.join(', ')}). Finish your own part now; do not edit those files.`,
      meta: { reportSeq: event.seq },
    };
  },
});
