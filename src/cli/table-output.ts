// Tables the commands print: tab-separated for scripts, aligned columns for a person at a terminal.

/**
 * One field: a missing value is `-`, and tabs, line breaks and other control characters (a feed
 * name or an upstream's error could hold them) become a space, so a row stays one line of fields.
 */
export function cell(value: string | number | null | undefined): string {
  return value === null || value === undefined || value === '' ? '-' : String(value).replace(/[\x00-\x1f\x7f-\x9f]+/g, ' ');
}

/**
 * The header and rows as lines: separated by tabs, or, when `aligned`, each column padded to its
 * widest cell with two spaces between columns (the last column unpadded, so no line ends in blanks).
 */
export function tableLines(header: readonly string[], rows: readonly (readonly (string | number | null | undefined)[])[], aligned: boolean): string[] {
  const cells = [header.map(cell), ...rows.map((row) => row.map(cell))];
  if (!aligned) return cells.map((row) => row.join('\t'));
  const widths = header.map((_, i) => Math.max(...cells.map((row) => row[i]?.length ?? 0)));
  return cells.map((row) => row.map((text, i) => (i === row.length - 1 ? text : text.padEnd(widths[i] ?? 0))).join('  '));
}
