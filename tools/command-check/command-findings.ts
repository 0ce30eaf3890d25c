/**
 * `safe`: read-only, runs without asking under `suggest`. `risky`: asks (runs under `auto`).
 * `dangerous`: refused under every policy.
 */
export type CommandClass = 'safe' | 'risky' | 'dangerous';

export interface CommandVerdict {
  readonly class: CommandClass;
  /** Why it is not safe (the reasons of its class), or why it is. */
  readonly reasons: readonly string[];
  /** Set when the command reaches a remote (`git push`, `ssh`, `curl`): what it reaches, for an explicit approval. */
  readonly remote?: string;
  /**
   * Set when what the command runs cannot be known from its text: it cannot be parsed, its command
   * name comes from a variable, or a shell reads its script from input or from an expansion. No
   * check can vouch for such a command; without a sandbox around it, it is refused.
   */
  readonly opaque?: readonly string[];
}

const CLASS_RANK: Readonly<Record<CommandClass, number>> = { safe: 0, risky: 1, dangerous: 2 };

/** The findings of one check: every reason with its class; the worst class wins. */
export class Findings {
  readonly #items: { level: CommandClass; reason: string }[] = [];
  #remote: string | undefined;
  readonly #opaque: string[] = [];

  /** What the command runs cannot be known from its text: at least risky, and refused where no sandbox confines it. */
  opaque(reason: string): void {
    this.add('risky', reason);
    if (!this.#opaque.includes(reason)) this.#opaque.push(reason);
  }

  /** The command reaches a remote: at least risky, and always asked explicitly. */
  reachesRemote(reason: string): void {
    this.add('risky', reason);
    this.#remote ??= reason;
  }

  add(level: CommandClass, reason: string): void {
    if (!this.#items.some((item) => item.level === level && item.reason === reason)) this.#items.push({ level, reason });
  }

  verdict(): CommandVerdict {
    const worst = this.#items.reduce<CommandClass>((level, item) => (CLASS_RANK[item.level] > CLASS_RANK[level] ? item.level : level), 'safe');
    if (worst === 'safe') return { class: 'safe', reasons: ['read-only command'] };
    const reasons = this.#items.filter((item) => item.level === worst).map((item) => item.reason);
    return {
      class: worst,
      reasons,
      ...(this.#remote === undefined ? {} : { remote: this.#remote }),
      ...(this.#opaque.length === 0 ? {} : { opaque: [...this.#opaque] }),
    };
  }
}
