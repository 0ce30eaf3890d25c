import type TurndownService from 'turndown';

/** The parts of a page a reader never sees, dropped before conversion. */
const INVISIBLE_ELEMENTS = ['script', 'style', 'noscript', 'template', 'iframe', 'object', 'embed', 'svg', 'canvas', 'head'] as const;

/** An HTML page as Markdown (ATX headings, fenced code), with its title when it has one. */
export interface MarkdownPage {
  readonly title?: string;
  readonly markdown: string;
}

/** Converts HTML to Markdown with turndown; scripts, styles and other invisible parts are dropped. */
export async function htmlToMarkdown(html: string): Promise<MarkdownPage> {
  // Loaded on the first HTML page, not with every CLI command.
  const { default: Turndown } = await import('turndown');
  const service = new Turndown({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '_' });
  service.remove([...INVISIBLE_ELEMENTS] as TurndownService.Filter);
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1]?.replace(/\s+/g, ' ').trim();
  const markdown = service.turndown(html).replace(/\n{3,}/g, '\n\n').trim();
  return { ...(title ? { title: decodeEntities(title) } : {}), markdown };
}

function decodeEntities(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&apos;/g, "'")
    .replace(/&amp;/g, '&');
}
