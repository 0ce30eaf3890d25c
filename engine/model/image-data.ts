import { DagentError } from '../errors.js';
import type { ImageAttachment } from './model-message.js';

/**
 * The base64 bytes of an attached image, as a provider adapter sends them. The agent loads them
 * from the workspace (checked against the logged hash) before the request leaves; an image that
 * reaches an adapter without them is a bug in that wiring, said plainly rather than sent empty.
 */
export function loadedImageData(image: ImageAttachment): string {
  if (image.data === undefined) throw new DagentError(`image ${image.path} was not loaded before the request was sent`, { exitCode: 1 });
  return image.data;
}
