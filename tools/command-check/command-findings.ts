/**
 * `safe`: read-only, runs without asking under `suggest`. `risky`: asks (runs under `auto`).
 * `dangerous`: refused under every policy.
 */
export type CommandClass = 'safe' | 'risky' | 'dangerous';

export interface CommandVerdict {
  readonly class: CommandClass;
  /** Why it is not safe (the reasons of its class), or why it is. */
  readonly reasons: readonly string[];
}

const CLASS_RANK: Readonly<Record<CommandClass, number>> = { safe: 0, risky: 1, dangerous: 2 };

/** The findings of one check: every reason with its class; the worst class wins. */
export class Findings {
  readonly #items: { level: CommandClass; reason: string }[] = [];

  add(level: CommandClass, reason: string): void {
    if (!this.#items.some((item) => item.level === level && item.reason === reason)) this.#items.push({ level, reason });
  }

  verdict(): CommandVerdict {
    const worst = this.#items.reduce<CommandClass>((level, item) => (CLASS_RANK[item.level] > CLASS_RANK[level] ? item.level : level), 'safe');
    if (worst === 'safe') return { class: 'safe', reasons: ['read-only command'] };
    return { class: worst, reasons: this.#items.filter((item) => item.level === worst).map((item) => item.reason) };
  }
}
