/** Words too common to say anything about what a memory is about. */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again against all also am an and any are as at be because been before being below between both but by can ' +
    'could did do does doing done down during each else even ever every few for from further get gets got had has have having he her ' +
    'here hers him his how i if in into is it its itself just let like made make many may me might more most much must my never no ' +
    'nor not now of off on once one only or other our ours out over own please same shall she should so some such than that the their ' +
    'theirs them then there these they this those through to too under until up upon us use used uses using very via want was we ' +
    'were what when where whether which while who whom why will with within without would yes yet you your yours always'
  ).split(' '),
);

/** The most keywords taken from one text. */
export const MAX_KEYWORDS = 24;

/**
 * The keywords of a text, in order of first appearance: lower-cased words of letters, digits and
 * underscores, at least 2 characters, stop words dropped, no repeats. Pure.
 */
export function extractKeywords(text: string, max = MAX_KEYWORDS): string[] {
  const keywords: string[] = [];
  const seen = new Set<string>();
  for (const match of text.toLowerCase().matchAll(/[\p{L}\p{N}_]+/gu)) {
    const word = match[0].replace(/^_+|_+$/g, '');
    if (word.length < 2 || STOP_WORDS.has(word) || seen.has(word)) continue;
    seen.add(word);
    keywords.push(word);
    if (keywords.length >= max) break;
  }
  return keywords;
}
