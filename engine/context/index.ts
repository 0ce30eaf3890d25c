export { buildRequest, type BuildRequestInput } from './build-request.js';
export { reconstructRequest, RequestNotFoundError, type InspectedMessage, type ReconstructedRequest } from './reconstruct-request.js';
export { recordRequest, type RecordRequestInput } from './record-request.js';
export { projectRuntimeContext, renderRuntimeContext, type StepPosition } from './runtime-context.js';
export { SystemPrompt, type ContextProvider, type PromptSection, type PromptSnapshot, type ToolSource } from './system-prompt.js';
export { DEFAULT_IMAGE_MAX_BYTES, ImageReferenceError, attachImages, findImageReferences, formatMegabytes, imageMediaType, loadImageData, type ImageSource, type ImageSupport } from './image-references.js';
