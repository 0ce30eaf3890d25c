/**
 * A line made by `styledLine` as blessed's screen cells (`[attr, char]`), without an element:
 * the dashboard writes its lines straight into the screen buffer, so a frame costs neither
 * blessed's tag parsing nor its element layout, and only the lines that changed are touched.
 *
 * An attr is blessed's packed number: `flags << 18 | fg << 9 | bg`, where 0x1ff is the terminal's
 * default colour and the flags are bold (1) and inverse (8).
 */
export type Cell = [attr: number, char: string];

/** blessed's default attr: no flags, default foreground and background. */
export const DEFAULT_ATTR = (0 << 18) | (0x1ff << 9) | 0x1ff;

const FOREGROUNDS: Readonly<Record<string, number>> = { 'red-fg': 1, 'green-fg': 2, 'yellow-fg': 3, 'magenta-fg': 5, 'cyan-fg': 6, 'gray-fg': 8 };
const FLAGS: Readonly<Record<string, number>> = { bold: 1, inverse: 8 };
const TAG = /\{(\/?)([a-z-]+)\}/g;

/** The cells of one line, cut or padded with blanks to `width`. */
export function lineCells(line: string, width: number, defaultAttr = DEFAULT_ATTR): Cell[] {
  const cells: Cell[] = [];
  const open: string[] = [];
  const attrOf = (): number => {
    let attr = defaultAttr;
    for (const tag of open) {
      const fg = FOREGROUNDS[tag];
      if (fg !== undefined) attr = (attr & ~(0x1ff << 9)) | (fg << 9);
      const flag = FLAGS[tag];
      if (flag !== undefined) attr |= flag << 18;
    }
    return attr;
  };
  let attr = defaultAttr;
  const put = (text: string): void => {
    for (const char of text) if (cells.length < width) cells.push([attr, char]);
  };
  let at = 0;
  for (const match of line.matchAll(TAG)) {
    put(line.slice(at, match.index));
    at = match.index + match[0].length;
    const [, closing, name = ''] = match;
    if (name === 'open' && closing === '') put('{');
    else if (name === 'close' && closing === '') put('}');
    else if (closing === '') open.push(name);
    else open.splice(open.lastIndexOf(name), 1);
    attr = attrOf();
  }
  put(line.slice(at));
  while (cells.length < width) cells.push([defaultAttr, ' ']);
  return cells;
}
