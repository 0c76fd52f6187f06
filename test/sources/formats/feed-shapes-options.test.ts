// The source options of the feed shapes (docs/sources.md): the hosts format, json.items "*" and json.key, csv/json riskFrom and attributes, accepted as documented and refused naming the field.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSource, SourceDefinitionError } from '../../../src/sources/source-definition.js';

const CSV = { url: 'https://example.org/ioc.csv', format: 'csv', csv: { header: 'comment', value: 'ioc' } };
const JSON_SOURCE = { url: 'https://example.org/ioc.json', format: 'json', json: { value: 'ioc' } };
const csv = (options: Record<string, unknown>) => ({ ...CSV, csv: { ...CSV.csv, ...options } });
const json = (options: Record<string, unknown>) => ({ ...JSON_SOURCE, json: { ...JSON_SOURCE.json, ...options } });
const MAP = { '90': 'high', '50': 'medium', '0': 'low' };

describe('parseSource, the feed shapes', () => {
  const valid: [string, unknown, Record<string, unknown>][] = [
    ['a hosts source, a full list with the common fields only', { url: 'https://example.org/hosts', format: 'hosts', risk: 'medium' }, { format: 'hosts', risk: 'medium' }],
    ['json.items "*" with json.key', json({ items: '*', key: 'id' }), { json: { value: 'ioc', items: '*', key: 'id' } }],
    ['csv.riskFrom, kept as written', csv({ riskFrom: { column: 'confidence_level', map: MAP } }), { csv: { ...CSV.csv, delimiter: ',', riskFrom: { column: 'confidence_level', map: MAP } } }],
    ['json.riskFrom with a dotted path and decimal thresholds', json({ riskFrom: { field: 'score.value', map: { '12.5': 'low', '-1': 'none' } } }), { json: { value: 'ioc', riskFrom: { field: 'score.value', map: { '12.5': 'low', '-1': 'none' } } } }],
    [
      'csv.attributes in both forms, read alike',
      csv({ attributes: { port: 'dst_port', tags: { column: 'tags', split: ',' } } }),
      { csv: { ...CSV.csv, delimiter: ',', attributes: { port: { from: 'dst_port' }, tags: { from: 'tags', split: ',' } } } },
    ],
    ['json.attributes naming dotted paths', json({ attributes: { asn: 'net.asn', tags: { field: 'tags', split: ';' } } }), { json: { value: 'ioc', attributes: { asn: { from: 'net.asn' }, tags: { from: 'tags', split: ';' } } } }],
    ['csv.riskFrom and an attribute column that a listed header has', { ...CSV, csv: { header: ['ioc', 'score', 'port'], value: 'ioc', riskFrom: { column: 'score', map: MAP }, attributes: { port: 'port' } } }, {}],
  ];
  for (const [title, raw, expected] of valid) {
    it(`accepts ${title}`, () => {
      const source = parseSource(raw) as unknown as Record<string, unknown>;
      for (const [key, value] of Object.entries(expected)) assert.deepEqual(source[key], value, key);
    });
  }

  const invalid: [string, unknown, string][] = [
    ['options on a hosts source', { url: 'https://example.org/hosts', format: 'hosts', hosts: {} }, 'source.hosts: unknown field'],
    ['json.key without json.items "*"', json({ items: 'data', key: 'id' }), 'source.json.key: only with json.items "*": the key is that of the top-level value a record is in'],
    ['a json.key with a dot', json({ items: '*', key: 'a.b' }), 'source.json.key: must be a field name without dots, such as "id"'],
    ['csv.risk and csv.riskFrom together', csv({ risk: 'level', riskFrom: { column: 'score', map: MAP } }), 'source.csv.riskFrom: give csv.risk (a column of risk names) or csv.riskFrom (a column of scores), not both'],
    ['json.risk and json.riskFrom together', json({ risk: 'level', riskFrom: { field: 'score', map: MAP } }), 'source.json.riskFrom: give json.risk (a field of risk names) or json.riskFrom (a field of scores), not both'],
    ['a threshold that is not a number', csv({ riskFrom: { column: 'score', map: { high: 'high' } } }), 'source.csv.riskFrom.map.high: is not a number: each key is a threshold such as "90"'],
    ['a threshold given twice', csv({ riskFrom: { column: 'score', map: { '50': 'medium', '50.0': 'high' } } }), 'source.csv.riskFrom.map.50.0: is the same threshold as "50"'],
    ['a risk that is no level', csv({ riskFrom: { column: 'score', map: { '50': 'severe' } } }), 'source.csv.riskFrom.map.50: must be one of unknown, none, low, medium, high, critical'],
    ['retired as a score\'s risk', csv({ riskFrom: { column: 'score', map: { '0': 'retired' } } }), 'source.csv.riskFrom.map.0: must be one of unknown, none, low, medium, high, critical'],
    ['an empty map', csv({ riskFrom: { column: 'score', map: {} } }), 'source.csv.riskFrom.map: must give at least one threshold, such as {"50": "medium"}'],
    ['a map that is a list', csv({ riskFrom: { column: 'score', map: ['high'] } }), 'source.csv.riskFrom.map: must be an object of threshold to risk, such as {"90": "high", "50": "medium"}'],
    ['csv.riskFrom without its map', csv({ riskFrom: { column: 'score' } }), 'source.csv.riskFrom.map: required'],
    ['csv.riskFrom naming a field, the json word', csv({ riskFrom: { field: 'score', map: MAP } }), 'source.csv.riskFrom.column: required'],
    ['a csv.riskFrom column missing from the listed header', { ...CSV, csv: { header: ['ioc'], value: 'ioc', riskFrom: { column: 'score', map: MAP } } }, 'source.csv.riskFrom.column: column "score" is not in csv.header'],
    ['an attribute column missing from the listed header', { ...CSV, csv: { header: ['ioc'], value: 'ioc', attributes: { port: 'dst_port' } } }, 'source.csv.attributes.port: column "dst_port" is not in csv.header'],
    ['an attribute name in capitals', csv({ attributes: { Port: 'dst_port' } }), 'source.csv.attributes.Port: is not an attribute name: lower-case letters, digits, "_" and "-", starting with a letter'],
    ['an attribute given as a number', csv({ attributes: { port: 3 } }), 'source.csv.attributes.port: must be a column name or {"column": NAME, "split": SEPARATOR}'],
    ['an empty attribute column', csv({ attributes: { port: '' } }), 'source.csv.attributes.port: must not be empty'],
    ['an empty separator', csv({ attributes: { tags: { column: 'tags', split: '' } } }), 'source.csv.attributes.tags.split: must not be empty'],
    ['a csv attribute naming a field, the json word', csv({ attributes: { tags: { field: 'tags' } } }), 'source.csv.attributes.tags.field: unknown field (this format names a column: {"column": NAME})'],
    ['a json attribute naming a column, the csv word', json({ attributes: { tags: { column: 'tags' } } }), 'source.json.attributes.tags.column: unknown field (this format names a field: {"field": NAME})'],
    ['a json attribute path with an empty segment', json({ attributes: { tags: 'a..b' } }), 'source.json.attributes.tags: must be a dotted path such as "data.ioc"'],
    ['attributes that are a list', csv({ attributes: ['port'] }), 'source.csv.attributes: must be an object of attribute name to column'],
    ['more than 32 attributes', csv({ attributes: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`a${i}`, 'x'])) }), 'source.csv.attributes: must name at most 32 attributes'],
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
});
