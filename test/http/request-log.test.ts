// redactUrl: the URL as the request log writes it, with the value of every secret-named query parameter replaced.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { redactUrl } from '../../src/http/request-log.js';

describe('redactUrl', () => {
  const cases: [string, string][] = [
    ['/api/threat.php?tid=1', '/api/threat.php?tid=1'],
    ['/api/threat.php?tid=1&key=S', '/api/threat.php?tid=1&key=[redacted]'],
    ['/api/threat.php?key[]=S&tid=1', '/api/threat.php?key[]=[redacted]&tid=1'],
    ['/a?key[0]=S', '/a?key[0]=[redacted]'],
    ['/a?key%5B%5D=S', '/a?key%5B%5D=[redacted]'],
    ['/a?keyfoo=S', '/a?keyfoo=[redacted]'],
    ['/a?KEY=S', '/a?KEY=[redacted]'],
    ['/a?k%65y=S', '/a?k%65y=[redacted]'],
    ['/a?%4B%45%59=S', '/a?%4B%45%59=[redacted]'],
    ['/a?k%2565y=S', '/a?k%2565y=[redacted]'],
    ['/a?k%65y%zz=S', '/a?k%65y%zz=[redacted]'],
    ['/a?key', '/a?key=[redacted]'],
    ['/a?x=1&key=S&y=2&token=T&z', '/a?x=1&key=[redacted]&y=2&token=[redacted]&z'],
    ['/a?&&key=S&', '/a?&&key=[redacted]&'],
    ['/a?', '/a?'],
    ['/a?tid=1&pretty=1', '/a?tid=1&pretty=1'],
    ['/a?api_key=S&apikey=S&token=S&password=S', '/a?api_key=[redacted]&apikey=[redacted]&token=[redacted]&password=[redacted]'],
    ['/a?monkey=1&tid=2&pretty=1', '/a?monkey=1&tid=2&pretty=1'],
    ['/a?accept=application/taxii%2Bjson', '/a?accept=application/taxii%2Bjson'],
  ];
  for (const [url, logged] of cases) {
    it(`logs ${url} as ${logged}`, () => assert.equal(redactUrl(url), logged));
  }
});
