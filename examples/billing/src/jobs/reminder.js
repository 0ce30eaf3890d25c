import { Invoice } from '../models/invoice.js';
import { formatCents } from '../money.js';

/**
 * @typedef {object} Reminder  one e-mail of the nightly reminder job
 * @property {string} to
 * @property {string} subject
 * @property {string} body
 */

/**
 * The reminders to send tonight: one per overdue invoice in the ledger, the longest overdue first.
 * The ledger also holds credit notes; only invoices are chased.
 * @param {readonly object[]} ledger
 * @param {string} today  an ISO date, `YYYY-MM-DD`
 * @returns {Reminder[]}
 */
export function overdueReminders(ledger, today) {
  return ledger
    .filter(/** @returns {entry is Invoice} */ (entry) => entry instanceof Invoice && entry.isOverdue(today))
    .sort((left, right) => left.dueDate.localeCompare(right.dueDate) || left.id.localeCompare(right.id))
    .map((invoice) => ({
      to: invoice.customer.email,
      subject: `Invoice ${invoice.id} is overdue`,
      body: `Dear ${invoice.customer.name}, invoice ${invoice.id} for ${formatCents(invoice.total())} was due on ${invoice.dueDate}. Please pay it at your earliest convenience.`,
    }));
}
