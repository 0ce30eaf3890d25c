import { visibleText } from '../engine/index.js';

/** How a span of the screen looks; rendered as blessed tags, or as nothing under NO_COLOR. */
export type Style = 'plain' | 'dim' | 'bold' | 'green' | 'red' | 'yellow' | 'cyan' | 'magenta' | 'inverse';

export type Span = readonly [text: string, style?: Style];

const TAGS: Readonly<Record<Exclude<Style, 'plain'>, string>> = {
  dim: 'gray-fg',
  bold: 'bold',
  green: 'green-fg',
  red: 'red-fg',
  yellow: 'yellow-fg',
  cyan: 'cyan-fg',
  magenta: 'magenta-fg',
  inverse: 'inverse',
};

/** Braces would open blessed tags: escape them in text. */
function escapeTags(text: string): string {
  return text.replace(/[{}]/g, (brace) => (brace === '{' ? '{open}' : '{close}'));
}

/**
 * One screen line from spans, cut to `width` visible characters before any tag is added (so tags
 * never count as width). Without colour the selection still shows, as inverse video. Text from the
 * plan, the model or the repository shows its control characters and terminal escapes as escapes.
 */
export function styledLine(spans: readonly Span[], width: number, color: boolean): string {
  let left = width;
  let out = '';
  for (const [text, style = 'plain'] of spans) {
    if (left <= 0) break;
    const chars = [...visibleText(text.replace(/[\r\n\t]+/g, ' '))];
    const piece = chars.length <= left ? chars.join('') : `${chars.slice(0, Math.max(0, left - 1)).join('')}…`;
    left -= [...piece].length;
    const escaped = escapeTags(piece);
    const tag = style === 'plain' || (!color && style !== 'inverse' && style !== 'bold') ? undefined : TAGS[style];
    out += tag === undefined ? escaped : `{${tag}}${escaped}{/${tag}}`;
  }
  return out;
}

/** The visible text of a line made by `styledLine` (tests, captures). */
export function plainText(line: string): string {
  return line.replace(/\{\/?[a-z-]+\}/g, (tag) => (tag === '{open}' ? '{' : tag === '{close}' ? '}' : ''));
}
