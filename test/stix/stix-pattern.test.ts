// STIX patterns per indicator type, and string-literal escaping (STIX 2.1 §9).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StixMappingError } from '../../src/stix/stix-mapping-error.js';
import { isPatternedIndicatorType, stixPattern, stixStringLiteral } from '../../src/stix/stix-pattern.js';

const isCode = (code: string) => (error: unknown) => error instanceof StixMappingError && error.code === code;

describe('stixPattern', () => {
  describe('for each supported indicator type', () => {
    const cases: Array<[type: string, value: string, pattern: string]> = [
      ['ip', '198.51.100.7', "[ipv4-addr:value = '198.51.100.7']"],
      ['ip', '203.0.113.0/24', "[ipv4-addr:value = '203.0.113.0/24']"],
      ['ip', '2001:db8::1', "[ipv6-addr:value = '2001:db8::1']"],
      ['ipv4', '192.0.2.1', "[ipv4-addr:value = '192.0.2.1']"],
      ['ipv6', '2001:db8::1', "[ipv6-addr:value = '2001:db8::1']"],
      ['ipv6', '2001:db8::/32', "[ipv6-addr:value = '2001:db8::/32']"],
      ['cidr', '10.0.0.0/8', "[ipv4-addr:value = '10.0.0.0/8']"],
      ['domain', 'evil.example', "[domain-name:value = 'evil.example']"],
      ['hostname', 'c2.evil.example', "[domain-name:value = 'c2.evil.example']"],
      ['url', 'http://evil.example/x', "[url:value = 'http://evil.example/x']"],
      ['uri', 'http://evil.example/y', "[url:value = 'http://evil.example/y']"],
      ['email', 'bad@evil.example', "[email-addr:value = 'bad@evil.example']"],
      ['md5', 'd41d8cd98f00b204e9800998ecf8427e', "[file:hashes.'MD5' = 'd41d8cd98f00b204e9800998ecf8427e']"],
      ['sha1', 'da39a3ee5e6b4b0d3255bfef95601890afd80709', "[file:hashes.'SHA-1' = 'da39a3ee5e6b4b0d3255bfef95601890afd80709']"],
      [
        'sha256',
        'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
        "[file:hashes.'SHA-256' = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855']",
      ],
      ['sha512', 'a'.repeat(128), `[file:hashes.'SHA-512' = '${'a'.repeat(128)}']`],
      ['asn', 'AS13335', '[autonomous-system:number = 13335]'],
      ['asn', '64496', '[autonomous-system:number = 64496]'],
    ];
    for (const [type, value, pattern] of cases) {
      it(`maps ${type} ${value} to ${pattern}`, () => {
        assert.equal(stixPattern(type, value), pattern);
      });
    }
  });

  describe('with a type in another letter case or with spaces', () => {
    it('maps it like the lower-case type', () => {
      assert.equal(stixPattern(' Domain ', 'evil.example'), "[domain-name:value = 'evil.example']");
    });
  });

  describe('with an IPv6 literal stored under type ip', () => {
    it('uses ipv6-addr, since the value decides the family', () => {
      assert.equal(stixPattern('ip', '::1'), "[ipv6-addr:value = '::1']");
    });
  });

  describe('with a single quote in a URL', () => {
    it("escapes it as \\'", () => {
      assert.equal(stixPattern('url', "http://x.example/it's"), "[url:value = 'http://x.example/it\\'s']");
    });
  });

  describe('with a backslash in a URL', () => {
    it('escapes it as \\\\', () => {
      assert.equal(stixPattern('url', 'http://x.example/a\\b'), "[url:value = 'http://x.example/a\\\\b']");
    });
  });

  describe('with a backslash right before a quote', () => {
    it('escapes the backslash first, so the quote stays escaped', () => {
      // Value \' → \\ then \' : four characters that read back as the two of the value.
      assert.equal(stixPattern('url', "http://x.example/\\'"), "[url:value = 'http://x.example/\\\\\\'']");
    });
  });

  describe('with a quote in an e-mail address', () => {
    it('escapes it', () => {
      assert.equal(stixPattern('email', "o'neil@x.example"), "[email-addr:value = 'o\\'neil@x.example']");
    });
  });

  describe('with a type that has no STIX pattern', () => {
    it('throws an unsupported-indicator-type error the caller can catch', () => {
      assert.throws(() => stixPattern('ja3', 'abc'), isCode('unsupported-indicator-type'));
    });
  });

  describe('with an ip value that is not an address', () => {
    it('throws an invalid-indicator-value error', () => {
      for (const value of ['evil.example', '300.1.1.1', '10.0.0.0/33', '2001:db8::/129', '10.0.0.0/8/8', '1.2.3.4/']) {
        assert.throws(() => stixPattern('ip', value), isCode('invalid-indicator-value'), value);
      }
    });
  });

  describe('with a hash of the wrong length or alphabet', () => {
    it('throws an invalid-indicator-value error', () => {
      assert.throws(() => stixPattern('md5', 'abc'), isCode('invalid-indicator-value'));
      assert.throws(() => stixPattern('sha1', 'z'.repeat(40)), isCode('invalid-indicator-value'));
    });
  });

  describe('with an autonomous system number out of range', () => {
    it('throws an invalid-indicator-value error', () => {
      assert.throws(() => stixPattern('asn', 'AS4294967296'), isCode('invalid-indicator-value'));
    });
  });

  describe('with an empty value', () => {
    it('throws an invalid-indicator-value error', () => {
      assert.throws(() => stixPattern('domain', '  '), isCode('invalid-indicator-value'));
    });
  });
});

describe('stixStringLiteral', () => {
  describe('with quotes and backslashes combined', () => {
    it('doubles each backslash and escapes each quote', () => {
      assert.equal(stixStringLiteral("a\\'b'\\\\c"), "'a\\\\\\'b\\'\\\\\\\\c'");
    });
  });

  describe('with other special characters', () => {
    it('leaves them as they are', () => {
      assert.equal(stixStringLiteral('a"b]c\nd'), "'a\"b]c\nd'");
    });
  });
});

describe('isPatternedIndicatorType', () => {
  describe('for a supported and an unsupported type', () => {
    it('tells them apart', () => {
      assert.equal(isPatternedIndicatorType('IP'), true);
      assert.equal(isPatternedIndicatorType('ja3'), false);
    });
  });
});
