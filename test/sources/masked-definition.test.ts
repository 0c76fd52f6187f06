// maskedDefinition: a source definition as the console shows it, each secret masked and `${env:NAME}` placeholders kept.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { maskedDefinition, maskedUrl } from '../../src/sources/masked-definition.js';

describe('maskedUrl', () => {
  const cases: Array<[string, string, string]> = [
    ['a plain URL', 'https://feeds.example/list.txt', 'https://feeds.example/list.txt'],
    ['literal userinfo', 'https://alice:s3cret@feeds.example/list.txt', 'https://***:***@feeds.example/list.txt'],
    ['a token as the user', 'https://tok3n@feeds.example/list.txt', 'https://***@feeds.example/list.txt'],
    ['placeholder userinfo', 'https://${env:USER}:${env:PASS}@feeds.example/x', 'https://${env:USER}:${env:PASS}@feeds.example/x'],
    ['an empty user with a literal password', 'https://:s3cret@feeds.example/x', 'https://:***@feeds.example/x'],
    ['query values', 'https://feeds.example/x?token=abc&list=ips', 'https://feeds.example/x?token=***&list=***'],
    ['a placeholder query value', 'https://feeds.example/x?token=${env:TOKEN}', 'https://feeds.example/x?token=${env:TOKEN}'],
    ['a placeholder mixed with text', 'https://feeds.example/x?token=Bearer-${env:TOKEN}', 'https://feeds.example/x?token=***'],
    ['an @ in the path only', 'https://feeds.example/a@b/list', 'https://feeds.example/a@b/list'],
  ];
  for (const [name, url, shown] of cases) {
    it(`${name} › ${shown}`, () => assert.equal(maskedUrl(url), shown));
  }
});

describe('maskedDefinition', () => {
  it('masks the password, the lookup-api key and header values, keeping placeholders, header names and every other field', () => {
    const source = {
      url: 'https://user:pw@feeds.example/api?key=k',
      format: 'lookup-api',
      fid: 7,
      key: 'literal-key-123',
      username: 'alice',
      password: 'hunter2',
      headers: { Authorization: 'Bearer ${env:FEED_TOKEN}', 'X-Api-Key': 'abc123' },
      schedule: 'every 6h',
    };
    assert.deepEqual(maskedDefinition(source), {
      url: 'https://***:***@feeds.example/api?key=***',
      format: 'lookup-api',
      fid: 7,
      key: '***',
      username: 'alice',
      password: '***',
      headers: { Authorization: 'Bearer ${env:FEED_TOKEN}', 'X-Api-Key': '***' },
      schedule: 'every 6h',
    });
  });

  it('shows a value made only of ${env:NAME} references as written', () => {
    const source = { url: 'https://feeds.example/x', format: 'text', password: '${env:PASS}', username: 'u', key: '${env:A}${env:B}', headers: { Authorization: '${env:AUTH}' } };
    assert.deepEqual(maskedDefinition(source), source);
  });

  it('keeps an authentication scheme before placeholders, and masks one before a literal credential', () => {
    const shown = maskedDefinition({ url: 'https://feeds.example/x', format: 'text', headers: { Authorization: 'Bearer ${env:TOKEN}', 'X-Other': 'Token ${env:T}' } });
    assert.deepEqual((shown as { headers: unknown }).headers, { Authorization: 'Bearer ${env:TOKEN}', 'X-Other': 'Token ${env:T}' });
    const literal = maskedDefinition({ url: 'https://feeds.example/x', format: 'text', headers: { Authorization: 'Bearer abc.def', 'X-Key': 'sekrit ${env:T}' } });
    assert.deepEqual((literal as { headers: unknown }).headers, { Authorization: '***', 'X-Key': '***' });
  });

  it('leaves what is no source object as it is', () => {
    assert.equal(maskedDefinition('text'), 'text');
    assert.deepEqual(maskedDefinition([1]), [1]);
  });
});
