// The allowlist: which normalized values a source pull never stores (docs/feeds.md, "What a pull does with each row").

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from '../../src/errors.js';
import type { IndicatorType } from '../../src/indicator-types.js';
import { createAllowlist, DEFAULT_ALLOWLIST } from '../../src/sources/allowlist.js';

type Case = [value: string, type: IndicatorType, allowed: boolean, why: string];

const DEFAULTS: Case[] = [
  ['10.1.2.3', 'ip', true, 'private (10/8)'],
  ['172.31.255.255', 'ip', true, 'private (172.16/12, its last address)'],
  ['172.32.0.1', 'ip', false, 'just outside 172.16/12'],
  ['192.168.0.0/24', 'ip', true, 'a block inside 192.168/16'],
  ['192.168.0.0/15', 'ip', true, 'a block that holds 192.168/16 (it would block private networks)'],
  ['192.170.0.0/15', 'ip', false, 'a block beside 192.168/16, overlapping no allowlisted range'],
  ['fd00::1', 'ipv6', true, 'unique local (fc00::/7)'],
  ['127.0.0.1', 'ip', true, 'loopback'],
  ['127.255.0.9', 'ip', true, 'loopback (all of 127/8)'],
  ['::1', 'ipv6', true, 'IPv6 loopback'],
  ['169.254.169.254', 'ip', true, 'link-local'],
  ['fe80::1', 'ipv6', true, 'IPv6 link-local'],
  ['239.255.255.250', 'ip', true, 'multicast'],
  ['ff02::1', 'ipv6', true, 'IPv6 multicast'],
  ['0.0.0.0', 'ip', true, 'unspecified'],
  ['0.1.2.3', 'ip', true, '"this network" (0/8)'],
  ['::', 'ipv6', true, 'IPv6 unspecified'],
  ['::ffff:10.0.0.1', 'ipv6', true, 'an IPv4-mapped private address'],
  ['::ffff:198.51.100.7', 'ipv6', false, 'an IPv4-mapped public address'],
  ['198.51.100.7', 'ip', false, 'a public address'],
  ['2001:db8::1', 'ipv6', false, 'a public IPv6 address'],
  ['0.0.0.0/0', 'ip', true, 'a block holding allowlisted ranges (every address)'],
  ['localhost.localdomain', 'domain', false, 'a name not under localhost'],
  ['a.localhost', 'domain', true, 'a name under localhost (RFC 6761 §6.3)'],
  ['http://127.0.0.1:8080/x', 'url', true, 'a URL on loopback'],
  ['http://[::1]/x', 'url', true, 'a URL on IPv6 loopback'],
  ['http://localhost/x', 'url', true, 'a URL on localhost'],
  ['http://198.51.100.7/x', 'url', false, 'a URL on a public address'],
  ['root@localhost', 'email', true, 'an email at localhost'],
  ['d41d8cd98f00b204e9800998ecf8427e', 'md5', false, 'a hash'],
];
const CONFIGURED = [
  'example.com',
  '.corp.example',
  '203.0.113.0/24',
  '2001:db8:1::/48',
  '198.51.100.7',
  'http://evil.example/known-good',
  'soc@partner.example',
  'D41D8CD98F00B204E9800998ECF8427E',
  'intranet',
];

const CONFIGURED_CASES: Case[] = [
  ['example.com', 'domain', true, 'the suffix itself'],
  ['a.b.example.com', 'domain', true, 'a name under the suffix'],
  ['badexample.com', 'domain', false, 'a name ending in the suffix but not at a label boundary'],
  ['www.corp.example', 'domain', true, 'a name under a suffix written with a leading dot'],
  ['corp.example', 'domain', true, 'the suffix written with a leading dot, itself'],
  ['https://shop.example.com/cart', 'url', true, 'a URL whose host is under the suffix'],
  ['x@mail.example.com', 'email', true, 'an email whose domain is under the suffix'],
  ['203.0.113.77', 'ip', true, 'an address in the range'],
  ['203.0.113.128/25', 'ip', true, 'a block in the range'],
  ['203.0.112.0/23', 'ip', true, 'a block holding the range (overlap counts)'],
  ['2001:db8:1:ff::1', 'ipv6', true, 'an IPv6 address in the range'],
  ['2001:db8:2::1', 'ipv6', false, 'an IPv6 address outside the range'],
  ['198.51.100.7', 'ip', true, 'an exact address'],
  ['198.51.100.8', 'ip', false, 'the next address'],
  ['http://evil.example/known-good', 'url', true, 'an exact URL'],
  ['http://evil.example/other', 'url', false, 'another URL on the same host'],
  ['soc@partner.example', 'email', true, 'an exact email'],
  ['d41d8cd98f00b204e9800998ecf8427e', 'md5', true, 'an exact hash, normalized'],
  ['intranet', 'hostname', true, 'a single-label suffix'],
  ['wiki.intranet', 'domain', true, 'a name under a single-label suffix'],
  ['10.0.0.1', 'ip', false, 'a private address, since a configured list replaces the defaults'],
  ['localhost', 'domain', false, 'localhost, since a configured list replaces the defaults'],
];

function runCases(entries: string[] | undefined, cases: Case[]): void {
  const allowlist = createAllowlist(entries);
  for (const [value, type, allowed, why] of cases) {
    it(`${allowed ? 'allowlists' : 'does not allowlist'} ${type} ${value}: ${why}`, () => {
      assert.equal(allowlist.allows(value, type), allowed);
    });
  }
}

describe('createAllowlist', () => {
  describe('without config entries › uses the defaults', () => runCases(undefined, DEFAULTS));

  describe('with config entries › uses exactly those', () => runCases(CONFIGURED, CONFIGURED_CASES));

  describe('with an empty list', () => {
    it('allowlists nothing, not even the defaults', () => {
      const allowlist = createAllowlist([]);
      assert.equal(allowlist.allows('127.0.0.1', 'ip'), false);
      assert.equal(allowlist.allows('localhost', 'domain'), false);
    });
  });

  describe('with a bad entry', () => {
    for (const entry of ['1.2.3.4/33', 'exa mple.com', '-bad.com', 'mailto://x']) {
      it(`throws a ConfigError naming ${JSON.stringify(entry)}`, () => {
        assert.throws(
          () => createAllowlist([entry]),
          (error: unknown) => error instanceof ConfigError && error.message.includes(`"${entry}"`),
        );
      });
    }
  });

  describe('entryFor', () => {
    const allowlist = createAllowlist(CONFIGURED);
    const entries: [value: string, type: IndicatorType, entry: string | undefined, why: string][] = [
      ['a.b.example.com', 'domain', 'example.com', 'a name under a suffix'],
      ['www.corp.example', 'domain', '.corp.example', 'a suffix, as written with its leading dot'],
      ['https://shop.example.com/cart', 'url', 'example.com', 'a URL by its host'],
      ['x@mail.example.com', 'email', 'example.com', 'an email by its domain'],
      ['203.0.112.0/23', 'ip', '203.0.113.0/24', 'a block overlapping a range'],
      ['2001:db8:1:ff::1', 'ipv6', '2001:db8:1::/48', 'an IPv6 address in a range'],
      ['198.51.100.7', 'ip', '198.51.100.7', 'an exact address'],
      ['d41d8cd98f00b204e9800998ecf8427e', 'md5', 'D41D8CD98F00B204E9800998ECF8427E', 'an exact hash, as written (upper case)'],
      ['wiki.intranet', 'domain', 'intranet', 'a single-label suffix'],
      ['badexample.com', 'domain', undefined, 'no entry for a name outside every suffix'],
      ['198.51.100.8', 'ip', undefined, 'no entry for an address outside every range'],
    ];
    for (const [value, type, entry, why] of entries) {
      it(`names ${entry === undefined ? 'no entry' : JSON.stringify(entry)} for ${type} ${value}: ${why}`, () => {
        assert.equal(allowlist.entryFor(value, type), entry);
        assert.equal(allowlist.allows(value, type), entry !== undefined, 'allows agrees with entryFor');
      });
    }

    it('names the most specific suffix, and the first of two entries for the same name', () => {
      const nested = createAllowlist(['example.com', 'Shop.Example.com', 'shop.example.com.']);
      assert.equal(nested.entryFor('a.shop.example.com', 'domain'), 'Shop.Example.com');
      assert.equal(nested.entryFor('www.example.com', 'domain'), 'example.com');
    });

    it('names the default entry that keeps a private address out', () => {
      assert.equal(createAllowlist(undefined).entryFor('192.168.1.20', 'ip'), '192.168.0.0/16');
      assert.equal(createAllowlist(undefined).entryFor('http://a.localhost/x', 'url'), 'localhost');
    });
  });

  it('accepts every default entry as it is written', () => {
    assert.doesNotThrow(() => createAllowlist([...DEFAULT_ALLOWLIST]));
  });
});
