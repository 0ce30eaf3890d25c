import { decodeAnsiC, matchingClose } from './shell-brackets.js';
import type { ShellCommand, ShellRedirect, ShellScript, ShellWord } from './shell-script.js';

export type { ShellCommand, ShellPipeline, ShellRedirect, ShellScript, ShellWord } from './shell-script.js';

const RESERVED_CONSTRUCTS: ReadonlySet<string> = new Set(['if', 'while', 'until', 'for', 'case', 'select', 'function', 'coproc']);
const RESERVED_FILLERS: ReadonlySet<string> = new Set(['!', '{', '}', 'then', 'else', 'elif', 'fi', 'do', 'done', 'esac', 'time']);
const REDIRECT_OPERATORS = ['<<<', '<<-', '<<', '<>', '<&', '<(', '<', '>>', '>|', '>&', '>(', '>'] as const;
const HEREDOC_OPERATORS: ReadonlySet<string> = new Set(['<<', '<<-']);
const ASSIGNMENT_NAME = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?$/;

/**
 * Parses one command line (several lines, for here-documents and continuations) far enough to
 * judge it. Pure, and never throws: what it cannot read is listed in `problems`, which the
 * checker treats as unclassifiable.
 */
export function parseShell(source: string): ShellScript {
  return new ShellParser(source).parse();
}

interface MutableWord {
  text: string;
  quoted: boolean;
  expanded: boolean;
  glob: boolean;
  tilde: boolean;
  substitutions: string[];
  processSubstitution: boolean;
  /** Only plain unquoted name characters so far: an `=` now makes it an assignment. */
  plain: boolean;
  assignment: boolean;
}

interface MutableCommand {
  assignments: ShellWord[];
  words: ShellWord[];
  redirects: ShellRedirect[];
}

interface PendingHeredoc {
  readonly delimiter: string;
  readonly expand: boolean;
  readonly stripTabs: boolean;
}

class ShellParser {
  readonly #source: string;
  #index = 0;
  readonly #pipelines: ShellCommand[][] = [];
  #pipeline: ShellCommand[] = [];
  #command: MutableCommand = { assignments: [], words: [], redirects: [] };
  #word: MutableWord | undefined;
  #redirect: { operator: string; fd?: number } | undefined;
  readonly #heredocs: PendingHeredoc[] = [];
  readonly #substitutions: string[] = [];
  readonly #constructs = new Set<string>();
  readonly #problems: string[] = [];
  #background = false;

  constructor(source: string) {
    this.#source = source;
  }

  parse(): ShellScript {
    while (this.#index < this.#source.length) this.#step();
    this.#endPipeline();
    return {
      pipelines: this.#pipelines,
      substitutions: this.#substitutions,
      constructs: [...this.#constructs],
      background: this.#background,
      problems: this.#problems,
    };
  }

  /** Substitutions inside text that is expanded like a double-quoted string (here-documents, `${…}`). */
  scanExpandedText(): { substitutions: string[]; problems: string[] } {
    this.#word = newWord();
    this.#doubleQuoted(undefined);
    return { substitutions: this.#substitutions, problems: this.#problems };
  }

  #step(): void {
    const source = this.#source;
    const char = source[this.#index]!;
    const next = source[this.#index + 1];
    switch (char) {
      case ' ':
      case '\t':
        this.#endWord();
        this.#index += 1;
        return;
      case '\n':
        this.#endPipeline();
        this.#index += 1;
        this.#readHeredocBodies();
        return;
      case '#':
        if (this.#word === undefined) {
          const end = source.indexOf('\n', this.#index);
          this.#index = end < 0 ? source.length : end;
        } else {
          this.#append('#', false);
          this.#index += 1;
        }
        return;
      case '\\':
        if (next === undefined) {
          this.#append('\\', true);
          this.#index += 1;
        } else if (next === '\n') {
          this.#index += 2;
        } else {
          this.#append(next, true);
          this.#index += 2;
        }
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
        this.#endPipeline();
        if (next === ';' || next === '&') this.#constructs.add('case statement');
        this.#index += next === ';' || next === '&' ? 2 : 1;
        return;
      case '&':
        if (next === '&') {
          this.#endPipeline();
          this.#index += 2;
        } else if (next === '>') {
          this.#endWord();
          const append = source[this.#index + 2] === '>';
          this.#startRedirect(append ? '&>>' : '&>', undefined, append ? 3 : 2);
        } else {
          this.#background = true;
          this.#endPipeline();
          this.#index += 1;
        }
        return;
      case '|':
        if (next === '|') {
          this.#endPipeline();
          this.#index += 2;
        } else {
          this.#pipe();
          this.#index += next === '&' ? 2 : 1;
        }
        return;
      case '<':
      case '>':
        this.#redirection();
        return;
      case '(':
        this.#openParen();
        return;
      case ')':
        this.#endPipeline();
        this.#index += 1;
        return;
      case '*':
      case '?':
      case '[':
        this.#append(char, false);
        this.#word!.glob = true;
        this.#index += 1;
        return;
      case '{':
        this.#append(char, false);
        if (next !== '}' && next !== undefined && !/\s/.test(next)) this.#word!.glob = true;
        this.#index += 1;
        return;
      case '~':
        if (this.#word === undefined) {
          this.#append(char, false);
          this.#word!.tilde = true;
        } else {
          this.#append(char, false);
        }
        this.#index += 1;
        return;
      case '=':
        this.#append(char, false);
        if (this.#word!.plain && ASSIGNMENT_NAME.test(this.#word!.text.slice(0, -1))) this.#word!.assignment = true;
        this.#word!.plain = false;
        this.#index += 1;
        return;
      default:
        this.#append(char, false);
        if (!/[A-Za-z0-9_+[\]]/.test(char)) this.#word!.plain = false;
        this.#index += 1;
    }
  }

  #append(text: string, quoted: boolean): void {
    this.#word ??= newWord();
    this.#word.text += text;
    if (quoted) {
      this.#word.quoted = true;
      this.#word.plain = false;
    }
  }

  #markExpanded(raw: string, substitution?: string): void {
    this.#append(raw, false);
    const word = this.#word!;
    word.expanded = true;
    word.plain = false;
    if (substitution !== undefined) {
      word.substitutions.push(substitution);
      this.#substitutions.push(substitution);
    }
  }

  #singleQuoted(): void {
    const end = this.#source.indexOf("'", this.#index + 1);
    if (end < 0) {
      this.#problems.push('unterminated single quote');
      this.#append(this.#source.slice(this.#index + 1), true);
      this.#index = this.#source.length;
      return;
    }
    this.#append(this.#source.slice(this.#index + 1, end), true);
    this.#index = end + 1;
  }

  /** From just after an opening `"` to its closing one (or to the end when `terminator` is undefined). */
  #doubleQuoted(terminator: '"' | undefined): void {
    this.#append('', true);
    const source = this.#source;
    while (this.#index < source.length) {
      const char = source[this.#index]!;
      if (char === terminator) {
        this.#index += 1;
        return;
      }
      if (char === '\\') {
        const next = source[this.#index + 1];
        if (next === '\n') this.#index += 2;
        else if (next !== undefined && '$`"\\'.includes(next)) {
          this.#append(next, true);
          this.#index += 2;
        } else {
          this.#append('\\', true);
          this.#index += 1;
        }
      } else if (char === '$') {
        this.#dollar();
      } else if (char === '`') {
        this.#backtick();
      } else {
        this.#append(char, true);
        this.#index += 1;
      }
    }
    if (terminator !== undefined) this.#problems.push('unterminated double quote');
  }

  #dollar(): void {
    const source = this.#source;
    const start = this.#index;
    const next = source[start + 1];
    if (next === '(') {
      const end = matchingClose(source, start + 1);
      if (end < 0) return this.#unterminated('$(');
      if (source[start + 2] === '(') {
        this.#constructs.add('arithmetic expansion');
        const inner = source.slice(start + 3, end - 1);
        for (const substitution of substitutionsInExpandedText(inner, this.#problems)) this.#markExpanded('', substitution);
        this.#markExpanded(source.slice(start, end + 1));
      } else {
        const inner = source.slice(start + 2, end);
        this.#markExpanded(source.slice(start, end + 1), inner);
      }
      this.#index = end + 1;
      return;
    }
    if (next === '{') {
      const end = matchingClose(source, start + 1);
      if (end < 0) return this.#unterminated('${');
      const inner = source.slice(start + 2, end);
      for (const substitution of substitutionsInExpandedText(inner, this.#problems)) this.#markExpanded('', substitution);
      this.#markExpanded(source.slice(start, end + 1));
      this.#index = end + 1;
      return;
    }
    if (next === "'") {
      this.#ansiCQuoted();
      return;
    }
    if (next === '"') {
      this.#index += 2;
      this.#doubleQuoted('"');
      return;
    }
    const name = /^(?:[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])/.exec(source.slice(start + 1));
    if (name === null) {
      this.#append('$', false);
      this.#index += 1;
      return;
    }
    this.#markExpanded(`$${name[0]}`);
    this.#index = start + 1 + name[0].length;
  }

  /** `$'…'`: bash's C-style string; decoded so `$'\\x72m'` reads as `rm`. */
  #ansiCQuoted(): void {
    const { text, end } = decodeAnsiC(this.#source, this.#index + 2);
    if (end >= this.#source.length) this.#problems.push("unterminated $'…' string");
    this.#append(text, true);
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
    this.#markExpanded(source.slice(this.#index, index + 1), inner);
    this.#index = index + 1;
  }

  #unterminated(opening: string): void {
    this.#problems.push(`unterminated ${opening}`);
    this.#markExpanded(this.#source.slice(this.#index));
    this.#index = this.#source.length;
  }

  #redirection(): void {
    const source = this.#source;
    const operator = REDIRECT_OPERATORS.find((candidate) => source.startsWith(candidate, this.#index))!;
    if (operator === '<(' || operator === '>(') {
      const end = matchingClose(source, this.#index + 1);
      if (end < 0) return this.#unterminated(operator);
      this.#markExpanded(source.slice(this.#index, end + 1), source.slice(this.#index + 2, end));
      this.#word!.processSubstitution = true;
      this.#index = end + 1;
      return;
    }
    let fd: number | undefined;
    const word = this.#word;
    if (word !== undefined && /^\d+$/.test(word.text) && !word.quoted && !word.expanded) {
      fd = Number(word.text);
      this.#word = undefined;
    } else {
      this.#endWord();
    }
    this.#startRedirect(operator, fd, operator.length);
  }

  #startRedirect(operator: string, fd: number | undefined, length: number): void {
    if (this.#redirect !== undefined) this.#problems.push(`redirection ${this.#redirect.operator} without a target`);
    this.#redirect = fd === undefined ? { operator } : { operator, fd };
    this.#index += length;
  }

  #openParen(): void {
    const word = this.#word;
    if (word !== undefined || (this.#command.words.length > 0 && this.#source.slice(this.#index).match(/^\(\s*\)/) !== null)) {
      this.#constructs.add('function definition');
    } else {
      this.#constructs.add(this.#source[this.#index + 1] === '(' ? 'arithmetic command' : 'subshell');
    }
    this.#endPipeline();
    this.#index += 1;
  }

  #pipe(): void {
    this.#endWord();
    const empty = this.#command.words.length === 0 && this.#command.assignments.length === 0 && this.#command.redirects.length === 0;
    if (empty) this.#problems.push('a pipe without a command before it');
    this.#endCommand();
  }

  #endWord(): void {
    const word = this.#word;
    if (word === undefined) return;
    this.#word = undefined;
    const frozen: ShellWord = {
      text: word.text,
      quoted: word.quoted,
      expanded: word.expanded,
      glob: word.glob,
      tilde: word.tilde,
      substitutions: word.substitutions,
      processSubstitution: word.processSubstitution,
    };
    const redirect = this.#redirect;
    if (redirect !== undefined) {
      this.#redirect = undefined;
      this.#command.redirects.push({ ...redirect, target: frozen });
      if (HEREDOC_OPERATORS.has(redirect.operator)) {
        this.#heredocs.push({ delimiter: frozen.text, expand: !frozen.quoted, stripTabs: redirect.operator === '<<-' });
      }
      return;
    }
    const command = this.#command;
    if (command.words.length === 0 && word.assignment) {
      command.assignments.push(frozen);
      return;
    }
    if (command.words.length === 0 && !frozen.quoted && !frozen.expanded) {
      if (RESERVED_CONSTRUCTS.has(frozen.text)) {
        this.#constructs.add(`${frozen.text} statement`);
        return;
      }
      if (RESERVED_FILLERS.has(frozen.text)) return;
    }
    command.words.push(frozen);
  }

  #endCommand(): void {
    this.#endWord();
    if (this.#redirect !== undefined) {
      this.#problems.push(`redirection ${this.#redirect.operator} without a target`);
      this.#redirect = undefined;
    }
    const command = this.#command;
    if (command.words.length > 0 || command.assignments.length > 0 || command.redirects.length > 0) this.#pipeline.push(command);
    this.#command = { assignments: [], words: [], redirects: [] };
  }

  #endPipeline(): void {
    this.#endCommand();
    if (this.#pipeline.length > 0) this.#pipelines.push(this.#pipeline);
    this.#pipeline = [];
  }

  /** After a newline: the bodies of here-documents opened on the line just ended. */
  #readHeredocBodies(): void {
    const source = this.#source;
    for (const heredoc of this.#heredocs.splice(0)) {
      let body = '';
      while (this.#index < source.length) {
        const end = source.indexOf('\n', this.#index);
        const line = source.slice(this.#index, end < 0 ? source.length : end);
        this.#index = end < 0 ? source.length : end + 1;
        if ((heredoc.stripTabs ? line.replace(/^\t+/, '') : line) === heredoc.delimiter) break;
        body += `${line}\n`;
      }
      if (heredoc.expand) this.#substitutions.push(...substitutionsInExpandedText(body, this.#problems));
    }
  }
}

function newWord(): MutableWord {
  return { text: '', quoted: false, expanded: false, glob: false, tilde: false, substitutions: [], processSubstitution: false, plain: true, assignment: false };
}

/** Substitutions inside text expanded like a double-quoted string. */
function substitutionsInExpandedText(text: string, problems: string[]): string[] {
  const scanned = new ShellParser(text).scanExpandedText();
  problems.push(...scanned.problems);
  return scanned.substitutions;
}
