// The render worker thread: the same versions as rendering in the thread, errors as rejections.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { inThreadRenderer, RenderThread } from '../../src/store/publish/render-thread.js';
import type { IndicatorRecord } from '../../src/stix/project-records.js';
import { VERSION_COLUMNS, versionRowIids, type RenderJob } from '../../src/store/publish/version-rows.js';

function indicatorRow(iid: number, overrides: Partial<IndicatorRecord> = {}): IndicatorRecord {
  return {
    iid,
    value: `198.51.100.${iid}`,
    type: 'ip',
    risk: 'high',
    stamp_added: '2025-02-01 00:00:00',
    retired: 0,
    attributes: '{"port":["443"]}',
    organization: iid % 2 === 0 ? 'Example Labs' : null,
    ...overrides,
  };
}

const MODIFIED = '2026-01-15T10:00:00.000Z';

describe('render thread', () => {
  const thread = new RenderThread();
  after(() => thread.close());

  it('renders what the calling thread renders, in job order, leaving out records without a STIX form', async () => {
    const jobs: RenderJob[] = [
      { kind: 'indicators', rows: [indicatorRow(1), indicatorRow(2), indicatorRow(3, { type: 'registry' }), indicatorRow(4, { value: 'not-an-ip' })], modified: MODIFIED },
      { kind: 'links', rows: [{ iid: 1, tid: 7, stamp_linked: '2025-06-01 00:00:00', category: 'botnet' }], modified: MODIFIED },
    ];
    const local = inThreadRenderer();
    const [first, second] = await Promise.all(jobs.map((job) => thread.render(job)));
    assert.deepEqual(first, await local.render(jobs[0]!));
    assert.deepEqual(second, await local.render(jobs[1]!));
    assert.deepEqual(versionRowIids(first!), [1, 2]);
    assert.equal(second!.count, 1);
    assert.equal(second!.values[VERSION_COLUMNS.indexOf('type')], 'relationship');
  });

  it('rejects a job that fails to render, and goes on with the next', async () => {
    const broken: RenderJob = { kind: 'indicators', rows: [indicatorRow(5, { attributes: '{not json' })], modified: MODIFIED };
    await assert.rejects(thread.render(broken), /rendering STIX objects failed/);
    const next = await thread.render({ kind: 'indicators', rows: [indicatorRow(6)], modified: MODIFIED });
    assert.equal(next.count, 1);
  });

  it('rejects jobs once closed', async () => {
    const closed = new RenderThread();
    await closed.close();
    await assert.rejects(closed.render({ kind: 'indicators', rows: [], modified: MODIFIED }), /closed|stopped/);
  });
});
