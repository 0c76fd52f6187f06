// The STIX pattern subset reader: each supported form, the two levels of OR, escapes, every reason a pattern is skipped, and the limits that keep a hostile pattern from overflowing the stack.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readStixPatternValues, type StixPatternValue } from '../../src/stix/index.js';

const read: Array<[string, string, StixPatternValue[]]> = [
  ['an IPv4 address', "[ipv4-addr:value = '192.0.2.10']", [{ type: 'ip', value: '192.0.2.10' }]],
  ['an IPv4 CIDR block (the pull normalizes it)', "[ipv4-addr:value = '198.51.100.0/24']", [{ type: 'ip', value: '198.51.100.0/24' }]],
  ['an IPv6 address', "[ipv6-addr:value = '2001:db8::1']", [{ type: 'ipv6', value: '2001:db8::1' }]],
  ['a domain name', "[domain-name:value = 'c2.example.com']", [{ type: 'domain', value: 'c2.example.com' }]],
  ['a URL', "[url:value = 'https://example.com/login']", [{ type: 'url', value: 'https://example.com/login' }]],
  ['an email address', "[email-addr:value = 'phish@example.org']", [{ type: 'email', value: 'phish@example.org' }]],
  ["file:hashes.'MD5'", "[file:hashes.'MD5' = 'd41d8cd98f00b204e9800998ecf8427e']", [{ type: 'md5', value: 'd41d8cd98f00b204e9800998ecf8427e' }]],
  ['file:hashes.MD5 unquoted', "[file:hashes.MD5 = 'd41d8cd98f00b204e9800998ecf8427e']", [{ type: 'md5', value: 'd41d8cd98f00b204e9800998ecf8427e' }]],
  ["file:hashes.'SHA-1'", "[file:hashes.'SHA-1' = 'da39a3ee5e6b4b0d3255bfef95601890afd80709']", [{ type: 'sha1', value: 'da39a3ee5e6b4b0d3255bfef95601890afd80709' }]],
  ['file:hashes.SHA1 (identifies the algorithm; hash-algorithm-ov is a SHOULD)', "[file:hashes.SHA1 = 'da39a3ee5e6b4b0d3255bfef95601890afd80709']", [{ type: 'sha1', value: 'da39a3ee5e6b4b0d3255bfef95601890afd80709' }]],
  [
    "file:hashes.'SHA-256'",
    "[file:hashes.'SHA-256' = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855']",
    [{ type: 'sha256', value: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855' }],
  ],
  [
    'file:hashes.sha256 in lower case',
    "[file:hashes.sha256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855']",
    [{ type: 'sha256', value: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855' }],
  ],
  ["a quoted first property (ipv4-addr:'value')", "[ipv4-addr:'value' = '192.0.2.11']", [{ type: 'ip', value: '192.0.2.11' }]],
  ['"==" for "="', "[domain-name:value == 'example.net']", [{ type: 'domain', value: 'example.net' }]],
  ['no whitespace at all', "[ipv4-addr:value='192.0.2.12']OR[ipv4-addr:value='192.0.2.13']", [
    { type: 'ip', value: '192.0.2.12' },
    { type: 'ip', value: '192.0.2.13' },
  ]],
  ['whitespace everywhere, tabs and line breaks', "\n [ \t ipv4-addr : value\r\n=\u00a0'192.0.2.14' ] \n", [{ type: 'ip', value: '192.0.2.14' }]],
  ['OR inside one observation expression', "[ipv4-addr:value = '198.51.100.7' OR domain-name:value = 'bad.example.net']", [
    { type: 'ip', value: '198.51.100.7' },
    { type: 'domain', value: 'bad.example.net' },
  ]],
  ['OR between observation expressions', "[ipv4-addr:value = '203.0.113.5'] OR [url:value = 'https://example.com/x']", [
    { type: 'ip', value: '203.0.113.5' },
    { type: 'url', value: 'https://example.com/x' },
  ]],
  ['both ORs mixed, in parentheses at both levels, lower-case keyword', "([ipv4-addr:value = '192.0.2.1' or (domain-name:value = 'a.example.com' OR domain-name:value = 'b.example.com')] OR ([email-addr:value = 'x@example.org']))", [
    { type: 'ip', value: '192.0.2.1' },
    { type: 'domain', value: 'a.example.com' },
    { type: 'domain', value: 'b.example.com' },
    { type: 'email', value: 'x@example.org' },
  ]],
  ['a value listed twice is given once', "[ipv4-addr:value = '192.0.2.20' OR ipv4-addr:value = '192.0.2.20'] OR [ipv4-addr:value = '192.0.2.20']", [{ type: 'ip', value: '192.0.2.20' }]],
  ['an escaped quote', "[url:value = 'http://example.com/it\\'s']", [{ type: 'url', value: "http://example.com/it's" }]],
  ['an escaped backslash', "[url:value = 'http://example.com/a\\\\b']", [{ type: 'url', value: 'http://example.com/a\\b' }]],
  ['an escaped backslash right before the closing quote', "[url:value = 'http://example.com/a\\\\']", [{ type: 'url', value: 'http://example.com/a\\' }]],
  ['an escaped backslash then an escaped quote', "[url:value = 'http://example.com/\\\\\\'x']", [{ type: 'url', value: "http://example.com/\\'x" }]],
  [
    "a URL with ', \\, ] and ' OR ' inside the literal",
    "[url:value = 'http://example.net/p?q=\\'] OR [ipv4-addr:value = \\'192.0.2.99\\'&b=c:\\\\d]e AND f']",
    [{ type: 'url', value: "http://example.net/p?q='] OR [ipv4-addr:value = '192.0.2.99'&b=c:\\d]e AND f" }],
  ],
  ['as our own server writes a URL with a quote and a backslash (docs/stix-mapping.md)', "[url:value = 'https://example.org/a\\'b\\\\c']", [{ type: 'url', value: "https://example.org/a'b\\c" }]],
  ['an empty string (the pull rejects it)', "[domain-name:value = '']", [{ type: 'domain', value: '' }]],
  ['non-ASCII text kept as written', "[domain-name:value = 'bücher.example']", [{ type: 'domain', value: 'bücher.example' }]],
];

const skipped: Array<[string, string, string | RegExp]> = [
  ['AND inside an observation expression', "[ipv4-addr:value = '192.0.2.1' AND domain-name:value = 'example.com']", 'AND'],
  ['AND under an OR', "[ipv4-addr:value = '192.0.2.1' OR (domain-name:value = 'example.com' AND url:value = 'http://example.com/')]", 'AND'],
  ['AND between observation expressions', "[ipv4-addr:value = '192.0.2.1'] AND [domain-name:value = 'example.com']", 'AND between observation expressions'],
  ['FOLLOWEDBY', "[ipv4-addr:value = '192.0.2.1'] FOLLOWEDBY [domain-name:value = 'example.com']", 'FOLLOWEDBY'],
  ['WITHIN', "[ipv4-addr:value = '192.0.2.1'] WITHIN 300 SECONDS", 'qualifier WITHIN'],
  ['START/STOP', "[ipv4-addr:value = '192.0.2.1'] START t'2025-01-01T00:00:00Z' STOP t'2025-02-01T00:00:00Z'", 'qualifier START/STOP'],
  ['REPEATS', "[ipv4-addr:value = '192.0.2.1'] REPEATS 5 TIMES", 'qualifier REPEATS'],
  ['a qualifier on an OR in parentheses', "([ipv4-addr:value = '192.0.2.1'] OR [ipv4-addr:value = '192.0.2.2']) WITHIN 60 SECONDS", 'qualifier WITHIN'],
  ['!=', "[ipv4-addr:value != '192.0.2.1']", 'operator !='],
  ['<> (the same as !=)', "[ipv4-addr:value <> '192.0.2.1']", 'operator !='],
  ['NOT =', "[ipv4-addr:value NOT = '192.0.2.1']", 'NOT'],
  ['LIKE', "[domain-name:value LIKE '%.example.com']", 'operator LIKE'],
  ['MATCHES', "[url:value MATCHES '^https?://example\\\\.com/']", 'operator MATCHES'],
  ['IN', "[ipv4-addr:value IN ('192.0.2.1', '192.0.2.2')]", 'operator IN'],
  ['ISSUBSET', "[ipv4-addr:value ISSUBSET '198.51.100.0/24']", 'operator ISSUBSET'],
  ['EXISTS', '[EXISTS domain-name:value]', 'operator EXISTS'],
  ['>', '[file:size > 1000]', 'operator >'],
  ['another object path', "[process:name = 'evil.exe']", 'object path process:name'],
  ['another property', "[domain-name:resolves_to_refs[0].value = '192.0.2.1']", 'object path domain-name:resolves_to_refs[0].value'],
  ['another hash', "[file:hashes.'SHA-512' = 'ab']", "object path file:hashes.'SHA-512'"],
  ['a file name', "[file:name = 'invoice.pdf.exe']", 'object path file:name'],
  ['an index step', "[ipv4-addr:value[0] = '192.0.2.1']", 'object path ipv4-addr:value[0]'],
  ['a supported comparison ORed with an unsupported one', "[ipv4-addr:value = '192.0.2.1'] OR [process:name = 'evil.exe']", 'object path process:name'],
  ['a number literal', '[ipv4-addr:value = 3232235521]', 'ipv4-addr:value compared with a non-string literal'],
  ['a boolean literal', '[url:value = true]', 'url:value compared with a non-string literal'],
  ['a hex literal', "[file:hashes.MD5 = h'd41d8cd98f00b204e9800998ecf8427e']", 'file:hashes.MD5 compared with a non-string literal'],
  ['an escape other than \\\' and \\\\', "[url:value = 'http://example.com/\\n']", /^malformed: invalid escape "\\n" in a string at offset \d+$/],
  ['a backslash before a letter', "[domain-name:value = 'ex\\ample.com']", /^malformed: invalid escape "\\a"/],
  ['an unterminated string', "[domain-name:value = 'example.com]", /^malformed: unterminated string/],
  ['an unescaped quote inside the literal', "[url:value = 'http://example.com/it's']", /^malformed: /],
  ['a missing closing bracket', "[domain-name:value = 'example.com'", 'malformed: expected "]", found the end at offset 34'],
  ['no brackets', "domain-name:value = 'example.com'", /^malformed: expected "\[" or "\(", found "domain-name"/],
  ['an empty pattern', '', 'malformed: expected "[" or "(", found the end at offset 0'],
  ['empty brackets', '[]', /^malformed: expected an object path/],
  ['a trailing OR', "[domain-name:value = 'example.com'] OR", /^malformed: expected "\[" or "\("/],
  ['text after the pattern', "[domain-name:value = 'example.com'] extra", /^malformed: unexpected "extra"/],
  ['double quotes (not STIX strings)', '[domain-name:value = "example.com"]', /^malformed: unexpected "\\""/],
  ['an unquoted property name with a hyphen', "[file:hashes.SHA-256 = 'e3b0']", /^malformed: property name "SHA-256" has a hyphen and must be quoted/],
  ['a missing operator', "[domain-name:value 'example.com']", /^malformed: expected a comparison operator/],
  ['a WITHIN without SECONDS', "[ipv4-addr:value = '192.0.2.1'] WITHIN 300", /^malformed: expected SECONDS/],
];

describe('readStixPatternValues', () => {
  describe('reads', () => {
    for (const [name, pattern, values] of read) {
      it(name, () => assert.deepEqual(readStixPatternValues(pattern), { ok: true, values }));
    }
  });

  describe('skips, with a reason', () => {
    for (const [name, pattern, reason] of skipped) {
      it(name, () => {
        const result = readStixPatternValues(pattern);
        assert.equal(result.ok, false, JSON.stringify(result));
        if (result.ok) return;
        if (typeof reason === 'string') assert.equal(result.reason, reason);
        else assert.match(result.reason, reason);
      });
    }
  });

  it('reads what docs/stix-mapping.md says our server writes, for any value (backslash doubled, then quote escaped)', () => {
    const values = ["it's", 'a\\b', "\\'", "'\\", "]' OR [x:y = 'z", 'end\\'];
    for (const value of values) {
      const pattern = `[url:value = '${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}']`;
      assert.deepEqual(readStixPatternValues(pattern), { ok: true, values: [{ type: 'url', value }] }, pattern);
    }
  });
});

/** `n` comparisons joined by `joiner`, each on its own address. */
const comparisons = (n: number, joiner: string) => Array.from({ length: n }, (_, i) => `ipv4-addr:value = '10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}'`).join(joiner);
const nested = (depth: number, inner: string) => `${'('.repeat(depth)}${inner}${')'.repeat(depth)}`;
const ONE = "ipv4-addr:value = '192.0.2.1'";

/** The reading, which must be a clean result: a RangeError (the stack overflowing) fails the test as itself. */
function reads(pattern: string): { ok: true; count: number } | { ok: false; reason: string } {
  const result = readStixPatternValues(pattern);
  return result.ok ? { ok: true, count: result.values.length } : result;
}

describe('readStixPatternValues › limits (no pattern may overflow the stack and fail the pull)', () => {
  const tooDeep = { ok: false, reason: 'pattern nested deeper than 100 levels' };

  describe('nesting: parentheses and brackets count as levels, 100 at most', () => {
    it('reads 100 levels: 99 parentheses around an observation', () => assert.deepEqual(reads(nested(99, `[${ONE}]`)), { ok: true, count: 1 }));
    it('skips 101 levels: 100 parentheses around an observation', () => assert.deepEqual(reads(nested(100, `[${ONE}]`)), tooDeep));
    it('skips 2,000 nested parentheses (a 4 KB pattern)', () => assert.deepEqual(reads(nested(2_000, `[${ONE}]`)), tooDeep));
    it('skips 100,000 nested parentheses', () => assert.deepEqual(reads(nested(100_000, `[${ONE}]`)), tooDeep));
    it('skips 100,000 opening parentheses never closed, as too deep rather than malformed', () => assert.deepEqual(reads('('.repeat(100_000)), tooDeep));
    it('skips 2,000 nested parentheses inside one observation expression', () => assert.deepEqual(reads(`[${nested(2_000, ONE)}]`), tooDeep));

    it('skips observation expressions nested 2,000 deep: [a] AND ([b] OR ([c] OR (...)))', () => {
      let pattern = `[${ONE}]`;
      for (let i = 0; i < 2_000; i++) pattern = `[${ONE}] ${i % 2 === 0 ? 'OR' : 'AND'} (${pattern})`;
      assert.deepEqual(reads(pattern), tooDeep);
    });

    it('reads observation expressions nested 50 deep, ORs all the way down', () => {
      let pattern = `[${ONE}]`;
      for (let i = 0; i < 49; i++) pattern = `[domain-name:value = 'd${i}.example.com'] OR (${pattern})`;
      assert.deepEqual(reads(pattern), { ok: true, count: 50 });
    });
  });

  describe('chains: read in a loop, however long, up to 100,000 comparisons', () => {
    it('reads 10,000 ORs inside one observation expression: 10,001 values', () => assert.deepEqual(reads(`[${comparisons(10_001, ' OR ')}]`), { ok: true, count: 10_001 }));
    it('reads 10,000 ORs between observation expressions: 10,001 values', () => assert.deepEqual(reads(`[${comparisons(10_001, '] OR [')}]`), { ok: true, count: 10_001 }));
    it('reads 100,000 comparisons', () => assert.deepEqual(reads(`[${comparisons(100_000, ' OR ')}]`), { ok: true, count: 100_000 }));
    it('skips 100,001 comparisons', () => assert.deepEqual(reads(`[${comparisons(100_001, ' OR ')}]`), { ok: false, reason: 'pattern has more than 100000 comparisons' }));
    it('skips 10,000 ANDs for the AND, not for their number', () => assert.deepEqual(reads(`[${comparisons(10_001, ' AND ')}]`), { ok: false, reason: 'AND' }));
    it('skips 10,000 FOLLOWEDBYs for the FOLLOWEDBY', () => assert.deepEqual(reads(`[${comparisons(10_001, '] FOLLOWEDBY [')}]`), { ok: false, reason: 'FOLLOWEDBY' }));
    it('skips 10,000 qualifiers in a row for the first of them', () => {
      assert.deepEqual(reads(`[${ONE}]${' WITHIN 5 SECONDS'.repeat(10_000)}`), { ok: false, reason: 'qualifier WITHIN' });
    });
    it('checks an IN set of 100,000 literals for form and skips it for the IN', () => {
      assert.deepEqual(reads(`[ipv4-addr:value IN (${Array.from({ length: 100_000 }, (_, i) => `'${i}'`).join(', ')})]`), { ok: false, reason: 'operator IN' });
    });
  });

  it('never quotes more than a few words of the pattern in a reason', () => {
    const result = reads(`[${ONE}] ${'x'.repeat(1_000_000)}`);
    assert.equal(result.ok, false);
    assert.ok(!result.ok && result.reason.length < 100, !result.ok ? result.reason.slice(0, 200) : '');
  });
});

