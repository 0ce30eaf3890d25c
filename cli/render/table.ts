/** Left-aligned text columns; the last column is not padded. */
export function renderTable(rows: readonly (readonly string[])[], options: { gap?: number; rightAlign?: readonly number[] } = {}): string {
  if (rows.length === 0) return '';
  const gap = ' '.repeat(options.gap ?? 2);
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, index) => (widths[index] = Math.max(widths[index] ?? 0, displayWidth(cell))));
  const right = new Set(options.rightAlign ?? []);
  return rows
    .map((row) =>
      row
        .map((cell, index) => {
          if (index === row.length - 1 && !right.has(index)) return cell;
          const padding = ' '.repeat((widths[index] ?? 0) - displayWidth(cell));
          return right.has(index) ? padding + cell : cell + padding;
        })
        .join(gap)
        .trimEnd(),
    )
    .join('\n');
}

function displayWidth(text: string): number {
  return [...text].length;
}
