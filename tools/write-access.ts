import type { Assessment, ToolContext } from './define-tool.js';
import { WorkspacePathError, type WorkspacePath } from './workspace/index.js';
import { ToolError } from './tool-errors/index.js';

/**
 * Resolves a path for writing: the workspace guard first (inside, not `.git/` or `.dagent/`),
 * then the node's write scope (its plan `writes` globs). Throws a refusal the model reads.
 */
export async function resolveWritablePath(context: ToolContext, input: string): Promise<WorkspacePath> {
  const target = await context.workspace.resolve(input, 'write');
  const refusal = context.writeScope?.check(target.relative);
  if (refusal !== undefined) {
    const sentence = refusal.trim().replace(/[.]+$/, '');
    const hint = sentence.includes('report_missing_work')
      ? ''
      : '. If this file must change for the task, call report_missing_work with the file and the reason instead of writing it';
    throw new ToolError(`${sentence}${hint}`, { outcome: 'refused' });
  }
  return target;
}

/**
 * Saves the file's previous content through the write scope, then replaces it atomically. A node
 * run by a worker writes under its claim's fence: not at all once another worker has the node.
 */
export async function writeWorkspaceFile(context: ToolContext, target: WorkspacePath, content: string): Promise<{ created: boolean }> {
  await context.writeScope?.beforeWrite(target.relative);
  const write = (): Promise<{ created: boolean }> => context.workspace.writeFile(target, content);
  // Only the file write itself inside the fence: it holds a store connection, and must not wait for another.
  const claim = context.writeScope?.claim;
  return claim === undefined ? write() : claim.fence(write);
}

/** For `assess`: a write the guard or the scope refuses is refused before anyone is asked. */
export async function assessWrite(context: ToolContext, input: string): Promise<Assessment> {
  try {
    await resolveWritablePath(context, input);
    return { level: 'risky', reason: 'writes a file' };
  } catch (error) {
    if (error instanceof WorkspacePathError || (error instanceof ToolError && error.outcome === 'refused')) {
      return { level: 'dangerous', reason: error.message };
    }
    return { level: 'risky', reason: 'writes a file' };
  }
}
