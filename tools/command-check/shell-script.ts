/**
 * A POSIX/bash command line as the command checker sees it: pipelines of simple commands with
 * their words, variable assignments and redirections, every command substitution found anywhere
 * (words, redirection targets, here-documents, `${…}`), and the constructs the checker does not
 * follow (control structures, subshells, functions).
 */

export interface ShellWord {
  /** The word after quote removal; expansions are kept as written (`$HOME`, `$(pwd)`). */
  readonly text: string;
  /** Some part of it was quoted or escaped. */
  readonly quoted: boolean;
  /** It holds a parameter expansion, command or process substitution, or arithmetic: its value is unknown before it runs. */
  readonly expanded: boolean;
  /** It holds an unquoted glob or brace pattern (`*`, `?`, `[`, `{a,b}`). */
  readonly glob: boolean;
  /** It starts with an unquoted `~`. */
  readonly tilde: boolean;
  /** Scripts of the command and process substitutions inside it. */
  readonly substitutions: readonly string[];
  /** A `<(…)` or `>(…)` process substitution. */
  readonly processSubstitution: boolean;
}

export interface ShellRedirect {
  /** `<`, `>`, `>>`, `>|`, `<>`, `<<`, `<<-`, `<<<`, `>&`, `<&`, `&>`, `&>>`. */
  readonly operator: string;
  readonly fd?: number;
  readonly target: ShellWord;
}

export interface ShellCommand {
  /** `NAME=value` words before the command name. */
  readonly assignments: readonly ShellWord[];
  readonly words: readonly ShellWord[];
  readonly redirects: readonly ShellRedirect[];
}

/** Commands joined by `|` (or `|&`): each one's output feeds the next. */
export type ShellPipeline = readonly ShellCommand[];

export interface ShellScript {
  /** In order; `;`, `&&`, `||`, `&` and newlines separate them. */
  readonly pipelines: readonly ShellPipeline[];
  /** Scripts of every command and process substitution, at any depth of quoting. */
  readonly substitutions: readonly string[];
  /** Syntax the checker does not follow: `if`, `for`, subshells, functions, arithmetic. */
  readonly constructs: readonly string[];
  /** Some pipeline runs in the background (`&`). */
  readonly background: boolean;
  /** Why the text could not be fully parsed; empty when it could. */
  readonly problems: readonly string[];
}
