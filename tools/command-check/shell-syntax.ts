import { decodeAnsiC, matchingClose } from './shell-brackets.js';
import { ShellAssembler } from './shell-assembly.js';
import type { ShellScript } from './shell-script.js';

export type { ShellCommand, ShellPipeline, ShellRedirect, ShellScript, ShellWord } from './shell-script.js';

const REDIRECT_OPERATORS = ['<<<', '<<-', '<<', '<>', '<&', '<(', '<', '>>', '>|', '>&', '>(', '>'] as const;

/**
 * Parses one command line (several lines, for here-documents and continuations) far enough to
 * judge it. Pure, and never throws: what it cannot read is listed in `problems`, which the
 * checker treats as unclassifiable.
 */
export function parseShell(source: string): ShellScript {
  return new ShellParser(source).parse();
}

/** Reads the source character by character; what the characters make is up to the assembler. */
class ShellParser {
  readonly #source: string;
  #index = 0;
  readonly #out = new ShellAssembler();

  constructor(source: string) {
    this.#source = source;
  }

  parse(): ShellScript {
    while (this.#index < this.#source.length) this.#step();
    return this.#out.finish();
  }

  /** Substitutions inside text that is expanded like a double-quoted string (here-documents, `${…}`). */
  scanExpandedText(): { substitutions: string[]; problems: string[] } {
    this.#out.startWord();
    this.#doubleQuoted(undefined);
    return this.#out.expandedTextFindings();
  }

  /** One character, or the construct it opens. */
  #step(): void {
    const char = this.#source[this.#index]!;
    switch (char) {
      case ' ':
      case '\t':
        this.#out.endWord();
        this.#index += 1;
        return;
      case '\n':
        this.#newline();
        return;
      case '#':
        this.#hash();
        return;
      case '\\':
        this.#backslash();
        return;
      case "'":
        this.#singleQuoted();
        return;
      case '"':
        this.#index += 1;
        this.#doubleQuoted('"');
        return;
      case '$':
        this.#dollar();
        return;
      case '`':
        this.#backtick();
        return;
      case ';':
        this.#semicolon();
        return;
      case '&':
        this.#ampersand();
        return;
      case '|':
        this.#bar();
        return;
      case '<':
      case '>':
        this.#redirection();
        return;
      case '(':
        this.#openParen();
        return;
      case ')':
        this.#out.endPipeline();
        this.#index += 1;
        return;
      default:
        this.#wordCharacter(char);
    }
  }

  /** A character that only adds to the current word, with what it tells about it. */
  #wordCharacter(char: string): void {
    const next = this.#source[this.#index + 1];
    if (char === '*' || char === '?' || char === '[') this.#out.appendGlob(char);
    else if (char === '{') {
      if (next !== '}' && next !== undefined && !/\s/.test(next)) this.#out.appendGlob(char);
      else this.#out.append(char, false);
    } else if (char === '~') this.#out.appendTilde();
    else if (char === '=') this.#out.appendEquals();
    else this.#out.appendUnquoted(char);
    this.#index += 1;
  }

  #newline(): void {
    this.#out.endPipeline();
    this.#index += 1;
    this.#readHeredocBodies();
  }

  /** A comment to the end of the line, unless inside a word. */
  #hash(): void {
    if (this.#out.inWord) {
      this.#out.append('#', false);
      this.#index += 1;
      return;
    }
    const end = this.#source.indexOf('\n', this.#index);
    this.#index = end < 0 ? this.#source.length : end;
  }

  #backslash(): void {
    const next = this.#source[this.#index + 1];
    if (next === undefined) {
      this.#out.append('\\', true);
      this.#index += 1;
    } else if (next === '\n') {
      this.#index += 2;
    } else {
      this.#out.append(next, true);
      this.#index += 2;
    }
  }

  /** `;`, or `;;` / `;&` which end a case branch. */
  #semicolon(): void {
    const next = this.#source[this.#index + 1];
    const caseBranch = next === ';' || next === '&';
    this.#out.endPipeline();
    if (caseBranch) this.#out.addConstruct('case statement');
    this.#index += caseBranch ? 2 : 1;
  }

  /** `&&`, `&>` / `&>>` (both outputs redirected), or `&` (in the background). */
  #ampersand(): void {
    const next = this.#source[this.#index + 1];
    if (next === '&') {
      this.#out.endPipeline();
      this.#index += 2;
    } else if (next === '>') {
      this.#out.endWord();
      const append = this.#source[this.#index + 2] === '>';
      this.#out.startRedirect(append ? '&>>' : '&>', undefined);
      this.#index += append ? 3 : 2;
    } else {
      this.#out.markBackground();
      this.#out.endPipeline();
      this.#index += 1;
    }
  }

  /** `||`, or a pipe (`|` or `|&`). */
  #bar(): void {
    const next = this.#source[this.#index + 1];
    if (next === '|') {
      this.#out.endPipeline();
      this.#index += 2;
    } else {
      this.#out.pipe();
      this.#index += next === '&' ? 2 : 1;
    }
  }

  #singleQuoted(): void {
    const end = this.#source.indexOf("'", this.#index + 1);
    if (end < 0) {
      this.#out.addProblems('unterminated single quote');
      this.#out.append(this.#source.slice(this.#index + 1), true);
      this.#index = this.#source.length;
      return;
    }
    this.#out.append(this.#source.slice(this.#index + 1, end), true);
    this.#index = end + 1;
  }

  /** From just after an opening `"` to its closing one (or to the end when `terminator` is undefined). */
  #doubleQuoted(terminator: '"' | undefined): void {
    this.#out.append('', true);
    const source = this.#source;
    while (this.#index < source.length) {
      const char = source[this.#index]!;
      if (char === terminator) {
        this.#index += 1;
        return;
      }
      if (char === '\\') this.#backslashInDoubleQuotes();
      else if (char === '$') this.#dollar();
      else if (char === '`') this.#backtick();
      else {
        this.#out.append(char, true);
        this.#index += 1;
      }
    }
    if (terminator !== undefined) this.#out.addProblems('unterminated double quote');
  }

  /** Inside double quotes a backslash escapes only `$`, `` ` ``, `"`, `\` and a newline. */
  #backslashInDoubleQuotes(): void {
    const next = this.#source[this.#index + 1];
    if (next === '\n') this.#index += 2;
    else if (next !== undefined && '$`"\\'.includes(next)) {
      this.#out.append(next, true);
      this.#index += 2;
    } else {
      this.#out.append('\\', true);
      this.#index += 1;
    }
  }

  #dollar(): void {
    const source = this.#source;
    const start = this.#index;
    const next = source[start + 1];
    if (next === '(') return this.#dollarParen();
    if (next === '{') return this.#dollarBrace();
    if (next === "'") return this.#ansiCQuoted();
    if (next === '"') {
      this.#index += 2;
      return this.#doubleQuoted('"');
    }
    const name = /^(?:[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])/.exec(source.slice(start + 1));
    if (name === null) {
      this.#out.append('$', false);
      this.#index += 1;
      return;
    }
    this.#out.markExpanded(`$${name[0]}`);
    this.#index = start + 1 + name[0].length;
  }

  /** `$(…)`, a command substitution, or `$((…))`, arithmetic. */
  #dollarParen(): void {
    const source = this.#source;
    const start = this.#index;
    const end = matchingClose(source, start + 1);
    if (end < 0) return this.#unterminated('$(');
    if (source[start + 2] === '(') {
      this.#out.addConstruct('arithmetic expansion');
      this.#markInnerSubstitutions(source.slice(start + 3, end - 1));
      this.#out.markExpanded(source.slice(start, end + 1));
    } else {
      this.#out.markExpanded(source.slice(start, end + 1), source.slice(start + 2, end));
    }
    this.#index = end + 1;
  }

  /** `${…}`: a parameter expansion, with any substitutions inside it. */
  #dollarBrace(): void {
    const source = this.#source;
    const start = this.#index;
    const end = matchingClose(source, start + 1);
    if (end < 0) return this.#unterminated('${');
    this.#markInnerSubstitutions(source.slice(start + 2, end));
    this.#out.markExpanded(source.slice(start, end + 1));
    this.#index = end + 1;
  }

  #markInnerSubstitutions(text: string): void {
    for (const substitution of substitutionsInExpandedText(text, this.#out)) this.#out.markExpanded('', substitution);
  }

  /** `$'…'`: bash's C-style string; decoded so `$'\\x72m'` reads as `rm`. */
  #ansiCQuoted(): void {
    const { text, end } = decodeAnsiC(this.#source, this.#index + 2);
    if (end >= this.#source.length) this.#out.addProblems("unterminated $'…' string");
    this.#out.append(text, true);
    this.#index = end + 1;
  }

  #backtick(): void {
    const source = this.#source;
    let index = this.#index + 1;
    let inner = '';
    while (index < source.length && source[index] !== '`') {
      if (source[index] === '\\' && index + 1 < source.length) {
        inner += '$`\\'.includes(source[index + 1]!) ? source[index + 1] : `\\${source[index + 1]}`;
        index += 2;
      } else {
        inner += source[index];
        index += 1;
      }
    }
    if (index >= source.length) return this.#unterminated('`');
    this.#out.markExpanded(source.slice(this.#index, index + 1), inner);
    this.#index = index + 1;
  }

  #unterminated(opening: string): void {
    this.#out.addProblems(`unterminated ${opening}`);
    this.#out.markExpanded(this.#source.slice(this.#index));
    this.#index = this.#source.length;
  }

  #redirection(): void {
    const source = this.#source;
    const operator = REDIRECT_OPERATORS.find((candidate) => source.startsWith(candidate, this.#index))!;
    if (operator === '<(' || operator === '>(') {
      const end = matchingClose(source, this.#index + 1);
      if (end < 0) return this.#unterminated(operator);
      this.#out.markExpanded(source.slice(this.#index, end + 1), source.slice(this.#index + 2, end));
      this.#out.markProcessSubstitution();
      this.#index = end + 1;
      return;
    }
    this.#out.startRedirect(operator, this.#out.takeFileDescriptor());
    this.#index += operator.length;
  }

  #openParen(): void {
    if (this.#out.inWord || (this.#out.commandHasWords && this.#source.slice(this.#index).match(/^\(\s*\)/) !== null)) {
      this.#out.addConstruct('function definition');
    } else {
      this.#out.addConstruct(this.#source[this.#index + 1] === '(' ? 'arithmetic command' : 'subshell');
    }
    this.#out.endPipeline();
    this.#index += 1;
  }

  /** After a newline: the bodies of here-documents opened on the line just ended. */
  #readHeredocBodies(): void {
    const source = this.#source;
    for (const heredoc of this.#out.takeHeredocs()) {
      let body = '';
      while (this.#index < source.length) {
        const end = source.indexOf('\n', this.#index);
        const line = source.slice(this.#index, end < 0 ? source.length : end);
        this.#index = end < 0 ? source.length : end + 1;
        if ((heredoc.stripTabs ? line.replace(/^\t+/, '') : line) === heredoc.delimiter) break;
        body += `${line}\n`;
      }
      if (heredoc.expand) this.#out.addSubstitutions(substitutionsInExpandedText(body, this.#out));
    }
  }
}

/** Substitutions inside text expanded like a double-quoted string; its problems go to `out`. */
function substitutionsInExpandedText(text: string, out: ShellAssembler): string[] {
  const scanned = new ShellParser(text).scanExpandedText();
  out.addProblems(...scanned.problems);
  return scanned.substitutions;
}
