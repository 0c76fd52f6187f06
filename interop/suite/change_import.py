"""The second import, while the gateway runs: 20 indicators change; only their new versions may move."""
from __future__ import annotations

import json
import subprocess
import time

from taxii2client.v21 import Collection

import stix_validity
from client_e2e import walk_manifest, walk_objects
from harness import INDICATORS_COLLECTION, TAXII_USER, Checks, Settings, Snapshot, micros


def run_import(checks: Checks, settings: Settings) -> None:
    started = time.monotonic()
    result = subprocess.run(settings.change_command, capture_output=True, text=True, timeout=600)
    output = (result.stdout + result.stderr).strip()
    checks.check('change import (threatgate import) exits 0 while the server runs', result.returncode == 0,
                 f'{time.monotonic() - started:.1f} s: {output[-300:]}')
    checks.check('change import reports 20 changed indicators and nothing else',
                 'changed 0 threats, 0 feeds, 20 indicators, 0 links' in output, output[-200:])


def _expected_ids(settings: Settings, snapshot: Snapshot) -> dict[str, dict]:
    """STIX id of each changed indicator (from x_threatgate_iid in the first read) -> what changed."""
    with open(settings.change_expected_file) as handle:
        expected = {item['iid']: item for item in json.load(handle)['indicators']}
    return {obj['id']: expected[obj['x_threatgate_iid']] for obj in snapshot.objects
            if obj['type'] == 'indicator' and obj.get('x_threatgate_iid') in expected}


def _content_problems(new: dict, old: dict, change: dict) -> list[str]:
    problems = []
    if new.get('x_risk') != change['risk']:
        problems.append(f'x_risk {new.get("x_risk")} != {change["risk"]}')
    if change['retired'] != ('valid_until' in new):
        problems.append(f'valid_until {"missing" if change["retired"] else "present"}')
    if change['portAdded'] and change['portAdded'] not in new.get('x_threatgate_attributes', {}).get('port', []):
        problems.append('port not in x_threatgate_attributes')
    if micros(new['modified']) <= micros(old['modified']):
        problems.append(f'modified {new["modified"]} not after {old["modified"]}')
    for unchanged in ('id', 'type', 'created', 'pattern', 'spec_version'):
        if new.get(unchanged) != old.get(unchanged):
            problems.append(f'{unchanged} changed')
    return problems


def check_collection(checks: Checks, settings: Settings, snapshot: Snapshot, expected: dict[str, dict]) -> dict[str, str]:
    """Re-reads the manifest; returns id -> new version of what changed in this collection."""
    name = snapshot.name
    collection = Collection(settings.collection_url(snapshot.collection_id), user=TAXII_USER, password=settings.pro_key)
    entries = walk_manifest(collection, 1000)
    after = {entry['id']: entry for entry in entries}
    before = snapshot.manifest
    checks.equal(f'{name}: the same object ids after the change import', sorted(after), sorted(before))
    changed = {object_id: entry['version'] for object_id, entry in after.items()
               if object_id in before and entry['version'] != before[object_id]['version']}
    wanted = {object_id for object_id in expected if object_id in before}
    checks.equal(f'{name}: exactly the changed indicators have new versions ({len(wanted)})', sorted(changed), sorted(wanted))
    newest_before = snapshot.newest_date_added()
    moved = [object_id for object_id in changed if micros(after[object_id]['date_added']) <= newest_before]
    unmoved = [object_id for object_id, entry in after.items()
               if object_id not in changed and entry['date_added'] != before[object_id]['date_added']]
    checks.check(f'{name}: new versions got date_added after everything before; others kept theirs',
                 not moved and not unmoved, f'{len(moved)} not moved, {len(unmoved)} moved without a change')
    tail = [entry['id'] for entry in entries[len(entries) - len(changed):]] if changed else []
    checks.equal(f'{name}: new versions come last in the manifest', sorted(tail), sorted(changed))

    old_objects = snapshot.by_id
    problems, new_objects = [], []
    for object_id in sorted(changed):
        envelope = collection.get_object(object_id)
        new = (envelope.get('objects') or [{}])[0]
        new_objects.append(new)
        if envelope.get('more') is not False or len(envelope.get('objects', [])) != 1:
            problems.append(f'{object_id}: get_object gave {len(envelope.get("objects", []))} objects')
        problems += [f'{object_id}: {p}' for p in _content_problems(new, old_objects[object_id], expected[object_id])]
        if new.get('modified') != changed[object_id]:
            problems.append(f'{object_id}: get_object modified {new.get("modified")} != manifest {changed[object_id]}')
        versions = collection.object_versions(object_id).get('versions')
        if versions != [changed[object_id]]:
            problems.append(f'{object_id}: versions {versions}')
    checks.check(f'{name}: get_object/object_versions show the new versions with the imported changes', not problems, '; '.join(problems[:3]))
    _, delivered = walk_objects(collection, 1000, added_after=before[snapshot.objects[-1]['id']]['date_added'])
    checks.equal(f'{name}: taxii2-client added_after=<last date_added before> gives the new versions',
                 sorted((o['id'], o['modified']) for o in delivered), sorted(changed.items()))
    if new_objects:
        errors, kinds, examples = stix_validity.validate_all(new_objects, 1)
        stix_validity.report(checks, f'{name}: new versions', new_objects, errors, kinds, examples)
        stix_validity.check_with_stix2(checks, f'{name}: new versions', new_objects)
    return changed


def run(checks: Checks, settings: Settings, snapshots: dict[str, Snapshot]) -> dict[str, dict[str, str]]:
    checks.section('Change import while the gateway runs')
    run_import(checks, settings)
    expected = _expected_ids(settings, snapshots[INDICATORS_COLLECTION])
    checks.equal('the 20 changed indicators are all served in Indicators', len(expected), 20)
    changed: dict[str, dict[str, str]] = {}
    for collection_id, snapshot in snapshots.items():
        with checks.guard(f'{snapshot.name}: after the change import'):
            changed[collection_id] = check_collection(checks, settings, snapshot, expected)
    return changed
