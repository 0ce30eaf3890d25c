/**
 * Where streamed text can be cut so that no secret is split between two writes (each write is
 * redacted on its own, so a secret split in two could reach the log in pieces no shape matches).
 * Keys, tokens, JWTs and URLs hold no whitespace, so the cut is at whitespace; and it is moved back
 * before anything whose secret part may still be coming:
 *
 * - a PEM private key whose `-----END … PRIVATE KEY-----` line has not arrived whole (its base64
 *   lines are separated by newlines);
 * - a label whose value follows after whitespace: `Bearer `, `Basic `, `Authorization: `,
 *   `password = `, `AWS_SECRET_ACCESS_KEY: `.
 */
export function secretSafeCut(text: string): number {
  let cut = lastWhitespace(text) + 1;
  if (cut === 0) return 0;
  cut = beforeOpenPem(text, cut);
  for (;;) {
    const held = beforeTrailingLabel(text, cut);
    if (held === cut) return cut;
    cut = held;
  }
}

const END_PEM = /-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----/y;

/** `cut`, or the start of the last PEM header before it when that key's end line is not complete before `cut`. */
function beforeOpenPem(text: string, cut: number): number {
  const begin = text.lastIndexOf('-----BEGIN', cut - 1);
  if (begin < 0) return cut;
  for (let end = text.indexOf('-----END', begin); end >= 0 && end < cut; end = text.indexOf('-----END', end + 1)) {
    END_PEM.lastIndex = end;
    if (END_PEM.test(text) && END_PEM.lastIndex <= cut) return cut;
  }
  return begin;
}

/** How far back a label is looked for: labels are short. */
const LABEL_WINDOW_CHARS = 256;
/** A label at the end of the text, its value still to come: an auth scheme word, or a name and `:`/`=`. */
const TRAILING_LABEL = /(?:\b(?:Bearer|Basic|Token|Digest)|[^\s:=]{1,64}[ \t]*[:=])[ \t\r\n]*$/i;

/** `cut`, or where a label that ends the text before `cut` starts. */
function beforeTrailingLabel(text: string, cut: number): number {
  const from = Math.max(0, cut - LABEL_WINDOW_CHARS);
  const match = TRAILING_LABEL.exec(text.slice(from, cut));
  return match === null ? cut : from + match.index;
}

function lastWhitespace(text: string): number {
  for (let index = text.length - 1; index >= 0; index -= 1) if (/\s/.test(text[index]!)) return index;
  return -1;
}
