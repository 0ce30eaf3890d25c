/** The content type of a tool result whose tool names none: the text the model reads. */
export const DEFAULT_TOOL_CONTENT_TYPE = 'text/plain';
/** Who produced a tool result whose tool names no one else: dagent itself (files, commands, history). */
export const DEFAULT_TOOL_PROVIDER = 'dagent';

/** The fields every `tool/result` carries, whatever the tool (SPEC §1.6). */
export interface UniformToolMeta {
  readonly truncated: boolean;
  readonly originalLength: number;
  /** Where the content came from: the path, URL, command or query; the tool's name when it has none. */
  readonly source: string;
  readonly contentType: string;
  readonly provider: string;
}

/** The meta and argument keys a source is read from, first found wins. */
const SOURCE_KEYS = ['source', 'path', 'url', 'command', 'query'] as const;

/**
 * `meta` with every uniform field present: what the tool said, else what its arguments name, else
 * the defaults. Pure; the log applies it to every `tool/result` it writes and to older rows it reads.
 */
export function withUniformToolMeta<M extends Readonly<Record<string, unknown>>>(
  toolName: string,
  content: string,
  meta: M,
): M & UniformToolMeta {
  const args = isRecord(meta['args']) ? meta['args'] : {};
  const source = SOURCE_KEYS.map((key) => meta[key] ?? args[key]).find((value): value is string => typeof value === 'string' && value !== '');
  return {
    ...meta,
    truncated: meta['truncated'] === true,
    originalLength: typeof meta['originalLength'] === 'number' ? meta['originalLength'] : content.length,
    source: source ?? toolName,
    contentType: nonEmpty(meta['contentType']) ?? DEFAULT_TOOL_CONTENT_TYPE,
    provider: nonEmpty(meta['provider']) ?? DEFAULT_TOOL_PROVIDER,
  };
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Whether a tool result records the run's stop rather than the call's own end: the run's cancel or
 * pause aborted the call, or stopped it before it ran (`aborted`). When the stopped attempt goes on
 * from its last step, such a call counts as in flight, as after a kill, and the result it gets then
 * replaces this one on the surface.
 */
export function isStopResult(payload: { readonly meta: { readonly outcome: string } }): boolean {
  return payload.meta.outcome === 'aborted';
}
