// ttps items without an ATT&CK technique id: kept in the threat, left out of STIX, counted in what `threatgate import` prints.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../helpers/pull-harness.js';

const THREAT = {
  record: 'threat', tid: 1, threat: 'Vexorat', category: 'rat', risk: 'high',
  ttps: [{ id: 'T1566.001', tactic: 'initial-access' }, { id: 'TA0001' }, { name: 'Spearphishing, no id' }, { id: 't1105' }],
};

describe('threatgate import › a file whose threats cite ttps without a technique id', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'threatgate-ttps-'));
    writeFileSync(join(dir, 'threats.ndjson'), `${JSON.stringify(THREAT)}\n${JSON.stringify({ ...THREAT, tid: 2, threat: 'Other', ttps: [{}] })}\n`);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('imports them, exits 0 and says how many items it skipped', async () => {
    const run = await runCli(['import', join(dir, 'threats.ndjson'), '--db', join(dir, 'store.sqlite')]);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /changed 2 threats, 0 feeds, 0 indicators, 0 links; skipped 3 ttps items without an ATT&CK technique id \(not in STIX\)\n$/);
  });

  it('says nothing of ttps when every item has a technique id', async () => {
    writeFileSync(join(dir, 'clean.ndjson'), `${JSON.stringify({ ...THREAT, tid: 3, threat: 'Clean', ttps: [{ id: 'T1105' }] })}\n`);
    const run = await runCli(['import', join(dir, 'clean.ndjson'), '--db', join(dir, 'store.sqlite')]);
    assert.equal(run.status, 0, run.stderr);
    assert.doesNotMatch(run.stdout, /skipped/);
  });
});
