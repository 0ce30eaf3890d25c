/** The subset of `Headers` we read; a plain record works through `headersFrom`. */
export interface HeaderReader {
  get(name: string): string | null;
}

export function headersFrom(record: Readonly<Record<string, string>> = {}): HeaderReader {
  return new Headers(record);
}

/**
 * How long the server asked us to wait, in ms: `retry-after-ms`, else `retry-after` as seconds
 * (fractions allowed) or as an HTTP date relative to `now`. Undefined when absent or unreadable.
 */
export function retryAfterMs(headers: HeaderReader, now: number = Date.now()): number | undefined {
  const milliseconds = headers.get('retry-after-ms');
  if (milliseconds !== null && milliseconds.trim() !== '') {
    const value = Number(milliseconds);
    if (Number.isFinite(value) && value >= 0) return Math.round(value);
  }
  const retryAfter = headers.get('retry-after')?.trim();
  if (retryAfter === undefined || retryAfter === '') return undefined;
  const seconds = Number(retryAfter);
  if (Number.isFinite(seconds)) return seconds >= 0 ? Math.round(seconds * 1000) : undefined;
  const date = Date.parse(retryAfter);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** OpenAI puts the wait into the 429 text: "Please try again in 3.89s." / "in 644ms". */
export function retryAfterFromMessage(message: string): number | undefined {
  const match = /try again in (\d+(?:\.\d+)?)\s*(ms|s)\b/i.exec(message);
  if (match === null) return undefined;
  const value = Number(match[1]);
  return Math.round(match[2]?.toLowerCase() === 'ms' ? value : value * 1000);
}
