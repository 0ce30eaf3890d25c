import { rememberArgsSchema, rememberFromTool, type MemoryBank } from '../engine/index.js';
import { defineTool, loadToolDescription } from './define-tool.js';

/** `remember`: adds a long-term memory (project scope unless the model asks for user scope). */
export function createRememberTool(store: MemoryBank) {
  return defineTool({
    name: 'remember',
    description: loadToolDescription(import.meta.url, 'remember.md'),
    args: rememberArgsSchema,
    risk: 'read',
    summarize: (args) => `remember "${args.content.slice(0, 60)}"`,
    async execute(args, context) {
      const result = await rememberFromTool(store, args, 'project', context.session, context.signal);
      return { content: result.text, meta: { memoryId: result.memory.id, created: result.created } };
    },
  });
}
