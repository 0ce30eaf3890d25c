/** The path guard: every path a tool, a user or a model names is resolved inside the workspace here. */
export { WorkspaceGuard, isInside, MAX_PATH_CHARS, MAX_PATH_COMPONENT_BYTES, type PathPurpose, type WorkspacePath } from './workspace-guard.js';
export { WorkspacePathError, PathOutsideWorkspaceError, ProtectedPathError, InvalidPathError, SymlinkLoopError } from './path-errors.js';
export { protectedNameOf, protectedNameInPath, PROTECTED_DIRECTORY_NAMES } from './protected-paths.js';
export { walkRealPath, type RealPathWalk, type RealPathWalkOptions } from './resolve-real-path.js';
