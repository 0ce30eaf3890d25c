/** Scanning helpers of the shell parser: matching brackets and quotes, decoding `$'…'`. */

/**
 * The index of the `)` or `}` closing the bracket at `open`, skipping quotes, escapes, nested
 * substitutions and backticks; -1 when there is none.
 */
export function matchingClose(source: string, open: number): number {
  const opening = source[open]!;
  const closing = opening === '(' ? ')' : '}';
  let depth = 0;
  for (let index = open; index < source.length; index += 1) {
    const char = source[index]!;
    if (char === '\\') {
      index += 1;
    } else if (char === "'") {
      const end = source.indexOf("'", index + 1);
      if (end < 0) return -1;
      index = end;
    } else if (char === '"') {
      const end = closingDoubleQuote(source, index + 1);
      if (end < 0) return -1;
      index = end;
    } else if (char === '`') {
      const end = source.indexOf('`', index + 1);
      if (end < 0) return -1;
      index = end;
    } else if (char === opening) {
      depth += 1;
    } else if (char === closing) {
      depth -= 1;
      if (depth === 0) return index;
    }
  }
  return -1;
}

function closingDoubleQuote(source: string, from: number): number {
  for (let index = from; index < source.length; index += 1) {
    const char = source[index]!;
    if (char === '\\') index += 1;
    else if (char === '"') return index;
    else if (char === '$' && (source[index + 1] === '(' || source[index + 1] === '{')) {
      const end = matchingClose(source, index + 1);
      if (end < 0) return -1;
      index = end;
    } else if (char === '`') {
      const end = source.indexOf('`', index + 1);
      if (end < 0) return -1;
      index = end;
    }
  }
  return -1;
}

const C_ESCAPES: Readonly<Record<string, string>> = { n: '\n', t: '\t', r: '\r', a: '\x07', b: '\b', e: '\x1b', f: '\f', v: '\v' };

/** Decodes the body of `$'…'` from `start` (just after the quote); `end` is the closing quote's index (or the length). */
export function decodeAnsiC(source: string, start: number): { text: string; end: number } {
  let index = start;
  let text = '';
  while (index < source.length && source[index] !== "'") {
    if (source[index] === '\\' && index + 1 < source.length) {
      const escape = /^(?:x([0-9a-fA-F]{1,2})|u([0-9a-fA-F]{1,4})|U([0-9a-fA-F]{1,8})|([0-7]{1,3})|(.))/s.exec(source.slice(index + 1))!;
      const code = escape[1] ?? escape[2] ?? escape[3];
      if (code !== undefined) text += String.fromCodePoint(Number.parseInt(code, 16));
      else if (escape[4] !== undefined) text += String.fromCharCode(Number.parseInt(escape[4], 8));
      else text += C_ESCAPES[escape[5]!] ?? escape[5]!;
      index += 1 + escape[0].length;
    } else {
      text += source[index];
      index += 1;
    }
  }
  return { text, end: index };
}
