import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findReferences, findReferencesInText } from '../../../planners/index.js';
import { copyFixtureRepo, writeFiles } from '../fixture-repo.js';

describe('findReferencesInText', () => {
  it.each([
    ['total = invoice.total()', 'total', [1]],
    ['subtotal totals total_ $total', 'total', []],
    ['first\nInvoice here\n\nInvoice again', 'Invoice', [2, 4]],
    ['a.b.c', 'a.b', [1]],
    ['émile total', 'total', [1]],
    ['', 'x', []],
  ])('%j finds %s on lines %j', (text, symbol, lines) => {
    expect(findReferencesInText('f', text, symbol).map((reference) => reference.line)).toEqual(lines);
  });

  it('gives the column and the trimmed line', () => {
    expect(findReferencesInText('tools/check.py', '    return invoice.total() >= 0', 'total')).toEqual([
      { file: 'tools/check.py', line: 1, column: 20, text: 'return invoice.total() >= 0' },
    ]);
  });
});

describe('findReferences', () => {
  let root: string;
  let cleanup: () => void;
  beforeAll(() => {
    ({ root, cleanup } = copyFixtureRepo('billing'));
    writeFiles(root, { 'assets/logo.bin': 'total\u0000binary' });
  });
  afterAll(() => cleanup());

  it('greps every text file git would see, other languages included, skipping binaries and ignored files', async () => {
    const references = await findReferences(root, 'total');
    expect([...new Set(references.map((reference) => reference.file))]).toEqual([
      'src/api/invoices.ts',
      'src/jobs/reminder.ts',
      'src/models/invoice.ts',
      'src/render/pdf.ts',
      'tools/check.py',
    ]);
  });

  it('searches only the given files', async () => {
    expect(await findReferences(root, 'Invoice', { files: ['tools/check.py'] })).toEqual([
      { file: 'tools/check.py', line: 1, column: 22, text: '"""Checks that every Invoice has a total."""' },
    ]);
  });
});
