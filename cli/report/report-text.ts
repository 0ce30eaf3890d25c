import { visibleText } from '../../engine/read-face.js';

/**
 * Text from the run (task, titles, model answers, errors, paths) made safe for each report format:
 * terminal controls are shown as visible escapes first (as every command prints them), then the
 * format's own special characters are escaped, so nothing in a run can inject markup into a
 * pull-request comment or an html page.
 */

const HTML_ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text for html content or an attribute value. */
export function htmlText(text: string, options: { readonly multiline?: boolean } = {}): string {
  return visibleText(text, options).replace(/[&<>"']/g, (character) => HTML_ENTITIES[character]!);
}

/**
 * Text for one line of markdown (a table cell, a list item, a summary): html specials as entities,
 * markdown punctuation backslash-escaped, `@` as an entity so a model's answer cannot mention
 * (notify) anybody, line breaks as spaces.
 */
export function markdownText(text: string): string {
  return visibleText(text.replace(/\s+/g, ' ').trim())
    .replace(/[&<>"]/g, (character) => HTML_ENTITIES[character]!)
    .replace(/[\\`*_[\]()|~#!{}]/g, (character) => `\\${character}`)
    .replace(/@/g, '&#64;');
}

/** A fenced code block that no backtick run in `text` can close early. */
export function markdownCodeBlock(text: string, language = ''): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${language}\n${visibleText(text, { multiline: true })}\n${fence}`;
}

/** A code span (nothing inside is markup): one line, its backticks turned into quotes so none closes it. */
export function markdownCodeSpan(text: string): string {
  return `\`${visibleText(text.replace(/\s+/g, ' ').trim()).replace(/`/g, "'")}\``;
}

/** At most `max` characters of `text`, and how many were left off. */
export function truncated(text: string, max: number): { readonly text: string; readonly omitted: number } {
  return text.length <= max ? { text, omitted: 0 } : { text: text.slice(0, max), omitted: text.length - max };
}
