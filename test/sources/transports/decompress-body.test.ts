// What a body is (its first bytes) and what its labels say it is (Content-Type, the URL's path), table by table.
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { describe, it } from 'node:test';
import { compressionOf, labelledCompression } from '../../../src/sources/transports/decompress-body.js';
import { zipArchive } from './zip-archive.js';

describe('compressionOf', () => {
  const cases: [string, Buffer, string | undefined][] = [
    ['gzip data', gzipSync('192.0.2.1\n'), 'gzip'],
    ['a zip archive', zipArchive([{ name: 'a.txt', data: 'a' }]), 'zip'],
    ['an empty zip archive (its end record alone)', zipArchive([]), 'zip'],
    ['a text list', Buffer.from('192.0.2.1\n'), undefined],
    ['a text list starting with "PK"', Buffer.from('PKI.example.com\n'), undefined],
    ['one byte of gzip\'s two', Buffer.from([0x1f]), undefined],
    ['nothing', Buffer.alloc(0), undefined],
  ];
  for (const [what, head, expected] of cases) {
    it(`${what}: ${expected ?? 'not compressed'}`, () => assert.equal(compressionOf(head), expected));
  }
});

describe('labelledCompression', () => {
  const cases: [string, string, Record<string, string>, string | undefined][] = [
    ['Content-Type application/gzip', 'https://example.com/feed', { 'content-type': 'application/gzip' }, 'gzip:its Content-Type (application/gzip)'],
    ['Content-Type application/x-gzip with a parameter', 'https://example.com/feed', { 'content-type': 'Application/X-Gzip; charset=binary' }, 'gzip:its Content-Type (application/x-gzip)'],
    ['Content-Type application/zip', 'https://example.com/export/csv/full/', { 'content-type': 'application/zip' }, 'zip:its Content-Type (application/zip)'],
    ['Content-Type application/x-zip-compressed', 'https://example.com/f', { 'content-type': 'application/x-zip-compressed' }, 'zip:its Content-Type (application/x-zip-compressed)'],
    ['a .gz path', 'https://example.com/lists/all.txt.GZ?key=x', {}, 'gzip:its path (.gz)'],
    ['a .zip path', 'file:///var/feeds/full.csv.zip', {}, 'zip:its path (.zip)'],
    ['a .gz in the query string only', 'https://example.com/get?file=all.gz', {}, undefined],
    ['text/plain at a plain path', 'https://example.com/list.txt', { 'content-type': 'text/plain' }, undefined],
  ];
  for (const [what, url, headers, expected] of cases) {
    it(`${what}: ${expected ?? 'no label'}`, () => {
      const labelled = labelledCompression(url, new Headers(headers));
      assert.equal(labelled && `${labelled.compression}:${labelled.label}`, expected);
    });
  }
});
