"""The STIX `sighting` objects the gateway publishes for what run-interop.mjs recorded with `threatgate seen`
(docs/stix-mapping.md, "Sightings"), held to those sightings in every collection the reference client read."""
from __future__ import annotations

import json
import os
from collections import Counter

from harness import INDICATORS_COLLECTION, Checks, Snapshot, micros

#: The file record-sightings.mjs writes: each sighted indicator (iid, value, its sightings' times, counts
#: and notes) and each sighted threat (tid, time, note).
EXPECTED_ENV = 'TG_SIGHTINGS_EXPECTED'
#: STIX 2.1 section 5.2: `count` is at most 999,999,999; the gateway holds a larger sum there.
MAX_COUNT = 999_999_999
#: docs/stix-mapping.md, "Threats": the threat SDOs that carry `last_seen` (the threat's stamp_seen).
LAST_SEEN_TYPES = {'malware', 'intrusion-set', 'campaign', 'infrastructure'}


def load_expected() -> dict | None:
    path = os.environ.get(EXPECTED_ENV)
    if not path:
        return None
    with open(path, encoding='utf-8') as file:
        return json.load(file)


def _indicators_by_iid(snapshot: Snapshot) -> dict[int, dict]:
    return {obj['x_threatgate_iid']: obj for obj in snapshot.objects if obj['type'] == 'indicator' and 'x_threatgate_iid' in obj}


def check_collection(checks: Checks, snapshot: Snapshot, expected: dict) -> None:
    name = snapshot.name
    indicators = _indicators_by_iid(snapshot)
    iid_of = {obj['id']: iid for iid, obj in indicators.items()}
    sighted = {entry['iid']: entry for entry in expected['indicators'] if entry['iid'] in indicators}
    sightings = [obj for obj in snapshot.objects if obj['type'] == 'sighting']
    if snapshot.collection_id == INDICATORS_COLLECTION:
        missing = [entry['iid'] for entry in expected['indicators'] if entry['iid'] not in indicators]
        checks.check(f'{name}: holds the indicator of every sighted value', not missing, f'iids {missing} not served' if missing else '')

    refs = Counter(obj.get('sighting_of_ref') for obj in sightings)
    want = Counter(indicators[iid]['id'] for iid in sighted)
    checks.check(f'{name}: one sighting per sighted indicator it holds, none for any other object',
                 bool(sighted) and refs == want,
                 f'{len(sightings)} sightings for iids {sorted(sighted)}' if refs == want else f'sighting_of_ref {dict(refs)}, expected {dict(want)}')
    dangling = [obj['id'] for obj in sightings if obj.get('sighting_of_ref') not in iid_of]
    checks.check(f'{name}: each sighting_of_ref names an indicator object of the same collection', bool(sightings) and not dangling, f'{dangling[:2]} point elsewhere' if dangling else '')

    identities = {obj['id'] for obj in snapshot.objects if obj['type'] == 'identity'}
    by_iid = {iid_of[obj['sighting_of_ref']]: obj for obj in sightings if obj.get('sighting_of_ref') in iid_of}
    wrong_count, wrong_period, wrong_refs = [], [], []
    for iid, entry in sorted(sighted.items()):
        obj = by_iid.get(iid)
        if obj is None:
            continue
        total = min(sum(s['count'] for s in entry['sightings']), MAX_COUNT)
        if obj.get('count') != total:
            wrong_count.append(f'{entry["value"]}: count {obj.get("count")}, sightings add up to {total}')
        times = [micros(s['at']) for s in entry['sightings']]
        first, last = obj.get('first_seen'), obj.get('last_seen')
        if not (first and last and micros(first) == min(times) and micros(last) == max(times) and micros(first) <= micros(last)):
            wrong_period.append(f'{entry["value"]}: {first} to {last}, seen {min(s["at"] for s in entry["sightings"])} to {max(s["at"] for s in entry["sightings"])}')
        named = obj.get('where_sighted_refs') or []
        if not named or any(ref not in identities for ref in named) or obj.get('created_by_ref') not in identities:
            wrong_refs.append(f'{entry["value"]}: where_sighted_refs {named}, created_by_ref {obj.get("created_by_ref")}')
    several = max((len(entry['sightings']) for entry in sighted.values()), default=0)
    checks.check(f'{name}: each sighting\'s count is the sum of its indicator\'s sighting counts', bool(by_iid) and not wrong_count,
                 '; '.join(wrong_count[:2]) or f'up to {several} sightings of one indicator summed')
    checks.check(f'{name}: first_seen <= last_seen, the earliest and latest --at given', bool(by_iid) and not wrong_period, '; '.join(wrong_period[:2]))
    checks.check(f'{name}: where_sighted_refs and created_by_ref name an identity the collection holds', bool(by_iid) and not wrong_refs, '; '.join(wrong_refs[:2]))

    # Who reported a sighting and their note stay in the service (docs/stix-mapping.md, "Sightings").
    notes = [s['note'] for entry in expected['indicators'] for s in entry['sightings'] if s['note']]
    notes += [t['note'] for t in expected['threats'] if t.get('note')]
    leaked = [obj['id'] for obj in snapshot.objects if _holds_any(json.dumps(obj, ensure_ascii=False), notes)]
    checks.check(f'{name}: no served object carries a sighting\'s note', bool(notes) and not leaked, f'{leaked[:2]}' if leaked else f'{len(notes)} notes')


def _holds_any(text: str, notes: list[str]) -> bool:
    return any(note in text for note in notes)


def check_threats(checks: Checks, snapshots: dict[str, Snapshot], expected: dict) -> None:
    """A threat's sighting makes no sighting object; it moves the threat's `last_seen` (docs/stix-mapping.md, "Sightings")."""
    for threat in expected['threats']:
        held = [(snapshot, obj) for snapshot in snapshots.values() for obj in snapshot.objects if obj.get('x_threatgate_tid') == threat['tid']]
        if not checks.check(f'threat {threat["tid"]} ({threat["name"]}): served', bool(held)):
            continue
        ids = {obj['id'] for _, obj in held}
        of_threat = [obj['id'] for snapshot in snapshots.values() for obj in snapshot.objects if obj['type'] == 'sighting' and obj.get('sighting_of_ref') in ids]
        checks.check(f'threat {threat["tid"]} ({threat["name"]}): its sighting makes no sighting object', not of_threat, f'{of_threat[:2]}' if of_threat else '')
        wrong = [f'{snapshot.name}: {obj["type"]} last_seen {obj.get("last_seen")}' for snapshot, obj in held
                 if obj['type'] not in LAST_SEEN_TYPES or not obj.get('last_seen') or micros(obj['last_seen']) != micros(threat['at'])]
        checks.check(f'threat {threat["tid"]} ({threat["name"]}): last_seen is the --at of its sighting in every collection',
                     not wrong, '; '.join(wrong[:2]) or f'{threat["at"]} in {len(held)} collections')


def check(checks: Checks, snapshots: dict[str, Snapshot]) -> list[dict]:
    """The sighting checks of every collection; returns the distinct sighting objects served."""
    checks.section('STIX sightings of what `threatgate seen` recorded')
    expected = load_expected()
    if not checks.check('run-interop.mjs recorded sightings with threatgate seen', bool(expected and expected['indicators']),
                        f'{EXPECTED_ENV} names no file of them' if not expected else
                        ', '.join(f'{e["type"]} {e["value"]} x{len(e["sightings"])}' for e in expected['indicators'])):
        return []
    for snapshot in snapshots.values():
        check_collection(checks, snapshot, expected)
    check_threats(checks, snapshots, expected)
    return list({obj['id']: obj for snapshot in snapshots.values() for obj in snapshot.objects if obj['type'] == 'sighting'}.values())
