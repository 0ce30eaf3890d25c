/** What a tool throws when it fails, and how any failure is put to the model: the leaf every part of tools/ builds on. */
export { ToolError, type ToolErrorOutcome } from './tool-error.js';
export { describeToolFailure, type DescribedFailure } from './describe-tool-failure.js';
export { errorCode } from './error-code.js';
