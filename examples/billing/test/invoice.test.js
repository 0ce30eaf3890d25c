import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CreditNote } from '../src/models/credit-note.js';
import { DiscountedInvoice } from '../src/models/discounted-invoice.js';
import { Invoice } from '../src/models/invoice.js';
import { StandardInvoice } from '../src/models/standard-invoice.js';

const fields = {
  id: 'INV-1001',
  customer: { name: 'Acme Corp', email: 'billing@acme.test' },
  lines: [
    { description: 'Hosting (June)', quantity: 1, unitCents: 80_000 },
    { description: 'Support hours', quantity: 4, unitCents: 5_000 },
  ],
  dueDate: '2024-07-01',
};

describe('Invoice', () => {
  it('is abstract', () => {
    assert.throws(() => new Invoice(fields), /Invoice is abstract/);
  });

  it('needs at least one line item', () => {
    assert.throws(() => new StandardInvoice({ ...fields, lines: [] }), /INV-1001 has no line items/);
  });

  it('adds up its line items into the subtotal', () => {
    assert.equal(new StandardInvoice(fields).subtotal(), 100_000);
  });

  it('is overdue only after its due date', () => {
    const invoice = new StandardInvoice(fields);
    assert.equal(invoice.isOverdue('2024-07-01'), false);
    assert.equal(invoice.isOverdue('2024-07-02'), true);
  });
});

describe('StandardInvoice', () => {
  it('total() adds the default 8% tax to the subtotal', () => {
    const invoice = new StandardInvoice(fields);
    assert.equal(invoice.tax(), 8_000);
    assert.equal(invoice.total(), 108_000);
  });

  it('total() uses its own tax rate, rounded to the cent', () => {
    const invoice = new StandardInvoice({ ...fields, lines: [{ description: 'Domain', quantity: 1, unitCents: 1_999 }], taxRate: 0.0725 });
    assert.equal(invoice.tax(), 145);
    assert.equal(invoice.total(), 2_144);
  });
});

describe('DiscountedInvoice', () => {
  it('total() takes the discount off the taxed total', () => {
    const invoice = new DiscountedInvoice({ ...fields, discountPercent: 10 });
    assert.equal(invoice.discount(), 10_800);
    assert.equal(invoice.total(), 97_200);
  });

  it('refuses a discount outside 0–100%', () => {
    assert.throws(() => new DiscountedInvoice({ ...fields, discountPercent: 100 }), /discountPercent must be between 0 and 100/);
  });
});

describe('CreditNote', () => {
  it('is not an invoice', () => {
    const note = new CreditNote({ id: 'CN-7', customer: fields.customer, amountCents: 5_000, issuedOn: '2024-06-15' });
    assert.equal(note instanceof Invoice, false);
  });
});
