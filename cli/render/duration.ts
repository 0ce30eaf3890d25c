/** Milliseconds as "850ms", "12.4s", "3m05s". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1000);
  return `${minutes}m${String(seconds).padStart(2, '0')}s`;
}

export function durationBetween(start: string | null, end: string | null, now: Date = new Date()): number | undefined {
  if (start === null) return undefined;
  return (end === null ? now.getTime() : Date.parse(end)) - Date.parse(start);
}
