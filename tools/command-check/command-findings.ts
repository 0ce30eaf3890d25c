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
}

const CLASS_RANK: Readonly<Record<CommandClass, number>> = { safe: 0, risky: 1, dangerous: 2 };

/** The findings of one check: every reason with its class; the worst class wins. */
export class Findings {
  readonly #items: { level: CommandClass; reason: string }[] = [];
  #remote: string | undefined;

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
    return this.#remote === undefined ? { class: worst, reasons } : { class: worst, reasons, remote: this.#remote };
  }
}
