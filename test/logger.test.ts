// Log lines: one JSON object each, the same from every path; written together once per turn of the event loop, in order, never lost on flush.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { batchedWriter, createLogger, fieldsText } from '../src/logger.js';

describe('batchedWriter', () => {
  it('writes the lines of one turn in one call, in order', async () => {
    const writes: string[] = [];
    const log = batchedWriter((text) => writes.push(text));
    log.write('a\n');
    log.write('b\n');
    assert.deepEqual(writes, []);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(writes, ['a\nb\n']);
    log.write('c\n');
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(writes, ['a\nb\n', 'c\n']);
  });

  it('writes at once past the size bound, and on flush', () => {
    const writes: string[] = [];
    const log = batchedWriter((text) => writes.push(text), 10);
    log.write('12345\n');
    log.write('67890\n');
    assert.deepEqual(writes, ['12345\n67890\n']);
    log.write('x\n');
    log.flush();
    assert.deepEqual(writes, ['12345\n67890\n', 'x\n']);
    log.flush();
    assert.equal(writes.length, 2);
  });
});

describe('createLogger', () => {
  const lineOf = (message: string, fields?: Record<string, unknown>) => {
    const lines: string[] = [];
    createLogger('info', (line) => lines.push(line)).info(message, fields);
    assert.equal(lines.length, 1);
    assert.ok(lines[0]!.endsWith('\n'));
    return lines[0]!;
  };

  it('writes time, level, pid, message, then the fields, as one JSON object per line', () => {
    const fields = { method: 'GET', url: '/api/threat.php?tid=1&key=[redacted]', status: 200, ms: 0.25, client: null, ip: '::1', gone: undefined, note: 'quote " and \u2028 and ünïcode' };
    const line = lineOf('request "1"', fields);
    const parsed = JSON.parse(line) as Record<string, unknown>;
    assert.deepEqual(Object.keys(parsed), ['time', 'level', 'pid', 'msg', 'method', 'url', 'status', 'ms', 'client', 'ip', 'note']);
    assert.deepEqual(parsed, { time: parsed.time, level: 'info', pid: process.pid, msg: 'request "1"', ...JSON.parse(JSON.stringify(fields)) });
    assert.match(String(parsed.time), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.deepEqual(Object.keys(JSON.parse(lineOf('plain'))), ['time', 'level', 'pid', 'msg']);
    assert.deepEqual(Object.keys(JSON.parse(lineOf('empty', {}))), ['time', 'level', 'pid', 'msg']);
  });

  it('writes the fields exactly as JSON.stringify writes them, whatever their values', () => {
    class Point {
      constructor(readonly x = 1) {}
    }
    const inherited = Object.create({ fromPrototype: 1 }) as Record<string, unknown>;
    inherited.own = 2;
    const odd: Record<string, unknown>[] = [
      {},
      { 2: 'b', 1: 'a', z: 0, 'a b': 1, 'quo"te': 'x', [Symbol('s')]: 'left out' },
      { s: 'tab\there', n: 'new\nline', q: '"', b: '\\', c: '\u0001', d: '\u007f', e: 'é ü 日本', f: '\u2028\u2029', g: '\ud800 lone', h: '😀' },
      { nan: NaN, inf: Infinity, minf: -Infinity, negZero: -0, big: 1e21, small: 5e-7, int: 42, frac: 0.1 + 0.2 },
      { t: true, f: false, n: null, u: undefined, fn: () => 1, sym: Symbol('x') },
      { date: new Date(0), list: [1, 'a', undefined, null], nested: { a: { b: [{}] } }, point: new Point(), json: { toJSON: () => 'mine' } },
      { toJSON: () => ({ replaced: true }) },
      new Point(3) as unknown as Record<string, unknown>,
      inherited,
      Object.assign(Object.create(null) as Record<string, unknown>, { a: 1 }),
    ];
    const rest = (fields: Record<string, unknown>) => {
      const all = JSON.stringify(fields);
      return all.length > 2 ? `,${all.slice(1, -1)}` : '';
    };
    for (const fields of odd) assert.equal(fieldsText(fields), rest(fields), JSON.stringify(fields));
    // Generated strings: every character from the first 256 code points, and some beyond.
    const chars = [...Array.from({ length: 256 }, (_, i) => String.fromCharCode(i)), '\u2028', '\ud83d', '\ude00', '\uffff'];
    let seed = 7;
    const next = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    for (let i = 0; i < 2_000; i++) {
      const text = Array.from({ length: next(12) }, () => chars[next(chars.length)]).join('');
      const fields = { [text]: text, plain: `p${i}`, ms: next(100_000) / 1000 };
      assert.equal(fieldsText(fields), rest(fields));
    }
  });

  it('lets a field named like a line key replace it, with no duplicate keys', () => {
    const line = lineOf('shutting down', { msg: 'from the field', pid: 7 });
    assert.equal((line.match(/"msg"/g) ?? []).length, 1);
    assert.deepEqual(JSON.parse(line), { time: JSON.parse(line).time, level: 'info', pid: 7, msg: 'from the field' });
  });

  it('drops lines below its level', () => {
    const lines: string[] = [];
    const logger = createLogger('warn', (line) => lines.push(line));
    logger.info('no');
    logger.warn('yes', { n: 1 });
    assert.equal(lines.length, 1);
    assert.equal(JSON.parse(lines[0]!).level, 'warn');
  });
});
