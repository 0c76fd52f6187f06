// The tables commands print: one line of fields per row whatever a cell holds, aligned on a terminal.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cell, tableLines } from '../../src/cli/table-output.js';

describe('cell', () => {
  it('gives a missing or empty value as -', () => {
    assert.deepEqual([cell(null), cell(undefined), cell('')], ['-', '-', '-']);
  });
  it('turns tabs, line breaks and other control characters into one space', () => {
    assert.equal(cell('a\tb\r\nc\x1b[31md\x85e'), 'a b c [31md e');
  });
});

describe('tableLines', () => {
  const rows = [[1, 'Example DROP', null], [12, 'X', 'HTTP status 500\nbody']];
  it('separates fields by tabs when not aligned', () => {
    assert.deepEqual(tableLines(['fid', 'feed', 'error'], rows, false), ['fid\tfeed\terror', '1\tExample DROP\t-', '12\tX\tHTTP status 500 body']);
  });
  it('pads every column but the last to its widest cell when aligned', () => {
    assert.deepEqual(tableLines(['fid', 'feed', 'error'], rows, true), [
      'fid  feed          error',
      '1    Example DROP  -',
      '12   X             HTTP status 500 body',
    ]);
  });
});
