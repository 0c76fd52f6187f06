// The export formats, pure: options parsed, values styled, CSV fields quoted (RFC 4180) and kept from formulas (OWASP), rows rendered.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { csvField, ExportOptionError, parseFormat, parseStyle, parseTypes, renderRows, styledValue, type ExportLine } from '../../src/export/export-format.js';

const row = (value: string, type = 'url', threats: string[] = [], stamp_seen: string | null = '2025-05-01 00:00:00'): ExportLine => ({ value, type, risk: 'high', stamp_seen, threats });

describe('parseTypes', () => {
  it('reads a comma-separated list, ignoring case, each type once in the order given', () => {
    assert.deepEqual(parseTypes('url,IP,domain,ip'), ['url', 'ip', 'domain']);
  });
  // Pulls store these under other types (sources/normalize-value.ts); imports under their own name.
  for (const [list, stored] of [
    ['ipv4', ['ipv4', 'ip']],
    ['cidr', ['cidr', 'ip', 'ipv6']],
    ['hostname', ['hostname', 'domain']],
    ['URI', ['uri', 'url']],
    ['ip,ipv4,ipv6,cidr', ['ip', 'ipv4', 'ipv6', 'cidr']],
    ['domain,hostname', ['domain', 'hostname']],
  ] as const) {
    it(`reads ${list} as the stored types ${stored.join(', ')}`, () => assert.deepEqual(parseTypes(list), stored));
  }
  for (const list of ['', 'ip,', 'ip,color', 'ip, domain x']) {
    it(`refuses "${list}", naming the value`, () => {
      assert.throws(() => parseTypes(list), (error: unknown) => error instanceof ExportOptionError && /is not an indicator type/.test(error.message));
    });
  }
});

describe('parseStyle and parseFormat', () => {
  it('take panos, and txt or csv; anything else is refused', () => {
    assert.equal(parseStyle('panos'), 'panos');
    assert.equal(parseFormat('csv'), 'csv');
    assert.throws(() => parseStyle('PANOS'), ExportOptionError);
    assert.throws(() => parseFormat('json'), ExportOptionError);
  });
});

describe('styledValue', () => {
  const cases: [ExportLine, string | undefined, string][] = [
    [row('https://a.example/x?y=1'), 'panos', 'a.example/x?y=1'],
    [row('HTTP://A.example/'), 'panos', 'A.example/'],
    [row('hxxp://a.example/'), 'panos', 'a.example/'],
    [row('a.example/no-scheme'), 'panos', 'a.example/no-scheme'],
    [row('https://a.example/x'), undefined, 'https://a.example/x'],
    [row('mailto://x', 'email'), 'panos', 'mailto://x'],
  ];
  for (const [line, style, expected] of cases) {
    it(`${style ?? 'no style'}: ${line.type} ${line.value} › ${expected}`, () => assert.equal(styledValue(line, style as 'panos' | undefined), expected));
  }
});

describe('csvField', () => {
  const cases: [string, string][] = [
    ['plain', 'plain'],
    ['', ''],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    ['cr\ronly', '"cr\ronly"'],
    [' spaced ', ' spaced '],
  ];
  for (const [text, expected] of cases) it(`${JSON.stringify(text)} › ${JSON.stringify(expected)}`, () => assert.equal(csvField(text), expected));

  describe('a cell a spreadsheet could read as a formula gets a leading \' (OWASP, CSV Injection)', () => {
    const formulas: [string, string][] = [
      ['=HYPERLINK("http://x","y")', `"'=HYPERLINK(""http://x"",""y"")"`],
      ["+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"],
      ['-2+3', "'-2+3"],
      ['@SUM(1+1)', "'@SUM(1+1)"],
      ['\t=1+1', "'\t=1+1"],
      // Quoted for its CR, and prefixed: a spreadsheet that trims the CR still finds no formula.
      ['\r=1+1', `"'\r=1+1"`],
      ['=1,2', `"'=1,2"`],
    ];
    for (const [text, expected] of formulas) it(`${JSON.stringify(text)} › ${JSON.stringify(expected)}`, () => assert.equal(csvField(text), expected));

    const kept = ['a=1', 'x@evil.example', 'a-b', ' =1', '\n=1', "'quoted"];
    for (const text of kept) it(`${JSON.stringify(text)}, whose first character starts no formula, › as before`, () => assert.equal(csvField(text), /\n/.test(text) ? `"${text}"` : text));
  });
});

describe('renderRows', () => {
  const rows = [row('https://a.example/a,b', 'url', ['B "two"', 'A']), row('bad\nvalue', 'domain'), row('198.51.100.1', 'ip', [], null)];
  it('txt: one value per LF-ended line, a value with a line break left out', () => {
    assert.equal(renderRows(rows, { format: 'txt' }), 'https://a.example/a,b\n198.51.100.1\n');
    assert.equal(renderRows(rows, { format: 'txt', style: 'panos' }), 'a.example/a,b\n198.51.100.1\n');
  });
  it('csv: five fields per CRLF-ended record, quoted where needed, threats joined with |', () => {
    assert.equal(
      renderRows(rows, { format: 'csv' }),
      '"https://a.example/a,b",url,high,2025-05-01 00:00:00,"B ""two""|A"\r\n"bad\nvalue",domain,high,2025-05-01 00:00:00,\r\n198.51.100.1,ip,high,,\r\n',
    );
  });
  it('csv: a value or a first threat name that starts a formula gets its \'; txt writes the value as stored', () => {
    const formulas = [row('-x@evil.example', 'email', ['@SUM(1+1)', '=B']), row('x@evil.example', 'email', ['Zeus', '=B'])];
    assert.equal(renderRows(formulas, { format: 'csv' }), "'-x@evil.example,email,high,2025-05-01 00:00:00,'@SUM(1+1)|=B\r\nx@evil.example,email,high,2025-05-01 00:00:00,Zeus|=B\r\n");
    assert.equal(renderRows(formulas, { format: 'txt' }), '-x@evil.example\nx@evil.example\n');
  });
});
