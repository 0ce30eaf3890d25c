/** Small number and text formats for the screen (the CLI has its own; dashboard/ imports only engine/). */

export function formatTokens(count: number): string {
  if (count < 1000) return String(Math.round(count));
  if (count < 10_000) return `${(count / 1000).toFixed(1)}K`;
  if (count < 1_000_000) return `${Math.round(count / 1000)}K`;
  return `${(count / 1_000_000).toFixed(1)}M`;
}

export function formatUsd(amount: number): string {
  if (amount === 0) return '$0';
  if (amount < 0.01) return `$${amount.toFixed(4)}`;
  return `$${amount.toFixed(2)}`;
}

/** `0:07`, `3:05`, `1:02:09`. */
export function formatClock(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${seconds}` : `${minutes}:${seconds}`;
}

/** Cuts to `width` visible characters, with `…` when something was cut. */
export function fit(text: string, width: number): string {
  if (width <= 0) return '';
  const chars = [...text.replace(/[\r\n\t]+/g, ' ')];
  return chars.length <= width ? chars.join('') : `${chars.slice(0, Math.max(0, width - 1)).join('')}…`;
}

/** Pads or cuts to exactly `width` visible characters. */
export function cell(text: string, width: number): string {
  const fitted = fit(text, width);
  return fitted + ' '.repeat(Math.max(0, width - [...fitted].length));
}

/** A bar of `width` cells, `share` (0–1) of them full. */
export function bar(share: number, width: number): string {
  const full = Math.round(Math.min(1, Math.max(0, share)) * width);
  return '█'.repeat(full) + '░'.repeat(Math.max(0, width - full));
}
