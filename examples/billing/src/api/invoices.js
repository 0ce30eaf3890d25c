import { DiscountedInvoice } from '../models/discounted-invoice.js';
import { StandardInvoice } from '../models/standard-invoice.js';

/**
 * @typedef {object} InvoiceBody  the body of `POST /invoices`
 * @property {string} id
 * @property {import('../models/invoice.js').Customer} customer
 * @property {import('../models/invoice.js').LineItem[]} lines
 * @property {string} dueDate
 * @property {number} [taxRate]
 * @property {number} [discountPercent]
 */

/**
 * The invoice a `POST /invoices` body describes: discounted when it names a discount.
 * @param {InvoiceBody} body
 */
export function createInvoice(body) {
  const { discountPercent, ...fields } = body;
  return discountPercent === undefined ? new StandardInvoice(fields) : new DiscountedInvoice({ ...fields, discountPercent });
}

/**
 * The JSON of `GET /invoices/:id`. Its field names are a public contract (AGENTS.md).
 * @param {import('../models/invoice.js').Invoice} invoice
 * @param {string} today  an ISO date, `YYYY-MM-DD`
 */
export function invoiceJson(invoice, today) {
  return {
    id: invoice.id,
    customer: invoice.customer.name,
    dueDate: invoice.dueDate,
    subtotalCents: invoice.subtotal(),
    totalCents: invoice.total(),
    overdue: invoice.isOverdue(today),
  };
}

/**
 * The JSON of `GET /customers/:email/balance`: what the customer owes and how much of it is late.
 * @param {readonly import('../models/invoice.js').Invoice[]} invoices  the customer's unpaid invoices
 * @param {string} today  an ISO date, `YYYY-MM-DD`
 */
export function balanceJson(invoices, today) {
  const overdue = invoices.filter((invoice) => invoice.isOverdue(today));
  return {
    openInvoices: invoices.length,
    owedCents: sum(invoices.map((invoice) => invoice.total())),
    overdueCents: sum(overdue.map((invoice) => invoice.total())),
  };
}

/** @param {readonly number[]} amounts */
function sum(amounts) {
  return amounts.reduce((total, amount) => total + amount, 0);
}
