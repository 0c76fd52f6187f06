// refang (docs/lookup-api.md, "Values as analysts paste them"): every defanged form made a value again, and values
// that were already values, or only look defanged, left exactly as they are.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readIndicatorValue } from '../../src/sources/indicator-value.js';
import { refang } from '../../src/sources/refang.js';

describe('refang', () => {
  describe('undoes each defanged form', () => {
    for (const [pasted, value] of [
      ['hxxp://evil.example/a', 'http://evil.example/a'],
      ['hxxps://evil.example/a', 'https://evil.example/a'],
      ['HXXPS://evil.example/', 'https://evil.example/'],
      ['fxp://files.example/x.bin', 'ftp://files.example/x.bin'],
      ['evil[.]example', 'evil.example'],
      ['evil(.)example', 'evil.example'],
      ['evil{.}example', 'evil.example'],
      ['evil[dot]example', 'evil.example'],
      ['evil(DOT)example', 'evil.example'],
      ['evil [.] example', 'evil.example'],
      ['evil[ . ]example', 'evil.example'],
      ['https[:]//evil.example/', 'https://evil.example/'],
      ['https[://]evil.example/', 'https://evil.example/'],
      ['hxxps[://]evil[.]example/a', 'https://evil.example/a'],
      ['user[@]evil.example', 'user@evil.example'],
      ['user[at]evil.example', 'user@evil.example'],
      ['1.2.3[.]4', '1.2.3.4'],
      ['login-2002c[.]net', 'login-2002c.net'],
      ['138.90.115.251:80', '138.90.115.251'],
      ['138.90.115[.]251:8080', '138.90.115.251'],
      ['[2001:db8::1]:443', '2001:db8::1'],
      ['[2001:db8::1]', '2001:db8::1'],
      ['evil.example:443', 'evil.example'],
      ['  evil[.]example  ', 'evil.example'],
    ] as const) {
      it(`${JSON.stringify(pasted)} is ${JSON.stringify(value)}`, () => {
        assert.equal(refang(pasted), value);
      });
    }
  });

  describe('leaves a value that is already one as it is (trimmed)', () => {
    for (const value of [
      'dot.example.com',
      'at.example.com',
      'evil.example',
      'http://evil.example:8080/path?q=1',
      'https://1.2.3.4:443/',
      'analyst@example.com',
      '1.2.3.4',
      '157.59.90.0/23',
      '2001:db8::1',
      '2001:db8::/32',
      '::1',
      'd41d8cd98f00b204e9800998ecf8427e',
      'AS13335',
      '',
    ]) {
      it(`${JSON.stringify(value)}`, () => {
        assert.equal(refang(value), value);
        assert.equal(refang(` ${value}\t`), value);
      });
    }
  });

  describe('leaves text after a colon that is no port', () => {
    for (const value of ['1.2.3.4:99999', 'evil.example:70000', '[2001:db8::1]:65536', '1.2.3.4:http']) {
      it(`${JSON.stringify(value)}`, () => {
        assert.equal(refang(value), value);
      });
    }
  });

  it('leaves a bare "dot" or "at" word, which may be part of the value', () => {
    assert.equal(refang('my-dot-site.example'), 'my-dot-site.example');
    assert.equal(refang('at-home.example'), 'at-home.example');
  });

  describe('readIndicatorValue reads the refanged value', () => {
    for (const [pasted, value, type] of [
      ['hxxps://Evil[.]Example/Path', 'https://evil.example/Path', 'url'],
      ['1.2.3[.]4', '1.2.3.4', 'ip'],
      ['login-2002c[.]net', 'login-2002c.net', 'domain'],
      ['138.90.115.251:80', '138.90.115.251', 'ip'],
      ['[2001:DB8::1]:443', '2001:db8::1', 'ipv6'],
      ['user[at]Evil[.]example', 'user@evil.example', 'email'],
    ] as const) {
      it(`${JSON.stringify(pasted)} as ${type} ${value}`, () => {
        const reading = readIndicatorValue(pasted);
        assert.ok(reading.ok, JSON.stringify(reading));
        assert.deepEqual([reading.lookup.value, reading.type], [value, type]);
      });
    }

    it('still refuses text that is no indicator once refanged', () => {
      assert.equal(readIndicatorValue('not[.] an indicator').ok, false);
      assert.equal(readIndicatorValue('1.2.3.4:99999').ok, false);
    });
  });
});
