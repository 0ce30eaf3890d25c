import { DatabaseError } from '../../engine/index.js';
import { errorCode } from './error-code.js';
import { ToolError, type ToolErrorOutcome } from './tool-error.js';

/** File-system error codes after which retrying the call cannot succeed. */
const FATAL_ERROR_CODES: ReadonlySet<string> = new Set(['ENOSPC', 'EDQUOT', 'EROFS', 'EIO']);

const ERROR_CODE_TEXT: Readonly<Record<string, string>> = {
  ENOENT: 'no such file or directory',
  EISDIR: 'is a directory (list_files lists it)',
  ENOTDIR: 'a part of the path is not a directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EEXIST: 'already exists',
  ENOTEMPTY: 'directory not empty',
  EMFILE: 'too many open files',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EROFS: 'read-only file system',
  EIO: 'input/output error',
  ELOOP: 'too many levels of symbolic links',
  ENAMETOOLONG: 'file name too long',
};

export interface DescribedFailure {
  readonly message: string;
  readonly outcome: ToolErrorOutcome;
  readonly fatal: boolean;
}

/**
 * Turns anything a tool threw into text the model can act on. Node's file-system errors lose
 * their absolute paths (the model works with workspace-relative ones) and gain plain wording.
 */
export function describeToolFailure(error: unknown, displayPath: (absolute: string) => string): DescribedFailure {
  if (error instanceof ToolError) return { message: error.message, outcome: error.outcome, fatal: error.fatal };
  if (error instanceof DatabaseError) return { message: `the run's database failed: ${error.message}`, outcome: 'error', fatal: true };
  const code = errorCode(error);
  if (code !== undefined && ERROR_CODE_TEXT[code] !== undefined) {
    const path = (error as { path?: unknown }).path;
    const where = typeof path === 'string' ? `${displayPath(path)}: ` : '';
    return { message: `${where}${ERROR_CODE_TEXT[code]}`, outcome: 'error', fatal: FATAL_ERROR_CODES.has(code) };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { message: message === '' ? 'the tool failed without a message' : message, outcome: 'error', fatal: false };
}
