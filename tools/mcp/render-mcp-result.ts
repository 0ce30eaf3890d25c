import type { ToolOutput } from '../define-tool.js';
import { wrapExternalContent } from '../web/index.js';

/** The parts of an MCP `tools/call` result dagent reads (the SDK's types stop here). */
export interface McpCallResult {
  readonly content?: readonly McpContentBlock[];
  readonly structuredContent?: unknown;
  readonly isError?: boolean;
  /** The result shape of old (2024-10) servers. */
  readonly toolResult?: unknown;
}

export type McpContentBlock =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image' | 'audio'; readonly data: string; readonly mimeType: string }
  | { readonly type: 'resource_link'; readonly uri: string; readonly name?: string; readonly mimeType?: string; readonly description?: string }
  | { readonly type: 'resource'; readonly resource: { readonly uri: string; readonly mimeType?: string; readonly text?: string; readonly blob?: string } }
  | { readonly type: string };

/** Structured content larger than this stays out of `meta` (its text is still shown). */
const MAX_META_STRUCTURED_CHARS = 100_000;

/**
 * An MCP result as the model sees it: text blocks as they are, embedded text resources with their
 * URI, images, audio and binary resources as one line each, structured content as JSON when no
 * text says it; wrapped as external content from the server. `meta` records the server, the tool,
 * the block types, the resources and the structured content, so the log keeps what was returned.
 */
export function renderMcpResult(server: string, tool: string, result: McpCallResult): ToolOutput {
  const blocks = result.content ?? [];
  const parts: string[] = [];
  const resources: { uri: string; mimeType?: string; kind: string }[] = [];
  for (const block of blocks) parts.push(renderBlock(block, resources));
  const structured = result.structuredContent ?? (result.content === undefined ? result.toolResult : undefined);
  const structuredText = structured === undefined ? undefined : JSON.stringify(structured, null, 2);
  if (structuredText !== undefined && !parts.some((part) => part.includes(structuredText) || safeEquals(part, structured))) {
    parts.push(parts.length === 0 ? structuredText : `structured content:\n${structuredText}`);
  }
  const text = parts.length === 0 ? '(the tool returned nothing)' : parts.join('\n\n');
  const failed = result.isError === true;
  const wrapped = wrapExternalContent(text, { source: 'mcp', server, tool });
  return {
    content: failed ? `error: the MCP tool reported a failure\n${wrapped}` : wrapped,
    ...(failed ? { outcome: 'error' as const, isError: true } : {}),
    meta: {
      provider: `mcp:${server}`,
      server,
      tool,
      contentTypes: blocks.map((block) => block.type),
      ...(resources.length === 0 ? {} : { resources }),
      ...(structuredText === undefined ? {} : structuredText.length <= MAX_META_STRUCTURED_CHARS ? { structuredContent: structured } : { structuredContentChars: structuredText.length }),
    },
  };
}

function renderBlock(block: McpContentBlock, resources: { uri: string; mimeType?: string; kind: string }[]): string {
  switch (block.type) {
    case 'text':
      return (block as { text: string }).text;
    case 'image':
    case 'audio': {
      const media = block as { data: string; mimeType: string };
      return `[${block.type}: ${media.mimeType}, ${Buffer.byteLength(media.data, 'base64')} bytes, not shown]`;
    }
    case 'resource_link': {
      const link = block as { uri: string; name?: string; mimeType?: string; description?: string };
      resources.push({ uri: link.uri, ...(link.mimeType === undefined ? {} : { mimeType: link.mimeType }), kind: 'link' });
      return `[resource link: ${link.name ?? link.uri} ${link.uri}${link.mimeType ? ` (${link.mimeType})` : ''}]${link.description ? ` ${link.description}` : ''}`;
    }
    case 'resource': {
      const resource = (block as { resource: { uri: string; mimeType?: string; text?: string; blob?: string } }).resource;
      resources.push({ uri: resource.uri, ...(resource.mimeType === undefined ? {} : { mimeType: resource.mimeType }), kind: resource.text === undefined ? 'blob' : 'text' });
      const head = `[resource ${resource.uri}${resource.mimeType ? ` (${resource.mimeType})` : ''}]`;
      if (resource.text !== undefined) return `${head}\n${resource.text}`;
      return `${head} binary, ${Buffer.byteLength(resource.blob ?? '', 'base64')} bytes, not shown`;
    }
    default:
      return `[${block.type} content, not shown]`;
  }
}

/** A text block that is the structured content's JSON in another layout counts as saying it. */
function safeEquals(text: string, structured: unknown): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(structured);
  } catch {
    return false;
  }
}
