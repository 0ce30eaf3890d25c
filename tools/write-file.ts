import { z } from 'zod';
import { defineTool, loadToolDescription } from './define-tool.js';
import { formatBytes } from './text-file.js';
import { assessWrite, resolveWritablePath, writeWorkspaceFile } from './write-access.js';

const writeFileArgs = z.strictObject({
  path: z.string().min(1).describe('file path relative to the workspace root'),
  content: z.string().describe('the complete new content of the file'),
});

export const writeFileTool = defineTool({
  name: 'write_file',
  description: loadToolDescription(import.meta.url, 'write-file.md'),
  args: writeFileArgs,
  risk: 'write',
  summarize: (args) => `write_file ${args.path} (${countLines(args.content)} lines)`,
  assess: (args, context) => assessWrite(context, args.path),
  async execute(args, context) {
    const target = await resolveWritablePath(context, args.path);
    const { created } = await writeWorkspaceFile(context, target, args.content);
    const bytes = Buffer.byteLength(args.content);
    return {
      content: `${created ? 'created' : 'replaced'} ${target.relative} (${countLines(args.content)} lines, ${formatBytes(bytes)})`,
      meta: { path: target.relative, created, bytes },
    };
  },
});

export function countLines(text: string): number {
  if (text === '') return 0;
  const newlines = text.split('\n').length - 1;
  return text.endsWith('\n') ? newlines : newlines + 1;
}
