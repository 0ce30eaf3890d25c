/** The wrapper tools put around outside text (web pages, search results, MCP answers): its opening tag and the notice line after it. */
const WRAPPER_OPENING = /<external-content\b[^>]*>\n[^\n]*\n\n?/g;
const WRAPPER_CLOSING = /\n?<\/external-content>/g;

/**
 * A tool result as a one-line view shows it (`dagent log`, the dashboard's live events): the text
 * the tool returned, without the untrusted-content wrapper the model reads around outside text
 * (its tag and notice would fill the line), and without the `error: ` the outcome already says.
 */
export function toolResultGist(content: string): string {
  return content.replace(WRAPPER_OPENING, '').replace(WRAPPER_CLOSING, '').replace(/^error: /, '').trim();
}
