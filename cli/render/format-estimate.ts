/** `812`, `4.8K`, `48K`, `1.2M`: token counts as review and status print them. */
export function formatTokens(tokens: number): string {
  const rounded = Math.round(tokens);
  if (rounded < 1_000) return String(rounded);
  if (rounded < 10_000) return `${trimZero((rounded / 1_000).toFixed(1))}K`;
  const thousands = Math.round(rounded / 1_000);
  if (thousands < 1_000) return `${thousands}K`;
  return `${trimZero((rounded / 1_000_000).toFixed(1))}M`;
}

/** `$0`, `$0.004`, `$0.02`, `$12.50`: cents when there are any, one significant digit below. */
export function formatUsd(usd: number): string {
  if (usd === 0) return '$0';
  if (usd < 0.01) return `$${Number(usd.toPrecision(1))}`;
  return `$${usd.toFixed(2)}`;
}

function trimZero(text: string): string {
  return text.endsWith('.0') ? text.slice(0, -2) : text;
}
