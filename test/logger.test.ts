// Log lines: one JSON object each, the same from every path; written together (once per turn of the event loop, or after a delay), in order, never lost on flush.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { batchedWriter, createLogger } from '../src/logger.js';

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

  it('with a delay, writes the lines of several turns in one call, once the delay has passed', async () => {
    const writes: string[] = [];
    const log = batchedWriter((text) => writes.push(text), 64 * 1024, 30);
    log.write('a\n');
    await new Promise((resolve) => setImmediate(resolve));
    log.write('b\n');
    assert.deepEqual(writes, []);
    await new Promise((resolve) => setTimeout(resolve, 60));
    assert.deepEqual(writes, ['a\nb\n']);
    // Flushed early (before exit, or before a line printed directly): the timer goes with it.
    log.write('c\n');
    log.flush();
    assert.deepEqual(writes, ['a\nb\n', 'c\n']);
    await new Promise((resolve) => setTimeout(resolve, 60));
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
