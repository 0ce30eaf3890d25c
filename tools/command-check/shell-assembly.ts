import type { ShellCommand, ShellRedirect, ShellScript, ShellWord } from './shell-script.js';

const RESERVED_CONSTRUCTS: ReadonlySet<string> = new Set(['if', 'while', 'until', 'for', 'case', 'select', 'function', 'coproc']);
const RESERVED_FILLERS: ReadonlySet<string> = new Set(['!', '{', '}', 'then', 'else', 'elif', 'fi', 'do', 'done', 'esac', 'time']);
const HEREDOC_OPERATORS: ReadonlySet<string> = new Set(['<<', '<<-']);
const ASSIGNMENT_NAME = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?$/;
const NAME_CHARACTER = /[A-Za-z0-9_+[\]]/;

/** A here-document opened on the current line; its body starts after the line's newline. */
export interface PendingHeredoc {
  readonly delimiter: string;
  readonly expand: boolean;
  readonly stripTabs: boolean;
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

/**
 * Builds the script the shell reader walks through: characters into words, words into commands
 * (assignments, words, redirections), commands into pipelines. The reader says what it saw; this
 * decides what it becomes (an assignment, a reserved word, a redirection target, a here-document).
 */
export class ShellAssembler {
  readonly #pipelines: ShellCommand[][] = [];
  #pipeline: ShellCommand[] = [];
  #command: MutableCommand = emptyCommand();
  #word: MutableWord | undefined;
  #redirect: { operator: string; fd?: number } | undefined;
  readonly #heredocs: PendingHeredoc[] = [];
  readonly #substitutions: string[] = [];
  readonly #constructs = new Set<string>();
  readonly #problems: string[] = [];
  #background = false;

  /** A word is being read (a `#` here is part of it, not a comment; a `~` does not start it). */
  get inWord(): boolean {
    return this.#word !== undefined;
  }

  /** The current command has its name or arguments already. */
  get commandHasWords(): boolean {
    return this.#command.words.length > 0;
  }

  /** Ends the last pipeline and returns the script. */
  finish(): ShellScript {
    this.endPipeline();
    return {
      pipelines: this.#pipelines,
      substitutions: this.#substitutions,
      constructs: [...this.#constructs],
      background: this.#background,
      problems: this.#problems,
    };
  }

  /** What scanning expanded text found: its substitutions and problems. */
  expandedTextFindings(): { substitutions: string[]; problems: string[] } {
    return { substitutions: this.#substitutions, problems: this.#problems };
  }

  startWord(): void {
    this.#word = newWord();
  }

  append(text: string, quoted: boolean): void {
    this.#word ??= newWord();
    this.#word.text += text;
    if (quoted) {
      this.#word.quoted = true;
      this.#word.plain = false;
    }
  }

  /** An unquoted character with no meaning of its own: a name character keeps the word a possible assignment. */
  appendUnquoted(char: string): void {
    this.append(char, false);
    if (!NAME_CHARACTER.test(char)) this.#word!.plain = false;
  }

  appendGlob(char: string): void {
    this.append(char, false);
    this.#word!.glob = true;
  }

  /** A `~`: at the start of a word, a home-folder expansion. */
  appendTilde(): void {
    const starts = this.#word === undefined;
    this.append('~', false);
    if (starts) this.#word!.tilde = true;
  }

  /** An unquoted `=`: after a plain name, the word is an assignment. */
  appendEquals(): void {
    this.append('=', false);
    const word = this.#word!;
    if (word.plain && ASSIGNMENT_NAME.test(word.text.slice(0, -1))) word.assignment = true;
    word.plain = false;
  }

  markExpanded(raw: string, substitution?: string): void {
    this.append(raw, false);
    const word = this.#word!;
    word.expanded = true;
    word.plain = false;
    if (substitution !== undefined) {
      word.substitutions.push(substitution);
      this.#substitutions.push(substitution);
    }
  }

  markProcessSubstitution(): void {
    this.#word!.processSubstitution = true;
  }

  addSubstitutions(substitutions: readonly string[]): void {
    this.#substitutions.push(...substitutions);
  }

  addConstruct(construct: string): void {
    this.#constructs.add(construct);
  }

  addProblems(...problems: readonly string[]): void {
    this.#problems.push(...problems);
  }

  markBackground(): void {
    this.#background = true;
  }

  /** Before a redirection operator: a word of digits just before it is its file descriptor, not a word. */
  takeFileDescriptor(): number | undefined {
    const word = this.#word;
    if (word !== undefined && /^\d+$/.test(word.text) && !word.quoted && !word.expanded) {
      this.#word = undefined;
      return Number(word.text);
    }
    this.endWord();
    return undefined;
  }

  /** The next word is the target of this redirection. */
  startRedirect(operator: string, fd: number | undefined): void {
    if (this.#redirect !== undefined) this.#problems.push(`redirection ${this.#redirect.operator} without a target`);
    this.#redirect = fd === undefined ? { operator } : { operator, fd };
  }

  /** Here-documents opened since the last call, whose bodies the reader reads next. */
  takeHeredocs(): PendingHeredoc[] {
    return this.#heredocs.splice(0);
  }

  endWord(): void {
    const word = this.#word;
    if (word === undefined) return;
    this.#word = undefined;
    const frozen = freezeWord(word);
    if (this.#redirect !== undefined) this.#endRedirect(this.#redirect, frozen);
    else this.#placeWord(frozen, word.assignment);
  }

  /** A `|`: the command so far feeds the next. */
  pipe(): void {
    this.endWord();
    const command = this.#command;
    const empty = command.words.length === 0 && command.assignments.length === 0 && command.redirects.length === 0;
    if (empty) this.#problems.push('a pipe without a command before it');
    this.#endCommand();
  }

  endPipeline(): void {
    this.#endCommand();
    if (this.#pipeline.length > 0) this.#pipelines.push(this.#pipeline);
    this.#pipeline = [];
  }

  #endRedirect(redirect: { operator: string; fd?: number }, target: ShellWord): void {
    this.#redirect = undefined;
    this.#command.redirects.push({ ...redirect, target });
    if (HEREDOC_OPERATORS.has(redirect.operator)) {
      this.#heredocs.push({ delimiter: target.text, expand: !target.quoted, stripTabs: redirect.operator === '<<-' });
    }
  }

  /** A word in command position may be an assignment or a reserved word; any other is a word. */
  #placeWord(word: ShellWord, assignment: boolean): void {
    const command = this.#command;
    if (command.words.length === 0 && assignment) {
      command.assignments.push(word);
      return;
    }
    if (command.words.length === 0 && !word.quoted && !word.expanded) {
      if (RESERVED_CONSTRUCTS.has(word.text)) {
        this.#constructs.add(`${word.text} statement`);
        return;
      }
      if (RESERVED_FILLERS.has(word.text)) return;
    }
    command.words.push(word);
  }

  #endCommand(): void {
    this.endWord();
    if (this.#redirect !== undefined) {
      this.#problems.push(`redirection ${this.#redirect.operator} without a target`);
      this.#redirect = undefined;
    }
    const command = this.#command;
    if (command.words.length > 0 || command.assignments.length > 0 || command.redirects.length > 0) this.#pipeline.push(command);
    this.#command = emptyCommand();
  }
}

function newWord(): MutableWord {
  return { text: '', quoted: false, expanded: false, glob: false, tilde: false, substitutions: [], processSubstitution: false, plain: true, assignment: false };
}

function emptyCommand(): MutableCommand {
  return { assignments: [], words: [], redirects: [] };
}

function freezeWord(word: MutableWord): ShellWord {
  return {
    text: word.text,
    quoted: word.quoted,
    expanded: word.expanded,
    glob: word.glob,
    tilde: word.tilde,
    substitutions: word.substitutions,
    processSubstitution: word.processSubstitution,
  };
}
