import { canonicalJson, contentHash } from '../canonical-json.js';
import type { Plan } from './plan-schema.js';

/**
 * The hash a user approves (`dagent approve`, `dagent run --approved HASH`): the content hash of
 * the plan's canonical JSON, so key order and absent optional fields do not change it while any
 * change of content does. Hash the plan as the schema returns it (defaults filled in).
 */
export function planHash(plan: Plan): string {
  return contentHash(canonicalJson(plan));
}
