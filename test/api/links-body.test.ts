// toLinksBody: the page fields of a linked-indicators page (docs/interface.md section 5), direct and table-driven.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toLinksBody } from '../../src/api/lookup-views.js';
import { loadConfig } from '../../src/config.js';
import { assertPageAllowed, planNamed } from '../../src/plans/plan-rules.js';
import type { LinkedIndicator } from '../../src/store/contract/records.js';

/** The store's page size in these cases; a page of SIZE rows is exactly full. */
const SIZE = 5;

function row(iid: number): LinkedIndicator {
  return { iid, indicator: `198.51.100.${iid}`, type: 'ip', risk: 'high', stamp_linked: '2025-06-01 00:00:00', properties: { port: iid } };
}

/** `count` rows from iid `from`, as the store returns them (ascending iid). */
const rows = (from: number, count: number) => Array.from({ length: count }, (_, i) => row(from + i));

/** The store answers `more` from one row read beyond the page, so `more` is true only when a row follows. */
const CASES: [condition: string, page: number, rows: number, more: boolean, fields: Record<string, number>][] = [
  ['no links at all, page 0', 0, 0, false, {}],
  ['one link, page 0', 0, 1, false, {}],
  ['all links on page 0, one short of full', 0, SIZE - 1, false, {}],
  ['all links on page 0, exactly full', 0, SIZE, false, {}],
  ['a first page with more after it', 0, SIZE, true, { page_current: 0, page_next: 1 }],
  ['a middle page', 1, SIZE, true, { page_current: 1, page_next: 2 }],
  ['a later middle page', 8, SIZE, true, { page_current: 8, page_next: 9 }],
  ['the last page, partly filled', 2, 3, false, { page_current: 2 }],
  ['the last page, exactly full', 2, SIZE, false, { page_current: 2 }],
  ['the last page holding a single link', 4, 1, false, { page_current: 4 }],
  ['a page just beyond the end', 5, 0, false, { page_current: 5 }],
  ['a page far beyond the end', 70, 0, false, { page_current: 70 }],
  ['page 1 of links that all fit on page 0', 1, 0, false, { page_current: 1 }],
];

describe('toLinksBody', () => {
  for (const [condition, page, count, more, fields] of CASES) {
    const shape = Object.keys(fields).length === 0 ? 'only results' : Object.entries(fields).map(([k, v]) => `${k} ${v}`).join(', ');
    it(`${condition} (page ${page}, ${count} row${count === 1 ? '' : 's'}, more: ${more}) › answers ${shape}`, () => {
      const body = toLinksBody(page, { rows: rows(page * SIZE + 1, count), more, found: true });
      assert.deepEqual(Object.keys(body), [...Object.keys(fields), 'results'], 'fields in the order of docs/interface.md section 5');
      assert.deepEqual({ ...body, results: undefined }, { ...fields, results: undefined });
      assert.deepEqual(body.results.map((r) => r.iid), rows(page * SIZE + 1, count).map((r) => r.iid));
    });
  }

  describe('walking a result page by page', () => {
    for (const total of [1, SIZE - 1, SIZE, SIZE + 1, 2 * SIZE, 2 * SIZE + 1, 23]) {
      it(`over ${total} links in pages of ${SIZE} › follows page_next from page 0 to the last page, each link once`, () => {
        const all = rows(1, total);
        const seen: number[] = [];
        const pageFields: string[] = [];
        let page: number | undefined = 0;
        while (page !== undefined) {
          const body: ReturnType<typeof toLinksBody> = toLinksBody(page, { rows: all.slice(page * SIZE, (page + 1) * SIZE), more: all.length > (page + 1) * SIZE, found: true });
          pageFields.push(Object.keys(body).join(','));
          seen.push(...body.results.map((r) => r.iid));
          page = 'page_next' in body ? body.page_next : undefined;
        }
        const pages = Math.ceil(total / SIZE);
        const expected = pages === 1 ? ['results'] : [...Array<string>(pages - 1).fill('page_current,page_next,results'), 'page_current,results'];
        assert.deepEqual(pageFields, expected);
        assert.deepEqual(seen, all.map((r) => r.iid));
      });
    }
  });

  describe('with a plan page limit', () => {
    const config = loadConfig();
    for (const plan of ['free', 'pro', 'team']) {
      const client = { keyId: `k_${plan}`, planName: plan, plan: planNamed(config, plan)! };
      const last = client.plan.pages - 1;
      it(`the last page the ${plan} plan may read (page ${last}), with more data › still shows page_next ${last + 1}, a page the plan is refused`, () => {
        assertPageAllowed(client, last);
        const body = toLinksBody(last, { rows: rows(last * SIZE + 1, SIZE), more: true, found: true });
        assert.deepEqual({ page_current: body.page_current, page_next: 'page_next' in body ? body.page_next : undefined }, { page_current: last, page_next: last + 1 });
        assert.throws(() => assertPageAllowed(client, last + 1), { name: 'ForbiddenError' });
      });
    }
  });

  describe('each result', () => {
    it('has the fields of docs/interface.md section 2.4 in order, with the properties under summary', () => {
      const source: LinkedIndicator = { iid: 42, indicator: 'evil.example', type: 'domain', risk: 'critical', stamp_linked: '2025-06-02 03:04:05', properties: { hosttype: 'c2', port: 443 } };
      const { results } = toLinksBody(0, { rows: [source], more: false, found: true });
      assert.equal(results.length, 1);
      assert.deepEqual(Object.keys(results[0]!), ['iid', 'indicator', 'type', 'risk', 'stamp_linked', 'summary']);
      assert.deepEqual(results[0], { iid: 42, indicator: 'evil.example', type: 'domain', risk: 'critical', stamp_linked: '2025-06-02 03:04:05', summary: { properties: { hosttype: 'c2', port: 443 } } });
    });

    it('keeps the order the store gave (ascending iid), without re-sorting', () => {
      const given = [row(3), row(10), row(200)];
      assert.deepEqual(toLinksBody(0, { rows: given, more: false, found: true }).results.map((r) => r.iid), [3, 10, 200]);
    });
  });
});
