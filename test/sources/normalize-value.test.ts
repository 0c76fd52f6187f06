// Source values normalized and typed (docs/feeds.md, "What a pull does with each row"; docs/sources.md, "Values"), and the export's acceptance of each.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { IndicatorType } from '../../src/indicator-types.js';
import { normalizeValue } from '../../src/sources/normalize-value.js';
import { stixPattern } from '../../src/stix/stix-pattern.js';

const MD5 = 'D41D8CD98F00B204E9800998ECF8427E';
const SHA1 = 'da39a3ee5e6b4b0d3255bfef95601890afd80709';
const SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
const label = (char: string, length: number) => char.repeat(length);
const DOMAIN_253 = `${label('a', 63)}.${label('b', 63)}.${label('c', 63)}.${label('d', 57)}.com`;
const DOMAIN_254 = `${label('a', 63)}.${label('b', 63)}.${label('c', 63)}.${label('d', 58)}.com`;

/** Detected without a type: [raw, type, normalized value]. */
const DETECTED: Array<[raw: string, type: IndicatorType, value: string]> = [
  ['HTTP://ExAmple.COM/Path?Q=1', 'url', 'http://example.com/Path?Q=1'],
  ['https://bücher.example/a%20b#Frag', 'url', 'https://xn--bcher-kva.example/a%20b#Frag'],
  ['http://example.com', 'url', 'http://example.com'],
  ['http://example.com:80/x', 'url', 'http://example.com/x'],
  ['https://User:Pw@Evil.Example:8443/x', 'url', 'https://User:Pw@evil.example:8443/x'],
  ['http://[2001:DB8:0:0::1]:8080/x', 'url', 'http://[2001:db8::1]:8080/x'],
  ['ftp://files.evil.example/payload.exe', 'url', 'ftp://files.evil.example/payload.exe'],
  ['  198.51.100.7\t', 'ip', '198.51.100.7'],
  ['010.001.001.001', 'ip', '10.1.1.1'],
  ['1.2.3.4/24', 'ip', '1.2.3.0/24'],
  ['203.0.113.9/32', 'ip', '203.0.113.9'],
  ['0.0.0.0/0', 'ip', '0.0.0.0/0'],
  ['2001:0DB8:0000:0000:0000:0000:0000:0001', 'ipv6', '2001:db8::1'],
  ['::ffff:192.0.2.1', 'ipv6', '::ffff:192.0.2.1'],
  ['::FFFF:C000:0201', 'ipv6', '::ffff:192.0.2.1'],
  ['2001:db8::ff/32', 'ipv6', '2001:db8::/32'],
  ['2001:db8::1/128', 'ipv6', '2001:db8::1'],
  [MD5, 'md5', MD5.toLowerCase()],
  ['12345678901234567890123456789012', 'md5', '12345678901234567890123456789012'],
  [SHA1.toUpperCase(), 'sha1', SHA1],
  [SHA256, 'sha256', SHA256],
  ['Bad.Actor@Evil.Example', 'email', 'bad.actor@evil.example'],
  ['x@bücher.example.', 'email', 'x@xn--bcher-kva.example'],
  ['Evil.Example.', 'domain', 'evil.example'],
  ['bücher.example', 'domain', 'xn--bcher-kva.example'],
  ['c2-1.evil.example', 'domain', 'c2-1.evil.example'],
  [DOMAIN_253, 'domain', DOMAIN_253],
];

/** RFC 5952 §4 (and §5 for the mapped address): [written, canonical]. */
const RFC_5952: Array<[string, string]> = [
  ['2001:0db8::0001', '2001:db8::1'], // §4.1 leading zeros
  ['2001:db8:0:0:0:0:2:1', '2001:db8::2:1'], // §4.2.1 shortest
  ['2001:db8::0:1', '2001:db8::1'], // §4.2.1 `::` used to its full extent
  ['2001:db8::1:1:1:1:1', '2001:db8:0:1:1:1:1:1'], // §4.2.2 one zero group is not compressed
  ['2001:0:0:1:0:0:0:1', '2001:0:0:1::1'], // §4.2.3 the longest run
  ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'], // §4.2.3 the first of equal runs
  ['2001:DB8::AAAA', '2001:db8::aaaa'], // §4.3 lowercase
  ['0:0:0:0:0:0:0:0', '::'],
  ['0:0:0:0:0:0:0:1', '::1'],
  ['1:0:0:0:0:0:0:0', '1::'],
  ['0:0:0:0:0:ffff:c000:280', '::ffff:192.0.2.128'], // §5
];

/** Rejected without a type: [description, raw]. */
const REJECTED: Array<[string, string]> = [
  ['an empty value', ''],
  ['a value of blanks only', '  \t '],
  ['an IPv4 address with an octet over 255', '1.2.3.256'],
  ['a CIDR prefix over 32', '1.2.3.4/33'],
  ['a CIDR prefix over 128', '2001:db8::/129'],
  ['a CIDR without a prefix', '1.2.3.0/'],
  ['IPv4 shorthand', '127.1'],
  ['an IPv6 address with a non-hex group', '::g'],
  ['an IPv6 address with a zone', 'fe80::1%eth0'],
  ['a URL without a host', 'http://'],
  ['a URL with an empty host', 'http:///path'],
  ['a URL with an unaccepted scheme', 'javascript://alert(1)'],
  ['a defanged URL', 'hxxp://evil.example/x'],
  ['a domain with a blank', 'exa mple.com'],
  ['a domain label starting with a hyphen', '-bad.com'],
  ['a domain label ending with a hyphen', 'bad-.com'],
  ['a domain label of 64 characters', `${label('a', 64)}.com`],
  ['a domain of 254 characters', DOMAIN_254],
  ['a single-label name', 'localhost'],
  ['a domain with an underscore', 'a_b.example'],
  ['a domain with an empty label', 'a..example'],
  ['a hex string of 33 digits', label('a', 33)],
  ['a hex string of 128 digits (sha512 is not detected)', label('a', 128)],
  ['an email without a local part', '@evil.example'],
  ['an email with an invalid domain', 'x@-bad.com'],
  ['an email local part over 64 characters', `${label('x', 65)}@evil.example`],
  // Control characters are refused, not removed: without them the value would be another indicator.
  ['a URL holding ESC, a C0 control', 'http://evil.example/\x1b[31m'],
  ['a URL holding CSI (U+009B), a C1 control', 'http://evil.example/\x9b31m'],
  ['a URL holding DEL', 'http://evil.example/a\x7f'],
  ['an email whose local part holds NEL (U+0085), a C1 control', 'x\x85y@evil.example'],
];

/** With a fixed type: [type, raw, normalized type, value] or [type, raw, null] when rejected. */
const FIXED: Array<[type: IndicatorType, raw: string, ...result: [IndicatorType, string] | [null]]> = [
  ['ip', '2001:db8::1', 'ipv6', '2001:db8::1'],
  ['ip', 'evil.example', null],
  ['ipv4', '192.0.2.1', 'ip', '192.0.2.1'],
  ['ipv4', '2001:db8::1', null],
  ['ipv6', '192.0.2.1', null],
  ['cidr', '10.1.2.3/8', 'ip', '10.0.0.0/8'],
  ['hostname', 'C2.Evil.Example', 'domain', 'c2.evil.example'],
  ['domain', '1.2.3.4', null],
  ['domain', 'http://evil.example/', null],
  ['uri', 'HTTPS://evil.example/x', 'url', 'https://evil.example/x'],
  ['url', 'evil.example/x', null],
  ['md5', SHA1, null],
  ['sha1', SHA1.toUpperCase(), 'sha1', SHA1],
  ['sha512', label('A', 128), 'sha512', label('a', 128)],
  ['asn', 'as013335', 'asn', 'AS13335'],
  ['asn', '4294967296', null],
  ['email', 'evil.example', null],
];

describe('normalizeValue', () => {
  describe('without a type', () => {
    for (const [raw, type, value] of DETECTED) {
      it(`reads ${JSON.stringify(raw)} as ${type} ${value}`, () => {
        assert.deepEqual(normalizeValue(raw), { ok: true, type, value });
      });
    }
  });

  describe('for IPv6 addresses, writes the RFC 5952 form', () => {
    for (const [written, canonical] of RFC_5952) {
      it(`${written} is ${canonical}`, () => {
        assert.deepEqual(normalizeValue(written), { ok: true, type: 'ipv6', value: canonical });
      });
    }
  });

  describe('rejects with a reason', () => {
    for (const [description, raw] of REJECTED) {
      it(description, () => {
        const result = normalizeValue(raw);
        assert.equal(result.ok, false, `accepted ${JSON.stringify(raw)} as ${JSON.stringify(result)}`);
        assert.ok(!result.ok && result.reason.length > 0);
      });
    }
  });

  describe('with a fixed type', () => {
    for (const [type, raw, ...result] of FIXED) {
      const [normalizedType, value] = result;
      const outcome = normalizedType === null ? 'rejects it' : `gives ${normalizedType} ${value}`;
      it(`as ${type}, ${JSON.stringify(raw)} › ${outcome}`, () => {
        const actual = normalizeValue(raw, type);
        if (normalizedType === null) assert.equal(actual.ok, false, JSON.stringify(actual));
        else assert.deepEqual(actual, { ok: true, type: normalizedType, value });
      });
    }
  });

  describe('gives values the STIX export accepts', () => {
    const accepted = [
      ...DETECTED.map(([raw]) => normalizeValue(raw)),
      ...RFC_5952.map(([written]) => normalizeValue(written)),
      ...FIXED.map(([type, raw]) => normalizeValue(raw, type)),
    ].filter((result) => result.ok);
    for (const result of accepted) {
      it(`patterns ${result.type} ${result.value}`, () => {
        assert.match(stixPattern(result.type, result.value), /^\[[a-z0-9-]+:/);
      });
    }
  });

  it('returns a normalized value unchanged when normalized again', () => {
    for (const [raw] of DETECTED) {
      const once = normalizeValue(raw);
      assert.ok(once.ok);
      assert.deepEqual(normalizeValue(once.value), once, raw);
    }
  });
});
