// The docs' tables of facts agree with the files they describe: each runtime dependency of package.json
// has its line in README's "Dependencies" (STYLE section 12), and docs/lookup-api.md's "Plans and rate
// limits" gives config/default.json's limits and the TAXII access its plan gate grants (any valid key
// reads the free test collection).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

/** The rows of the first table after `heading` in the file at `path`, as trimmed cells, without its header and rule. */
function tableAfter(path: string, heading: string): string[][] {
  const text = read(path);
  const start = text.indexOf(`\n${heading}\n`);
  assert.ok(start >= 0, `${path} has no "${heading}"`);
  const lines = text.slice(start).split('\n');
  const first = lines.findIndex((line) => line.startsWith('|'));
  const rows: string[][] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line.slice(1, -1).split(/(?<!\\)\|/).map((cell) => cell.trim()));
  }
  return rows;
}

describe('the docs\' tables', () => {
  it('README names every runtime dependency of package.json in its Dependencies table, with why', () => {
    const { dependencies } = JSON.parse(read('package.json')) as { dependencies: Record<string, string> };
    const rows = tableAfter('README.md', '## Dependencies');
    // A row names one package or several (`typescript, tsx, @types/*`), maybe with a version (`express 5`).
    const named = new Map(rows.flatMap(([names, why]) => names!.split(',').map((name) => [name.trim().split(' ')[0]!, why ?? ''] as const)));
    for (const name of Object.keys(dependencies)) {
      assert.ok(named.has(name), `${name} has no line in README's Dependencies table`);
      assert.ok(named.get(name)!.length > 0, `${name} has no reason`);
    }
  });

  it('docs/lookup-api.md gives in its plans table the limits of config/default.json and the TAXII access the plan gate grants', () => {
    const { plans } = JSON.parse(read('config/default.json')) as { plans: Record<string, { perSecond: number; perDay: number; perMonth: number; pages: number; taxii: string }> };
    const rows = tableAfter('docs/lookup-api.md', '## Plans and rate limits');
    const number = (cell: string) => Number(cell.replace(/,/g, ''));
    assert.deepEqual(rows.map((row) => row[0]!.split(' ')[0]), Object.keys(plans));
    for (const [cell, perSecond, perDay, perMonth, pages, taxii] of rows) {
      const name = cell!.split(' ')[0]!;
      const plan = plans[name]!;
      assert.deepEqual([perSecond, perDay, perMonth, pages].map((c) => number(c!)), [plan.perSecond, plan.perDay, plan.perMonth, plan.pages], name);
      // `all` reads every collection; every other plan's valid key still reads the free test
      // collection (taxii/plan-gate.ts); without a key there is no TAXII at all.
      const expected = name === 'anonymous' ? /^no$/ : plan.taxii === 'all' ? /^yes$/ : /^test collection only( \(configurable\))?$/;
      assert.match(taxii!, expected, `${name}: taxii ${plan.taxii}`);
    }
  });
});
