import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { overdueReminders } from '../src/jobs/reminder.js';
import { CreditNote } from '../src/models/credit-note.js';
import { DiscountedInvoice } from '../src/models/discounted-invoice.js';
import { StandardInvoice } from '../src/models/standard-invoice.js';

const customer = { name: 'Initech', email: 'accounts@initech.test' };
const lines = [{ description: 'Consulting', quantity: 10, unitCents: 12_500 }];

describe('overdueReminders', () => {
  it('chases overdue invoices, the longest overdue first', () => {
    const ledger = [
      new StandardInvoice({ id: 'INV-3002', customer, lines, dueDate: '2024-06-15' }),
      new DiscountedInvoice({ id: 'INV-3001', customer, lines, dueDate: '2024-06-01', discountPercent: 20 }),
      new StandardInvoice({ id: 'INV-3003', customer, lines, dueDate: '2024-07-15' }),
    ];
    assert.deepEqual(overdueReminders(ledger, '2024-07-01'), [
      {
        to: 'accounts@initech.test',
        subject: 'Invoice INV-3001 is overdue',
        body: 'Dear Initech, invoice INV-3001 for $1,080.00 was due on 2024-06-01. Please pay it at your earliest convenience.',
      },
      {
        to: 'accounts@initech.test',
        subject: 'Invoice INV-3002 is overdue',
        body: 'Dear Initech, invoice INV-3002 for $1,350.00 was due on 2024-06-15. Please pay it at your earliest convenience.',
      },
    ]);
  });

  it('never chases a credit note', () => {
    const ledger = [new CreditNote({ id: 'CN-1', customer, amountCents: 5_000, issuedOn: '2024-01-01' })];
    assert.deepEqual(overdueReminders(ledger, '2024-07-01'), []);
  });
});
