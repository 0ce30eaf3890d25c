import { posix } from 'node:path';
import picomatch from 'picomatch';

const MATCH_OPTIONS = { dot: true, nocase: true } as const;

/**
 * Whether two write patterns (workspace-relative paths or globs) may name a common file.
 * Conservative: when unsure it answers true, which only serializes two nodes. Case is ignored
 * (case-insensitive file systems), dotfiles count, and a path ending in `/` covers its folder.
 */
export function writePatternsMayOverlap(left: string, right: string): boolean {
  const a = normalizePattern(left);
  const b = normalizePattern(right);
  if (a.startsWith('!') || b.startsWith('!')) return true; // a negation covers nearly everything
  const aIsGlob = picomatch.scan(a).isGlob;
  const bIsGlob = picomatch.scan(b).isGlob;
  if (!aIsGlob && !bIsGlob) return a === b;
  if (!aIsGlob) return picomatch.isMatch(a, b, MATCH_OPTIONS);
  if (!bIsGlob) return picomatch.isMatch(b, a, MATCH_OPTIONS);
  if (/[{(]/.test(a) || /[{(]/.test(b)) return basesRelated(a, b); // braces and extglobs may span folders
  return segmentsMayOverlap(a.split('/'), b.split('/'));
}

function normalizePattern(pattern: string): string {
  let path = posix.normalize(pattern.replaceAll('\\', '/')).toLowerCase();
  if (path.startsWith('./')) path = path.slice(2);
  if (path.endsWith('/')) path = `${path}**`;
  return path;
}

/** Every match of a glob lies under its static base, so disjoint bases mean disjoint matches. */
function basesRelated(a: string, b: string): boolean {
  const baseA = picomatch.scan(a).base.split('/').filter(Boolean);
  const baseB = picomatch.scan(b).base.split('/').filter(Boolean);
  const shorter = Math.min(baseA.length, baseB.length);
  for (let i = 0; i < shorter; i += 1) if (baseA[i] !== baseB[i]) return false;
  return true;
}

/** Walks both segment lists; `**` matches any number of segments on either side. */
function segmentsMayOverlap(a: readonly string[], b: readonly string[]): boolean {
  const memo = new Map<number, boolean>();
  const visit = (i: number, j: number): boolean => {
    const key = i * (b.length + 1) + j;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let result: boolean;
    if (i === a.length && j === b.length) result = true;
    else if (a[i] === '**') result = visit(i + 1, j) || (j < b.length && visit(i, j + 1));
    else if (b[j] === '**') result = visit(i, j + 1) || (i < a.length && visit(i + 1, j));
    else if (i === a.length || j === b.length) result = false;
    else result = segmentMayOverlap(a[i]!, b[j]!) && visit(i + 1, j + 1);
    memo.set(key, result);
    return result;
  };
  return visit(0, 0);
}

function segmentMayOverlap(a: string, b: string): boolean {
  const aIsGlob = picomatch.scan(a).isGlob;
  const bIsGlob = picomatch.scan(b).isGlob;
  if (!aIsGlob && !bIsGlob) return a === b;
  if (!aIsGlob) return picomatch.isMatch(a, b, MATCH_OPTIONS);
  if (!bIsGlob) return picomatch.isMatch(b, a, MATCH_OPTIONS);
  // A common name starts with both literal prefixes and ends with both literal suffixes.
  const [prefixA, suffixA] = literalEnds(a);
  const [prefixB, suffixB] = literalEnds(b);
  const prefixesAgree = prefixA.startsWith(prefixB) || prefixB.startsWith(prefixA);
  const suffixesAgree = suffixA.endsWith(suffixB) || suffixB.endsWith(suffixA);
  return prefixesAgree && suffixesAgree;
}

function literalEnds(segment: string): [prefix: string, suffix: string] {
  const first = segment.search(/[*?[]/);
  const last = Math.max(segment.lastIndexOf('*'), segment.lastIndexOf('?'), segment.lastIndexOf(']'));
  return [first === -1 ? segment : segment.slice(0, first), last === -1 ? segment : segment.slice(last + 1)];
}

/**
 * Per-file write locks. A node takes the locks for all its `writes` at once or none of them
 * (no hold-and-wait, hence no deadlock); two holders never have overlapping patterns.
 * Pattern pairs are compared once and cached.
 */
export class WriteLocks {
  readonly #holders = new Map<string, readonly string[]>();
  readonly #overlaps = new Map<string, boolean>();

  /** Takes every lock `writes` needs, or none. A node with no writes always succeeds. */
  tryAcquire(holder: string, writes: readonly string[]): boolean {
    if (writes.length === 0) return true;
    if (this.conflictsWith(writes, holder) !== undefined) return false;
    this.#holders.set(holder, writes);
    return true;
  }

  release(holder: string): boolean {
    return this.#holders.delete(holder);
  }

  /** The holder (other than `asking`) whose locks block `writes`, if any. */
  conflictsWith(writes: readonly string[], asking?: string): string | undefined {
    for (const [holder, held] of this.#holders) {
      if (holder === asking) continue;
      for (const pattern of writes) for (const other of held) if (this.#overlap(pattern, other)) return holder;
    }
    return undefined;
  }

  get size(): number {
    return this.#holders.size;
  }

  #overlap(a: string, b: string): boolean {
    const key = a < b ? `${a}\0${b}` : `${b}\0${a}`;
    let result = this.#overlaps.get(key);
    if (result === undefined) {
      result = writePatternsMayOverlap(a, b);
      this.#overlaps.set(key, result);
    }
    return result;
  }
}
