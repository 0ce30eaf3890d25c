/**
 * Text from the plan, the model or the repository, made safe to print on a terminal: control
 * characters and escape sequences are shown as visible escapes instead of being obeyed, so what a
 * reviewer reads is what runs. `ESC[2K` (erase line), a carriage return that overwrites the line,
 * a C1 control (`\u009b` is CSI on many terminals) or a bidirectional override that reorders a
 * command all appear as text:
 *
 *   visibleText('rm -rf ~\r\u001b[2Kecho safe')  →  'rm -rf ~\\r\\e[2Kecho safe'
 *
 * In `multiline` mode line feeds and tabs are kept (model answers, rendered tables); otherwise
 * they are shown too (one-line fields such as a title or a command in a table row).
 */
export function visibleText(text: string, options: { readonly multiline?: boolean } = {}): string {
  const pattern = options.multiline === true ? INVISIBLE_MULTILINE : INVISIBLE;
  return text.replace(pattern, escapeOf);
}

/**
 * A JSON document whose C1 controls and direction overrides are written as `\uXXXX` escapes:
 * the same JSON value, but nothing in it steers a terminal it is printed on. (JSON.stringify
 * already escapes the C0 controls.)
 */
export function visibleJson(json: string): string {
  return json.replace(INVISIBLE_IN_JSON, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

// C0 controls, DEL, C1 controls, zero-width and direction marks, embeddings, overrides and
// isolates, line and paragraph separators, the BOM.
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;
const INVISIBLE_MULTILINE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;
const INVISIBLE_IN_JSON = /[\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

const NAMED: Readonly<Record<string, string>> = { '\t': '\\t', '\n': '\\n', '\r': '\\r', '\u001b': '\\e', '\b': '\\b', '\f': '\\f', '\v': '\\v', '\u0000': '\\0' };

function escapeOf(character: string): string {
  const named = NAMED[character];
  if (named !== undefined) return named;
  const code = character.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}
