import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DiscountedInvoice } from '../src/models/discounted-invoice.js';
import { StandardInvoice } from '../src/models/standard-invoice.js';
import { invoicePdfLines, renderInvoicePdf } from '../src/render/pdf.js';

const fields = {
  id: 'INV-1001',
  customer: { name: 'Acme Corp (EU)', email: 'billing@acme.test' },
  lines: [{ description: 'Hosting (June)', quantity: 2, unitCents: 50_000 }],
  dueDate: '2024-07-01',
};

describe('invoicePdfLines', () => {
  it('lists the line items, the tax and the total', () => {
    assert.deepEqual(invoicePdfLines(new StandardInvoice(fields)), [
      'Invoice INV-1001',
      'Billed to: Acme Corp (EU) <billing@acme.test>',
      'Due: 2024-07-01',
      '',
      'Hosting (June)  2 x $500.00  $1,000.00',
      '',
      'Subtotal  $1,000.00',
      'Tax (8%)  $80.00',
      'Total  $1,080.00',
    ]);
  });

  it('shows the discount of a discounted invoice', () => {
    const lines = invoicePdfLines(new DiscountedInvoice({ ...fields, discountPercent: 10 }));
    assert.deepEqual(lines.slice(-3), ['Tax (8%)  $80.00', 'Discount (10%)  -$108.00', 'Total  $972.00']);
  });
});

describe('renderInvoicePdf', () => {
  it('writes a PDF whose cross-reference table points at its objects', () => {
    const pdf = renderInvoicePdf(new StandardInvoice(fields));
    assert.match(pdf, /^%PDF-1\.4\n/);
    assert.match(pdf, /%%EOF\n$/);
    const startxref = Number(/startxref\n(\d+)\n/.exec(pdf)?.[1]);
    assert.equal(pdf.slice(startxref, startxref + 4), 'xref');
    const offsets = [...pdf.matchAll(/^(\d{10}) 00000 n $/gm)].map((match) => Number(match[1]));
    assert.deepEqual(offsets.map((offset) => pdf.slice(offset, offset + 7)), ['1 0 obj', '2 0 obj', '3 0 obj', '4 0 obj', '5 0 obj']);
  });

  it('escapes parentheses in the text', () => {
    const pdf = renderInvoicePdf(new StandardInvoice(fields));
    assert.ok(pdf.includes('(Billed to: Acme Corp \\(EU\\) <billing@acme.test>) Tj'));
    assert.ok(pdf.includes('(Total  $1,080.00) Tj'));
  });
});
