import { describe, expect, it } from 'vitest';
import { growthMargin, shouldCompact } from '../../../engine/compaction/compaction-policy.js';
import { compactionThreshold, compactionThresholds } from '../../../engine/compaction/compaction-threshold.js';

describe('compactionThreshold', () => {
  it.each([
    { window: 8_000, threshold: 5_000, soft: 3_500 },
    { window: 32_000, threshold: 20_000, soft: 14_000 },
    { window: 128_000, threshold: 95_000, soft: 66_500 },
    { window: 200_000, threshold: 167_000, soft: 116_900 },
    { window: 1_000_000, threshold: 967_000, soft: 676_900 },
  ])('a $window-token window compacts at $threshold', ({ window, threshold, soft }) => {
    expect(compactionThreshold(window)).toBe(threshold);
    expect(compactionThresholds(window)).toEqual({ window, threshold, softWatermark: soft });
  });

  it('takes configured reserves and watermark', () => {
    expect(compactionThreshold(200_000, { summaryReserveTokens: 10_000, followUpReserveTokens: 5_000 })).toBe(185_000);
    expect(compactionThresholds(200_000, { softWatermarkRatio: 0.5 }).softWatermark).toBe(83_500);
  });

  it('refuses nonsense', () => {
    expect(() => compactionThreshold(0)).toThrow(RangeError);
    expect(() => compactionThresholds(1000, { softWatermarkRatio: 1.5 })).toThrow(RangeError);
  });
});

describe('shouldCompact', () => {
  const base = { threshold: 100_000, softWatermark: 70_000, growthMarginTokens: 5_000 };
  it.each([
    { name: 'below the soft watermark', tokens: 50_000, expected: 'none' },
    { name: 'at the soft watermark', tokens: 70_000, expected: 'background' },
    { name: 'a candidate already pending', tokens: 80_000, candidatePending: true, expected: 'none' },
    { name: 'at the threshold', tokens: 100_000, expected: 'now' },
    { name: 'at the threshold with a pending candidate', tokens: 100_000, candidatePending: true, expected: 'now' },
    { name: 'over the threshold right after a compaction that left it there', tokens: 103_000, lastCompactionTokens: 101_000, expected: 'none' },
    { name: 'over the threshold after real growth', tokens: 106_000, lastCompactionTokens: 101_000, expected: 'now' },
    { name: 'between the marks right after a compaction', tokens: 72_000, lastCompactionTokens: 70_000, expected: 'none' },
    { name: 'a context-overflow error', tokens: 10_000, lastCompactionTokens: 9_000, contextOverflow: true, expected: 'now' },
  ])('$name → $expected', ({ expected, ...pressure }) => {
    expect(shouldCompact({ ...base, ...pressure })).toBe(expected);
  });

  it('without a soft watermark there is no background work', () => {
    expect(shouldCompact({ tokens: 90_000, threshold: 100_000 })).toBe('none');
  });

  it('defaults the growth margin to 5 % of the threshold, at least 1K', () => {
    expect(growthMargin(167_000)).toBe(8_350);
    expect(growthMargin(5_000)).toBe(1_000);
  });
});
