import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { balanceJson, createInvoice, invoiceJson } from '../src/api/invoices.js';
import { DiscountedInvoice } from '../src/models/discounted-invoice.js';
import { StandardInvoice } from '../src/models/standard-invoice.js';

const body = {
  id: 'INV-2001',
  customer: { name: 'Globex', email: 'ap@globex.test' },
  lines: [{ description: 'Licence', quantity: 3, unitCents: 10_000 }],
  dueDate: '2024-05-31',
};

describe('createInvoice', () => {
  it('makes a standard invoice from a body without a discount', () => {
    const invoice = createInvoice(body);
    assert.ok(invoice instanceof StandardInvoice && !(invoice instanceof DiscountedInvoice));
  });

  it('makes a discounted invoice when the body names a discount', () => {
    const invoice = createInvoice({ ...body, discountPercent: 5 });
    assert.ok(invoice instanceof DiscountedInvoice);
    assert.equal(invoiceJson(invoice, '2024-06-01').totalCents, 30_780);
  });
});

describe('invoiceJson', () => {
  it('keeps the field names of the public API', () => {
    const invoice = createInvoice(body);
    assert.deepEqual(invoiceJson(invoice, '2024-06-01'), {
      id: 'INV-2001',
      customer: 'Globex',
      dueDate: '2024-05-31',
      subtotalCents: 30_000,
      totalCents: 32_400,
      overdue: true,
    });
    assert.equal(invoiceJson(invoice, '2024-06-01').totalCents, invoice.total());
  });
});

describe('balanceJson', () => {
  it('adds up what is owed and what is late', () => {
    const late = createInvoice(body);
    const current = createInvoice({ ...body, id: 'INV-2002', dueDate: '2024-06-30', discountPercent: 50 });
    assert.deepEqual(balanceJson([late, current], '2024-06-01'), { openInvoices: 2, owedCents: 32_400 + 16_200, overdueCents: 32_400 });
  });

  it('owes nothing without invoices', () => {
    assert.deepEqual(balanceJson([], '2024-06-01'), { openInvoices: 0, owedCents: 0, overdueCents: 0 });
  });
});
