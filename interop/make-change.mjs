// Writes the interop suite's second import: 20 demo indicators with changed risk, attributes or retirement.
//
// Usage: node interop/make-change.mjs CHANGE.json EXPECTED.json DB   (after `npm run build`)
// CHANGE.json is an import document (docs/getting-started.md, "Import format"); EXPECTED.json tells the suite what changed.
// DB is the store `threatgate demo` filled: the changed indicators keep the stamps stored there.
import { writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const DEMO_MODULE = new URL('../dist/demo/generate-demo.js', import.meta.url);
const STORE_MODULE = new URL('../dist/store/open-store.js', import.meta.url);
/** Any fixed instant: the demo generated at it is compared with the stored one to find the loaded demo's now. */
const PROBE_NOW = Date.UTC(2026, 0, 1);

/** Risks the changed indicators move to (always one that differs from the old risk). */
const RISKS = ['low', 'medium', 'high', 'critical'];

/** 5 of the first 100 indicators (the free Test collection samples those) and 15 spread over the rest. */
function pickIndexes(count) {
  const inTestSample = [3, 17, 42, 66, 91];
  const spread = Array.from({ length: 15 }, (_, k) => 100 + Math.floor(((k + 0.5) * (count - 100)) / 15));
  return [...inTestSample, ...spread];
}

function changeOne(indicator, k) {
  const others = RISKS.filter((r) => r !== indicator.risk);
  const risk = others[k % others.length];
  const changed = { ...indicator, risk, retired: false, attributes: { ...indicator.attributes } };
  const expected = { iid: indicator.iid, risk, retired: false, portAdded: null };
  if (k % 4 === 1) {
    const ports = changed.attributes.port ?? [];
    changed.attributes.port = [...ports.filter((p) => p !== '8443'), '8443'];
    expected.portAdded = '8443';
  }
  if (k === 6 || k === 13) {
    changed.retired = true;
    expected.retired = true;
  }
  return { changed, expected };
}

/** Milliseconds since the epoch of a `YYYY-MM-DD HH:MM:SS` (UTC) stamp. */
const msOf = (stamp) => Date.parse(`${stamp.replace(' ', 'T')}Z`);

/**
 * The `now` that `threatgate demo` counted the stamps in `db` back from (its clock's, when it
 * ran). Every demo stamp moves with `now`, so threat 1's stored stamp_added lies as far from the
 * one generated at PROBE_NOW as the loaded demo's now lies from PROBE_NOW. The change must keep
 * the stored stamps: a STIX indicator's `created` is its stamp_added, and no version may change it.
 */
async function loadedDemoNow(generateDemo, db) {
  const { openStore } = await import(STORE_MODULE.href);
  const store = await openStore(db, { collections: [] });
  try {
    const stored = (await store.findThreat(1))?.stamp_added;
    if (!stored) throw new Error(`${db} holds no demo threat 1 with a stamp_added`);
    const probed = generateDemo({ indicators: 1, now: PROBE_NOW }).threats[0].stamp_added;
    return PROBE_NOW + msOf(stored) - msOf(probed);
  } finally {
    await store.close();
  }
}

export async function makeChange(changeFile, expectedFile, db) {
  const { generateDemo } = await import(DEMO_MODULE.href);
  const demo = generateDemo({ now: await loadedDemoNow(generateDemo, db) });
  const sorted = [...demo.indicators].sort((a, b) => a.iid - b.iid);
  const indicators = [];
  const expected = [];
  pickIndexes(sorted.length).forEach((index, k) => {
    const { changed, expected: e } = changeOne(sorted[index], k);
    indicators.push(changed);
    expected.push(e);
  });
  writeFileSync(changeFile, JSON.stringify({ threats: [], feeds: [], indicators, links: [] }));
  writeFileSync(expectedFile, JSON.stringify({ indicators: expected }, null, 2));
  return expected;
}

if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) {
  const [changeFile, expectedFile, db] = process.argv.slice(2);
  if (!changeFile || !expectedFile || !db) {
    process.stderr.write(`usage: node ${fileURLToPath(import.meta.url)} CHANGE.json EXPECTED.json DB\n`);
    process.exit(2);
  }
  const expected = await makeChange(changeFile, expectedFile, db);
  process.stdout.write(`wrote ${expected.length} changed indicators to ${changeFile}\n`);
}
