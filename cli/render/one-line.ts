/**
 * `text` on one line: each line break, with the blanks around it, becomes one space, and a tab
 * one space; spaces within a line stay as they were, so a command reads as it ran
 * (`printf 'a  b'`, not `printf 'a b'`). Ends trimmed. Escapes are the caller's (`visibleText`).
 */
export function foldLines(text: string): string {
  return text.replace(LINE_BREAK_WITH_BLANKS, ' ').replace(/\t/g, ' ').trim();
}

// A line break (\r\n, \n, \r, or a Unicode line or paragraph separator) with the blanks before it
// on its line, and every blank or further break after it.
const LINE_BREAK_WITH_BLANKS = /[^\S\r\n\u2028\u2029]*[\r\n\u2028\u2029]\s*/g;
