// Where a pull may connect (docs/security.md, "Where a pull may connect"): the class of each address, what a source may reach, and what `feeds add` refuses.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyAddress, neverReachable, refusal, sourceReach } from '../../../src/sources/transports/network-policy.js';

describe('classifyAddress', () => {
  const cases: Array<[string, string | undefined]> = [
    ['93.184.216.34', 'public'],
    ['2606:2800:220:1:248:1893:25c8:1946', 'public'],
    ['198.51.100.7', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.1', 'public'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['100.128.0.1', 'public'],
    ['fd12:3456::1', 'private'],
    ['::ffff:10.0.0.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.251', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['example.org', undefined],
    ['127.1', undefined],
  ];
  for (const [address, kind] of cases) {
    it(`${address} › is ${kind ?? 'no address'}`, () => assert.equal(classifyAddress(address), kind));
  }
});

describe('sourceReach and refusal', () => {
  const reached = (url: string, network?: 'private', allow = false) => [...sourceReach(url, network, allow).inner].sort();

  it('a source on a public host reaches public addresses only', () => {
    assert.deepEqual(reached('https://feeds.example.org/list.txt'), []);
    assert.match(refusal('127.0.0.1', sourceReach('https://feeds.example.org/', undefined, false))!, /^connection to a loopback address \(127\.0\.0\.1\) refused: allow it with "network": "private" on the source or sources\.allowPrivateNetworks in the config$/);
    assert.equal(refusal('93.184.216.34', sourceReach('https://feeds.example.org/', undefined, false)), undefined);
  });

  it('a URL naming a loopback address or localhost reaches loopback, not private networks', () => {
    for (const url of ['http://127.0.0.1:8080/x', 'http://[::1]/x', 'http://localhost:9000/', 'http://feeds.localhost/']) assert.deepEqual(reached(url), ['loopback'], url);
    assert.match(refusal('10.0.0.5', sourceReach('http://127.0.0.1/', undefined, false))!, /private address \(10\.0\.0\.5\) refused/);
  });

  it('a URL naming a private address reaches private networks, not loopback', () => {
    assert.deepEqual(reached('http://10.20.30.40/misp/'), ['private']);
    assert.match(refusal('127.0.0.1', sourceReach('http://10.20.30.40/', undefined, false))!, /loopback address/);
  });

  it('"network": "private" and sources.allowPrivateNetworks reach both', () => {
    assert.deepEqual(reached('https://misp.corp.example/', 'private'), ['loopback', 'private']);
    assert.deepEqual(reached('https://misp.corp.example/', undefined, true), ['loopback', 'private']);
  });

  it('nothing reaches link-local, unspecified, multicast, broadcast or reserved addresses', () => {
    const widest = sourceReach('http://127.0.0.1/', 'private', true);
    for (const address of ['169.254.169.254', 'fe80::1', '0.0.0.0', '::', '224.0.0.1', '255.255.255.255', '240.1.1.1']) {
      assert.match(refusal(address, widest)!, /refused: pulls never connect to /, address);
    }
  });
});

describe('neverReachable (feeds add)', () => {
  it('names the class of a URL naming a never-address, and passes any other URL', () => {
    assert.equal(neverReachable('http://169.254.169.254/latest/meta-data/'), 'names a link-local address (169.254.169.254), which pulls never connect to');
    assert.equal(neverReachable('http://[fe80::1]/'), 'names a link-local address ([fe80::1]), which pulls never connect to');
    assert.equal(neverReachable('http://0.0.0.0:8080/'), 'names an unspecified address (0.0.0.0), which pulls never connect to');
    assert.equal(neverReachable('http://224.0.0.1/'), 'names a multicast address (224.0.0.1), which pulls never connect to');
    // The URL Standard reads these forms as the same addresses.
    assert.match(neverReachable('http://0xA9FEA9FE/')!, /link-local address \(169\.254\.169\.254\)/);
    for (const url of ['https://feeds.example.org/', 'http://127.0.0.1/', 'http://10.0.0.1/', 'file:///tmp/list.txt']) assert.equal(neverReachable(url), undefined, url);
  });
});
