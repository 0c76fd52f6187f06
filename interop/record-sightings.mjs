// Records the interop suite's sightings on the demo store through the built CLI (`threatgate seen`,
// docs/observations.md), as an operator would, and writes what TAXII must then publish for them
// (docs/stix-mapping.md, "Sightings") for suite/sightings.py to hold the served objects to.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';

const STORE_MODULE = new URL('../dist/store/open-store.js', import.meta.url);
/** The free Test collection holds the first 100 indicators by iid (docs/taxii.md, collections). */
const TEST_SAMPLE = 100;
const HOUR_MS = 3_600_000;
/** A URL whose spelling survives defanging and refanging unchanged (no quotes, no escapes). */
const PLAIN_URL = /^https?:\/\/[a-z0-9.-]+(\/[a-z0-9._-]+)*\/?$/i;

/** `2026-03-02T08:00:00Z`: RFC 3339 in UTC, to the second. */
const rfc3339 = (ms) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
/** `2026-03-02 08:00:00`: the store's own form (UTC). */
const stampOf = (ms) => rfc3339(ms).replace('T', ' ').replace('Z', '');
/** The same instant written with a +02:00 offset, as a reporter east of UTC pastes it. */
function withOffset(ms) {
  return `${rfc3339(ms + 2 * HOUR_MS).slice(0, -1)}+02:00`;
}
/** A domain or URL as reports quote it, defanged (docs/lookup-api.md, "Values as analysts paste them"): `hxxps://evil[.]example/x`. */
function defang(value) {
  const url = /^(https?)(:\/\/)([^/]+)(.*)$/i.exec(value);
  if (!url) return value.replaceAll('.', '[.]');
  return `${url[1].replace(/tt/i, 'xx')}${url[2]}${url[3].replaceAll('.', '[.]')}${url[4]}`;
}

/**
 * The demo indicators and threat the sightings are for, read from the store `threatgate demo`
 * filled: a domain in the Test collection's sample, an address and a URL outside it, and an active
 * threat. None is one the change import touches (`exclude`), which checks that nothing else changes.
 */
async function pickTargets(db, exclude) {
  const { openStore } = await import(STORE_MODULE.href);
  const store = await openStore(db, { collections: [] });
  try {
    const wanted = [
      { role: 'domain', fits: (i) => i.type === 'domain' && i.iid <= TEST_SAMPLE },
      { role: 'address', fits: (i) => i.type === 'ip' && i.iid > TEST_SAMPLE },
      { role: 'url', fits: (i) => i.type === 'url' && i.iid > TEST_SAMPLE && PLAIN_URL.test(i.indicator) },
    ];
    const found = {};
    for (let iid = 1; iid <= 10 * TEST_SAMPLE && Object.keys(found).length < wanted.length; iid += 1) {
      const indicator = exclude.has(iid) ? undefined : await store.findIndicator(iid);
      if (!indicator || indicator.retired) continue;
      const want = wanted.find((w) => !found[w.role] && w.fits(indicator));
      if (want) found[want.role] = indicator;
    }
    const missing = wanted.filter((w) => !found[w.role]).map((w) => w.role);
    if (missing.length > 0) throw new Error(`the demo store holds no active indicator for the sightings' ${missing.join(', ')}`);
    let threat;
    for (let tid = 1; tid <= 100 && !threat; tid += 1) {
      const candidate = await store.findThreat(tid);
      if (candidate && !candidate.retired) threat = candidate;
    }
    if (!threat) throw new Error('the demo store holds no active threat to sight');
    return { ...found, threat };
  } finally {
    await store.close();
  }
}

/** Runs one `threatgate seen`; checks that its line names the target, the count and the time asked for. */
function seen(cli, db, config, env, args, expected) {
  const result = spawnSync(process.execPath, [cli, 'seen', ...args, '--db', db, '--config', config], { encoding: 'utf8', env });
  const line = result.stdout.trim();
  if (result.status !== 0) throw new Error(`threatgate seen ${args.join(' ')} exited with ${result.status}: ${result.stderr.trim()}`);
  const match = /^recorded sighting \d+ of (indicator|threat) (\d+) .*: count (\d+), seen (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)$/.exec(line);
  const got = match && { kind: match[1], id: Number(match[2]), count: Number(match[3]), seen: match[4] };
  const want = { kind: expected.kind, id: expected.id, count: expected.count, seen: stampOf(expected.at) };
  if (JSON.stringify(got) !== JSON.stringify(want)) throw new Error(`threatgate seen ${args.join(' ')} printed ${JSON.stringify(line)}; expected ${JSON.stringify(want)}`);
}

/**
 * Records six sightings and writes `expectedFile`: for each sighted indicator its iid, value and
 * sightings (time in RFC 3339 UTC, count, note), and for the sighted threat its tid and time.
 * The domain is seen three times, out of order in time and spelled three ways, so that `count`,
 * `first_seen` and `last_seen` must come from all of them; the address carries a note, which the
 * published object must not (docs/stix-mapping.md, "Sightings"); the threat is seen last, at the
 * latest time, so that its SDO's `last_seen` is that time.
 */
export async function recordSightings({ cli, db, config, env, expectedFile, exclude }) {
  const { domain, address, url, threat } = await pickTargets(db, exclude);
  const now = Math.floor(Date.now() / 1000) * 1000;
  const plan = [
    { target: domain, value: domain.indicator, at: now - 72 * HOUR_MS, atText: rfc3339, count: 2, note: null },
    { target: domain, value: defang(domain.indicator), at: now - 24 * HOUR_MS, atText: stampOf, count: 5, note: null },
    { target: domain, value: domain.indicator.toUpperCase(), at: now - 48 * HOUR_MS, atText: withOffset, count: 1, note: null },
    { target: address, value: address.indicator, at: now - 6 * HOUR_MS, atText: rfc3339, count: 1, note: 'EDR alert 4711: beacon to this address' },
    { target: url, value: defang(url.indicator), at: now - 12 * HOUR_MS, atText: rfc3339, count: 3, note: null },
  ];
  const indicators = new Map();
  for (const s of plan) {
    const args = [s.value, '--at', s.atText(s.at), '--count', String(s.count), ...(s.note ? ['--note', s.note] : [])];
    seen(cli, db, config, env, args, { kind: 'indicator', id: s.target.iid, count: s.count, at: s.at });
    const entry = indicators.get(s.target.iid) ?? { iid: s.target.iid, value: s.target.indicator, type: s.target.type, sightings: [] };
    entry.sightings.push({ at: rfc3339(s.at), count: s.count, note: s.note });
    indicators.set(s.target.iid, entry);
  }
  const threatSighting = { tid: threat.tid, name: threat.threat, at: rfc3339(now), note: 'seen in the EDR console' };
  seen(cli, db, config, env, ['--threat', String(threat.tid), '--at', threatSighting.at, '--note', threatSighting.note], { kind: 'threat', id: threat.tid, count: 1, at: now });
  const expected = { indicators: [...indicators.values()], threats: [threatSighting] };
  writeFileSync(expectedFile, JSON.stringify(expected, null, 2));
  return expected;
}
