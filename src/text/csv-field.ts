// One CSV cell made safe to open in a spreadsheet: the exports, explore's CSV and the console's all write cells this way.

const NEEDS_QUOTES = /[",\r\n]/;
/**
 * What a spreadsheet may take for the start of a formula (OWASP, "CSV Injection"): `=`, `+`, `-`,
 * `@`, and a tab or CR, which a spreadsheet may trim off, leaving whatever follows them first.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * A CSV field: a cell that could start a formula gets a leading `'` (OWASP's rule; feeds name
 * threats `=HYPERLINK(...)`), then it is quoted when it holds a comma, a quote or a line break,
 * quotes doubled (RFC 4180 section 2).
 */
export function csvField(text: string): string {
  const cell = FORMULA_START.test(text) ? `'${text}` : text;
  return NEEDS_QUOTES.test(cell) ? `"${cell.replace(/"/g, '""')}"` : cell;
}
