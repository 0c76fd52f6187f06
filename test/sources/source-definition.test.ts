// Source objects: what parses and with which defaults, what is refused naming the field, and how `${env:NAME}` is handled.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkEnv, envReferences, parseSource, redactedUrl, resolveEnv, SourceDefinitionError } from '../../src/sources/source-definition.js';

const TEXT = { url: 'https://example.org/drop.txt', format: 'text' };
const CSV = { url: 'https://example.org/ioc.csv', format: 'csv', csv: { header: 'comment', value: 'ioc' } };
const JSON_SOURCE = { url: 'https://example.org/ioc.json', format: 'json', json: { value: 'ioc.value' } };
const LOOKUP = { url: 'https://upstream.example/api/', format: 'lookup-api', fid: 7, key: '${env:UPSTREAM_KEY}' };

describe('parseSource', () => {
  const valid: [string, unknown, Record<string, unknown>][] = [
    ['a text source gets risk unknown, 60 s and 256 MB by default', TEXT, { risk: 'unknown', timeoutSeconds: 60, maxMegabytes: 256 }],
    ['a csv source gets the comma as delimiter', CSV, { csv: { header: 'comment', value: 'ioc', delimiter: ',' } }],
    ['a csv header may list the columns', { ...CSV, csv: { header: ['ioc', 'kind'], value: 'ioc', type: 'kind', delimiter: ';' } }, { csv: { header: ['ioc', 'kind'], value: 'ioc', type: 'kind', delimiter: ';' } }],
    ['a json source keeps its paths', { ...JSON_SOURCE, json: { value: 'ioc', items: 'data.rows', lastSeen: 'seen.last' } }, { json: { value: 'ioc', items: 'data.rows', lastSeen: 'seen.last' } }],
    ['a lookup-api source keeps fid and key', LOOKUP, { fid: 7, key: '${env:UPSTREAM_KEY}' }],
    ['a file:// URL is accepted', { ...TEXT, url: 'file:///var/feeds/drop.txt' }, { url: 'file:///var/feeds/drop.txt' }],
    ['an http:// URL with a placeholder in the query is accepted', { ...TEXT, url: 'http://x.example/f?key=${env:K}' }, { url: 'http://x.example/f?key=${env:K}' }],
    ['a type is stored in the vocabulary\'s spelling', { ...TEXT, type: ' IPv4 ' }, { type: 'ipv4' }],
    ['the schedule, risk, threat, headers and credentials are kept', { ...TEXT, schedule: 'every 6h', risk: 'high', threat: 'Emotet', headers: { 'X-Api-Key': '${env:K}' }, username: 'u', password: '${env:P}' }, { schedule: 'every 6h', risk: 'high', threat: { name: 'Emotet', category: 'malware' }, headers: { 'X-Api-Key': '${env:K}' }, username: 'u', password: '${env:P}' }],
    ['a threat with its category', { ...TEXT, threat: { name: 'APT-X', category: 'group' } }, { threat: { name: 'APT-X', category: 'group' } }],
    ['a threat object without a category, as malware', { ...TEXT, threat: { name: 'Phishing' } }, { threat: { name: 'Phishing', category: 'malware' } }],
    ['a threat category of 200 characters, as an import takes', { ...TEXT, threat: { name: 'Long', category: 'c'.repeat(200) } }, { threat: { name: 'Long', category: 'c'.repeat(200) } }],
    ['a zip member to read', { ...TEXT, zip: { member: 'full.csv' } }, { zip: { member: 'full.csv' } }],
    ['stix, taxii and misp sources need nothing more', { ...TEXT, format: 'misp' }, { format: 'misp' }],
  ];
  for (const [title, raw, expected] of valid) {
    it(`accepts ${title}`, () => {
      const source = parseSource(raw) as unknown as Record<string, unknown>;
      for (const [key, value] of Object.entries(expected)) assert.deepEqual(source[key], value, key);
    });
  }

  const invalid: [string, unknown, string][] = [
    ['a non-object', 'https://example.org', 'source: must be an object'],
    ['a missing url', { format: 'text' }, 'source.url: required'],
    ['an ftp:// URL, naming the scheme', { ...TEXT, url: 'ftp://example.org/x' }, 'source.url: scheme "ftp" is not supported; use https://, http:// or file://'],
    ['a URL without a scheme', { ...TEXT, url: 'example.org/x' }, 'source.url: must start with https://, http:// or file://'],
    ['a scheme from the environment', { ...TEXT, url: '${env:FEED_URL}' }, 'source.url: must start with https://, http:// or file://'],
    ['a URL that does not parse', { ...TEXT, url: 'https://exa mple.org/' }, 'source.url: is not a valid URL'],
    ['a missing format', { url: TEXT.url }, 'source.format: required'],
    ['an unknown format', { ...TEXT, format: 'pdf' }, 'source.format: must be one of text, csv, json, stix, hosts, taxii, lookup-api, misp'],
    ['a bad schedule, with its reason', { ...TEXT, schedule: 'every 0m' }, 'source.schedule: "every 0m": the interval must be at least 10s, so a pull is not started before the previous one can time out'],
    ['a schedule that never runs', { ...TEXT, schedule: '* * 31 2 *' }, 'source.schedule: "* * 31 2 *" never runs: no chosen month has day 31'],
    ['an unknown risk', { ...TEXT, risk: 'severe' }, 'source.risk: must be one of unknown, none, low, medium, high, critical, retired'],
    ['a type outside the vocabulary', { ...TEXT, type: 'ja3' }, 'source.type: must be one of ip, ipv4, ipv6, cidr, domain, hostname, url, uri, email, md5, sha1, sha256, sha512, asn'],
    ['an empty threat', { ...TEXT, threat: '' }, 'source.threat: must not be empty'],
    ['a threat name longer than an import takes', { ...TEXT, threat: 'n'.repeat(1001) }, 'source.threat: must be at most 1000 characters'],
    ['an empty threat category', { ...TEXT, threat: { name: 'Phishing', category: '' } }, 'source.threat.category: must not be empty'],
    ['a threat category longer than an import takes', { ...TEXT, threat: { name: 'Phishing', category: 'c'.repeat(201) } }, 'source.threat.category: must be at most 200 characters'],
    ['a threat object without a name', { ...TEXT, threat: { category: 'phishing' } }, 'source.threat: must be a threat name or {"name": NAME, "category": CATEGORY}'],
    ['a threat object with an unknown field', { ...TEXT, threat: { name: 'Phishing', kind: 'phishing' } }, 'source.threat.kind: unknown field'],
    ['a header value that is not a string', { ...TEXT, headers: { 'X-Key': 1 } }, 'source.headers.X-Key: must be a string'],
    ['a header name with a space', { ...TEXT, headers: { 'X Key': 'v' } }, 'source.headers.X Key: is not an HTTP header name'],
    ['a password without a username', { ...TEXT, password: 'p' }, 'source.password: needs a username'],
    ['a zero timeout', { ...TEXT, timeoutSeconds: 0 }, 'source.timeoutSeconds: must be positive'],
    ['a timeout over an hour', { ...TEXT, timeoutSeconds: 3601 }, 'source.timeoutSeconds: must be at most 3600'],
    ['a size given as a string', { ...TEXT, maxMegabytes: '256' }, 'source.maxMegabytes: must be a number'],
    ['an unknown field', { ...TEXT, interval: 'daily' }, 'source.interval: unknown field'],
    ['an unknown csv option', { ...CSV, csv: { ...CSV.csv, quote: "'" } }, 'source.csv.quote: unknown field'],
    ['csv options on a json source', { ...JSON_SOURCE, csv: CSV.csv }, 'source.csv: only allowed with format csv'],
    ['json options on a csv source', { ...CSV, json: JSON_SOURCE.json }, 'source.json: only allowed with format json'],
    ['a csv source without csv options', { url: CSV.url, format: 'csv' }, 'source.csv.value: required for format csv'],
    ['a csv source without csv.value', { ...CSV, csv: { header: 'first-row' } }, 'source.csv.value: required for format csv'],
    ['a csv source without csv.header', { ...CSV, csv: { value: 'ioc' } }, 'source.csv.header: required'],
    ['a csv header that is neither keyword nor list', { ...CSV, csv: { header: 'auto', value: 'ioc' } }, 'source.csv.header: must be "first-row", "comment" or a list of column names'],
    ['a csv column missing from the listed header', { ...CSV, csv: { header: ['ioc'], value: 'ioc', threat: 'malware' } }, 'source.csv.threat: column "malware" is not in csv.header'],
    ['a two-character delimiter', { ...CSV, csv: { ...CSV.csv, delimiter: ';;' } }, 'source.csv.delimiter: must be one character'],
    ['a quote as delimiter', { ...CSV, csv: { ...CSV.csv, delimiter: '"' } }, 'source.csv.delimiter: must not be a quote or a line break'],
    ['a json source without json.value', { ...JSON_SOURCE, json: { items: 'data' } }, 'source.json.value: required for format json'],
    ['a json path with an empty segment', { ...JSON_SOURCE, json: { value: 'ioc..value' } }, 'source.json.value: must be a dotted path such as "data.ioc"'],
    ['a lookup-api source without key', { ...LOOKUP, key: undefined }, 'source.key: required for format lookup-api'],
    ['a lookup-api source without fid', { ...LOOKUP, fid: undefined }, 'source.fid: required for format lookup-api'],
    ['a fid on a text source', { ...TEXT, fid: 3 }, 'source.fid: only allowed with format lookup-api'],
    ['a fractional fid', { ...LOOKUP, fid: 1.5 }, 'source.fid: must be a whole number'],
    ['a malformed env reference', { ...TEXT, headers: { 'X-Key': '${env:1KEY}' } }, 'source.headers.X-Key: "${env:1KEY}" is not an environment variable name'],
  ];
  for (const [title, raw, message] of invalid) {
    it(`refuses ${title}, naming the field`, () => {
      assert.throws(() => parseSource(raw), (error: unknown) => {
        assert.ok(error instanceof SourceDefinitionError);
        assert.equal(error.message, message);
        return true;
      });
    });
  }

  it('never echoes the URL, which may carry a password', () => {
    assert.throws(() => parseSource({ ...TEXT, url: 'ftp://user:s3cret@example.org/' }), (error: Error) => !error.message.includes('s3cret'));
  });
});

describe('environment references', () => {
  const source = parseSource({
    ...TEXT,
    url: 'https://user:${env:FEED_PASS}@example.org/feed?key=${env:FEED_KEY}&v=${env:FEED_KEY}',
    headers: { Authorization: 'Bearer ${env:FEED_TOKEN}' },
  });

  it('lists every name once, in order of appearance', () => {
    assert.deepEqual(envReferences(source), ['FEED_PASS', 'FEED_KEY', 'FEED_TOKEN']);
  });

  it('lists nothing for a source without references', () => assert.deepEqual(envReferences(parseSource(TEXT)), []));

  it('refuses an unset variable, naming it and where it is used, not any value', () => {
    const env = { FEED_PASS: 'pw-secret', FEED_KEY: 'key-secret' };
    assert.throws(() => checkEnv(source, env), (error: unknown) => {
      assert.ok(error instanceof SourceDefinitionError);
      assert.equal(error.message, 'source.headers.Authorization: environment variable FEED_TOKEN is not set');
      assert.ok(!error.message.includes('secret'));
      return true;
    });
  });

  it('refuses ${env:UNSET} and names every unset variable', () => {
    const unset = parseSource({ ...TEXT, url: 'https://example.org/?k=${env:UNSET}', password: '${env:ALSO_UNSET}', username: 'u' });
    assert.throws(() => checkEnv(unset, {}), {
      message: 'source.url: environment variable UNSET is not set; source.password: environment variable ALSO_UNSET is not set',
    });
  });

  it('counts an empty variable as unset', () => {
    assert.throws(() => checkEnv(source, { FEED_PASS: 'p', FEED_KEY: '', FEED_TOKEN: 't' }), /FEED_KEY is not set/);
  });

  it('substitutes every reference at pull time, leaving the parsed source unchanged', () => {
    const env = { FEED_PASS: 'p$&w', FEED_KEY: 'k', FEED_TOKEN: 't' };
    const resolved = resolveEnv(source, env);
    assert.equal(resolved.url, 'https://user:p$&w@example.org/feed?key=k&v=k');
    assert.deepEqual(resolved.headers, { Authorization: 'Bearer t' });
    assert.equal(resolved.timeoutSeconds, 60);
    assert.equal(source.headers?.Authorization, 'Bearer ${env:FEED_TOKEN}');
  });

  it('resolves nothing when a variable is unset', () => {
    assert.throws(() => resolveEnv(source, {}), SourceDefinitionError);
  });
});

describe('redactedUrl', () => {
  const cases: [string, string, string][] = [
    ['a password in the userinfo', 'https://user:s3cret@example.org/feed?key=${env:FEED_KEY}', 'https://example.org/feed?key=${env:FEED_KEY}'],
    ['placeholders in the userinfo', 'https://${env:USER}:${env:PASS}@example.org:8443/x', 'https://example.org:8443/x'],
    ['a user alone, and an @ in the path', 'http://user@example.org/a@b', 'http://example.org/a@b'],
    ['a URL with nothing to hide', 'https://example.org/feed.csv', 'https://example.org/feed.csv'],
    ['a file URL', 'file:///var/feeds/drop.txt', 'file:///var/feeds/drop.txt'],
    ['a token as a query value', 'https://example.org/feed?token=abc123', 'https://example.org/feed?token=***'],
    ['every query value, names kept', 'https://example.org/f?list=full&token=abc123&empty=', 'https://example.org/f?list=***&token=***&empty='],
    ['a query part without a name', 'https://example.org/f?abc123&x=1', 'https://example.org/f?***&x=***'],
    ['a value that only partly is a placeholder', 'https://example.org/f?key=abc${env:K}', 'https://example.org/f?key=***'],
    ['a fragment', 'https://example.org/f#access_token=abc123', 'https://example.org/f'],
    ['userinfo, query and fragment at once', 'https://u:abc123@example.org/f?t=abc123#abc123', 'https://example.org/f?t=***'],
    ['a backslash ending the authority', 'https://abc123@example.org\\x@y/f', 'https://example.org\\x@y/f'],
    ['text without a scheme', 'feeds.example.org/list?token=abc123#top', 'feeds.example.org/list?token=***'],
    ['an empty accesslink', '', ''],
  ];
  for (const [what, url, shown] of cases) {
    it(`shows ${what} as ${shown}`, () => assert.equal(redactedUrl(url), shown));
  }
});
