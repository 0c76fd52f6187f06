// The streaming json items against the whole-document reference: the same records at the same positions on varied documents cut anywhere, and malformed ones refused where JSON.parse refuses them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Prng } from '../../../bench/generate-data.js';
import { FeedFormatError } from '../../../src/sources/parsers/feed-entry.js';
import { JsonItemsScanner, type JsonItem } from '../../../src/sources/parsers/json-items-scanner.js';
import { readJson } from '../../../src/sources/parsers/read-json.js';
import { chunked, collectEntries } from './feed-chunks.js';
import { keyLabel, referenceItems } from './json-items-reference.js';

/** An object whose members keep the order given, integer-like names included (a JS object would sort those first). */
class Members {
  constructor(readonly entries: [string, unknown][]) {}
}

const STRINGS = ['ioc', 'a"quote', 'back\\slash', 'line\nbreak\r\n', 'tab\t', '\u0000\u001f', 'é', '日本語', '😀 pair', ']}', '{[', ', :', '\u2028', '', ' padded '];
const NUMBERS = ['0', '-0', '12', '-3.5', '1e3', '1E-2', '2.5e+10', '-0.0', '123456789012345678901234567890'];
const KEYS = ['0', '7', '1234', '4294967294', '4294967295', '01', '-1', '1.5', 'id', 'a"b', 'é', '😀', '', '__proto__', 'constructor', 'query status'];

/** A string written as JSON, now and then with every non-ASCII character and `/` escaped as \uXXXX. */
function writeString(prng: Prng, text: string): string {
  const plain = JSON.stringify(text);
  if (!prng.chance(0.3)) return plain;
  return plain.replace(/[^\x20-\x7e]|\//g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function space(prng: Prng): string {
  return prng.chance(0.6) ? '' : prng.pick([' ', '\n', '\t', '\r\n', '\n    ']);
}

/** A JSON value written out, with whitespace here and there. */
function write(prng: Prng, value: unknown): string {
  const ws = () => space(prng);
  if (value instanceof Members) return `{${ws()}${value.entries.map(([k, v]) => `${writeString(prng, k)}${ws()}:${ws()}${write(prng, v)}`).join(`${ws()},${ws()}`)}${ws()}}`;
  if (Array.isArray(value)) return `[${ws()}${value.map((v) => write(prng, v)).join(`${ws()},${ws()}`)}${ws()}]`;
  if (typeof value === 'string') return writeString(prng, value);
  if (typeof value === 'object' && value !== null && 'number' in value) return (value as { number: string }).number;
  return JSON.stringify(value);
}

function uniqueKeys(prng: Prng, count: number, pool: readonly string[]): string[] {
  const keys = new Set<string>();
  while (keys.size < count) keys.add(prng.chance(0.5) ? prng.pick(pool) : prng.chance(0.5) ? String(prng.int(0, 99_999)) : `k${prng.int(0, 999)}${prng.pick(STRINGS)}`);
  return [...keys];
}

/** Any JSON value, nested up to `depth`. */
function anyValue(prng: Prng, depth: number): unknown {
  const kind = prng.int(0, depth > 0 ? 6 : 4);
  if (kind === 0) return prng.pick(STRINGS);
  if (kind === 1) return { number: prng.pick(NUMBERS) };
  if (kind === 2) return prng.pick([true, false]);
  if (kind === 3) return null;
  if (kind === 4) return prng.pick(STRINGS) + prng.int(0, 9);
  if (kind === 5) return Array.from({ length: prng.int(0, 3) }, () => anyValue(prng, depth - 1));
  return record(prng, depth - 1);
}

function record(prng: Prng, depth: number): Members {
  const keys = uniqueKeys(prng, prng.int(0, 4), ['ioc', 'type', 'tags', 'nested', ...KEYS]);
  return new Members(keys.map((k) => [k, k === 'ioc' ? `192.0.2.${prng.int(0, 255)}` : anyValue(prng, depth)]));
}

function records(prng: Prng): unknown[] {
  return Array.from({ length: prng.int(0, 3) }, () => (prng.chance(0.9) ? record(prng, 3) : anyValue(prng, 2)));
}

interface Case {
  text: string;
  items: string | undefined;
  key?: string;
  /** The positions in the order the document writes them. */
  order: string[];
}

/** A document of each shape the reader takes, its items' positions in the order written. */
function documentOf(prng: Prng, shape: number): Case {
  if (shape === 0) {
    // ThreatFox's export: every top-level value an array of records or one record.
    const order: string[] = [];
    const members = uniqueKeys(prng, prng.int(0, 12), KEYS).map((k): [string, unknown] => {
      const value = prng.chance(0.75) ? records(prng) : record(prng, 3);
      if (Array.isArray(value)) value.forEach((_, i) => order.push(`${keyLabel(k)}[${i}]`));
      else order.push(keyLabel(k));
      return [k, value];
    });
    return { text: write(prng, new Members(members)), items: '*', ...(prng.chance(0.5) ? { key: prng.pick(['id', 'ioc', '__proto__']) } : {}), order };
  }
  const list = records(prng).concat(records(prng));
  const order = (label: string) => list.map((_, i) => `${label}[${i}]`);
  const others = () => uniqueKeys(prng, prng.int(0, 3), ['meta', 'query_status', 'count', 'é']).map((k): [string, unknown] => [k, anyValue(prng, 3)]);
  if (shape === 1) return { text: write(prng, list), items: undefined, order: order('items') };
  if (shape === 2) return { text: write(prng, new Members([...others(), ['data', list], ...others()])), items: 'data', order: order('data') };
  if (shape === 3) return { text: write(prng, new Members([...others(), ['result', new Members([['rows', list], ['n', { number: '2' }]])]])), items: 'result.rows', order: order('result.rows') };
  return { text: write(prng, [{ number: '1' }, new Members([['rows', list]]), 'x']), items: '1.rows', order: order('1.rows') };
}

/** The streaming scanner's items of `text` given in `chunks` pieces cut at the given places. */
function streamed(text: string, items: string | undefined, key: string | undefined, cuts: readonly number[] = []): JsonItem[] {
  const scanner = new JsonItemsScanner({ items, key });
  const out: JsonItem[] = [];
  let from = 0;
  for (const cut of [...cuts, text.length]) {
    out.push(...scanner.push(text.slice(from, cut)));
    from = cut;
  }
  return out.concat(scanner.end());
}

function randomCuts(prng: Prng, length: number): number[] {
  const cuts: number[] = [];
  for (let at = prng.int(0, 20); at < length; at += prng.int(1, 20)) cuts.push(at);
  return cuts;
}

/** Where a whole-document JSON.parse error is, as the reader words it, when V8 names a position. */
function referencePoint(text: string, message: string): string | undefined {
  const at = /at position (\d+)/.exec(message)?.[1];
  if (at === undefined) return undefined;
  const before = text.slice(0, Number(at));
  return `line ${before.split('\n').length} column ${Number(at) - before.lastIndexOf('\n')}`;
}

describe('JsonItemsScanner against JSON.parse of the whole document', () => {
  it('gives the same records at the same positions, in the order written, on varied documents cut anywhere', () => {
    const prng = new Prng(33);
    for (let n = 0; n < 1500; n++) {
      const doc = documentOf(prng, n % 5);
      const reference = referenceItems(doc.text, doc.items, doc.key);
      const got = streamed(doc.text, doc.items, doc.key, randomCuts(prng, doc.text.length));
      const where = `document ${n}: ${doc.text}`;
      assert.deepEqual(got.map((item) => item.position), doc.order, where);
      // Positions are unique: as maps, the order of the parsed object (integer-like keys first) does not count.
      assert.deepEqual(new Map(got.map((item) => [item.position, item.record])), new Map(reference.map((item) => [item.position, item.record])), where);
      assert.deepEqual(streamed(doc.text, doc.items, doc.key), got, `${where}, whole`);
    }
  });

  it('reads a document with escapes and characters of every UTF-8 length the same at every byte cut, through readJson', async () => {
    const text = '{"1": [{"ioc": "192.0.2.1", "t": "é\\"日本\\u00e9😀"}], "b\\u00e9": {"ioc": "192.0.2.2", "n": [[1, {"x": "]}"}], {}]},\r\n "9": [{"ioc": "😀.example"}, 5]}';
    const options = { items: '*', key: 'k', value: 'ioc', threat: 't', attributes: { k: { from: 'k' } } };
    const bytes = Buffer.from(text);
    const whole = await collectEntries(readJson(chunked(bytes, Infinity), options));
    assert.equal(whole.entries.length, 3);
    for (let cut = 0; cut <= bytes.length; cut++) {
      const body = (async function* () {
        yield bytes.subarray(0, cut);
        yield bytes.subarray(cut);
      })();
      assert.deepEqual(await collectEntries(readJson(body, options)), whole, `cut at byte ${cut}`);
    }
    assert.deepEqual(await collectEntries(readJson(chunked(bytes, 1), options)), whole, 'a byte at a time');
  });

  it('refuses a malformed document wherever JSON.parse does, at the same line and column when both name one', () => {
    const prng = new Prng(7);
    let refused = 0;
    let placed = 0;
    for (let n = 0; n < 3000; n++) {
      const doc = documentOf(prng, n % 2);
      const at = prng.int(0, doc.text.length - 1);
      const edit = prng.int(0, 3);
      const text =
        edit === 0 ? doc.text.slice(0, at) + doc.text.slice(at + 1)
        : edit === 1 ? doc.text.slice(0, at) + prng.pick(['"', ',', '}', ']', ':', '\\', 'x', '{', '[', '\u0001']) + doc.text.slice(at)
        : edit === 2 ? doc.text.slice(0, at)
        : doc.text.slice(0, at) + prng.pick(['"', ',', '}', ']', 'x']) + doc.text.slice(at + 1);
      if (text.trim() === '') continue;
      let expected: Error | undefined;
      try {
        JSON.parse(text);
      } catch (error) {
        expected = error as Error;
      }
      const where = `document ${n}: ${JSON.stringify(text)}`;
      if (expected === undefined) {
        // Still valid JSON (a key may now be written twice, so the records are not compared).
        try {
          referenceItems(text, doc.items, doc.key);
        } catch {
          assert.throws(() => streamed(text, doc.items, doc.key, randomCuts(prng, text.length)), FeedFormatError, where);
          continue;
        }
        assert.doesNotThrow(() => streamed(text, doc.items, doc.key, randomCuts(prng, text.length)), where);
        continue;
      }
      refused++;
      const error = (() => {
        try {
          streamed(text, doc.items, doc.key, randomCuts(prng, text.length));
        } catch (thrown) {
          return thrown as Error;
        }
        assert.fail(`${where}: read, where JSON.parse says ${expected.message}`);
      })();
      assert.ok(error instanceof FeedFormatError, `${where}: ${error.message}`);
      const point = /^(line \d+ column \d+): not valid JSON: /.exec(error.message)?.[1];
      const reference = referencePoint(text, expected.message);
      if (point === undefined || reference === undefined) continue;
      assert.equal(point, reference, `${where}: ${error.message}, JSON.parse: ${expected.message}`);
      placed++;
    }
    assert.ok(refused > 1000 && placed > 300, `only ${refused} malformed documents, ${placed} placed by both`);
  });
});
