import { DiscountedInvoice } from '../models/discounted-invoice.js';
import { StandardInvoice } from '../models/standard-invoice.js';
import { formatCents } from '../money.js';

/** US Letter, in points. */
const PAGE_WIDTH = 612;
const PAGE_HEIGHT = 792;
const MARGIN = 72;
const FONT_SIZE = 11;
const LINE_HEIGHT = 16;

/**
 * What the invoice's page says, line by line.
 * @param {import('../models/invoice.js').Invoice} invoice
 * @returns {string[]}
 */
export function invoicePdfLines(invoice) {
  const lines = [
    `Invoice ${invoice.id}`,
    `Billed to: ${invoice.customer.name} <${invoice.customer.email}>`,
    `Due: ${invoice.dueDate}`,
    '',
    ...invoice.lines.map((line) => `${line.description}  ${line.quantity} x ${formatCents(line.unitCents)}  ${formatCents(line.quantity * line.unitCents)}`),
    '',
    `Subtotal  ${formatCents(invoice.subtotal())}`,
  ];
  if (invoice instanceof StandardInvoice) lines.push(`Tax (${Math.round(invoice.taxRate * 100)}%)  ${formatCents(invoice.tax())}`);
  if (invoice instanceof DiscountedInvoice) lines.push(`Discount (${invoice.discountPercent}%)  ${formatCents(-invoice.discount())}`);
  lines.push(`Total  ${formatCents(invoice.total())}`);
  return lines;
}

/**
 * The invoice as a one-page PDF document (PDF 1.4, Helvetica, no dependencies), one byte per
 * character: write it with the `latin1` encoding.
 * @param {import('../models/invoice.js').Invoice} invoice
 * @returns {string}
 */
export function renderInvoicePdf(invoice) {
  const text = invoicePdfLines(invoice)
    .map((line, index) => `BT /F1 ${FONT_SIZE} Tf ${MARGIN} ${PAGE_HEIGHT - MARGIN - index * LINE_HEIGHT} Td (${escapePdfText(line)}) Tj ET`)
    .join('\n');
  return pdfDocument([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${PAGE_WIDTH} ${PAGE_HEIGHT}] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>`,
    `<< /Length ${text.length} >>\nstream\n${text}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ]);
}

/**
 * A PDF file from its objects, numbered from 1, with the cross-reference table readers need.
 * @param {readonly string[]} objects
 */
function pdfDocument(objects) {
  let body = '%PDF-1.4\n';
  const offsets = objects.map((object, index) => {
    const offset = body.length;
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
    return offset;
  });
  const xref = body.length;
  const entries = offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('');
  return `${body}xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${entries}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
}

/**
 * Backslashes and parentheses are escaped inside a PDF string.
 * @param {string} text
 */
function escapePdfText(text) {
  return text.replace(/[\\()]/g, (char) => `\\${char}`);
}
