"""Every object the gateway serves passes the OASIS STIX 2.1 validator (stix2-validator) with zero errors."""
from __future__ import annotations

import json
import multiprocessing
import re
import time
import uuid
from collections import Counter

import stix2
from stix2validator import ValidationOptions, validate_instance

import fast_validator
import sightings
from harness import Checks, Snapshot

BUNDLE_SIZE = 2000
_CODE = re.compile(r'\{(\d{3})\}')
_QUOTED = re.compile(r"'([^']*)'")

# What each warning kind means for this gateway (printed with the counts).
EXPLANATIONS = {
    '103': 'ids are UUIDv5 on purpose, so that re-exports never mint new objects (docs/stix-mapping.md)',
    '401': 'x_ custom properties (x_risk, x_threatgate_*): STIX 2.1 still allows them (section 11.1); the '
           'validator prefers a property extension',
    '302': 'external reference with a url and no hashes: a threat\'s wiki page or an ATT&CK technique\'s page, '
           'which have no stable hash',
}

_TECHNIQUE_ID = re.compile(r'^T\d{4}(\.\d{3})?$')
_PHASE_NAME = re.compile(r'^[a-z0-9]+(-[a-z0-9]+)*$')
# STIX 2.1 section 4: the SDO types whose relationship tables list `uses` to an attack-pattern.
_USES_ATTACK_PATTERN = {'campaign', 'intrusion-set', 'malware', 'threat-actor'}


def _options() -> ValidationOptions:
    return ValidationOptions(version='2.1')


def warning_kind(message: str) -> str:
    """`indicator--...: {401} Custom property 'x_risk' should ...` -> `{401} x_risk`; other codes by code."""
    code = _CODE.search(message)
    if not code:
        return message.split(': ', 1)[-1][:80]
    if code.group(1) == '401':
        quoted = _QUOTED.search(message)
        return f'{{401}} custom property {quoted.group(1) if quoted else "?"}'
    return f'{{{code.group(1)}}}'


def validate_chunk(objects: list[dict]) -> tuple[list[str], dict[str, int], dict[str, str]]:
    """Validates objects as one bundle; returns (errors, warning counts by kind, one example per kind)."""
    bundle = {'type': 'bundle', 'id': f'bundle--{uuid.uuid4()}', 'objects': objects}
    result = validate_instance(bundle, _options())
    errors = [str(error) for error in result.errors]
    kinds: Counter[str] = Counter()
    examples: dict[str, str] = {}
    for warning in result.warnings:
        message = str(warning)
        kind = warning_kind(message)
        kinds[kind] += 1
        examples.setdefault(kind, message)
    return errors, dict(kinds), examples


def _worker_init() -> None:
    fast_validator.install()


class Validation:
    """Validation in worker processes, fed while the suite goes on: the HTTP phases leave a core idle."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.started = time.monotonic()
        self.pool = multiprocessing.get_context('fork').Pool(workers, initializer=_worker_init)
        self.objects: dict[str, dict] = {}
        self.pending: list = []

    def add(self, objects: list[dict]) -> None:
        """Queues the objects not queued yet (by id: the same id is checked to be the same content)."""
        new = [obj for obj in objects if obj['id'] not in self.objects]
        self.objects.update((obj['id'], obj) for obj in new)
        chunks = [new[i:i + BUNDLE_SIZE] for i in range(0, len(new), BUNDLE_SIZE)]
        if chunks:
            self.pending.append(self.pool.map_async(validate_chunk, chunks))

    def result(self) -> tuple[list[str], Counter, dict[str, str], float]:
        """Waits for every chunk; returns (errors, warning counts by kind, examples, seconds since start)."""
        errors: list[str] = []
        kinds: Counter[str] = Counter()
        examples: dict[str, str] = {}
        try:
            for pending in self.pending:
                for chunk_errors, chunk_kinds, chunk_examples in pending.get():
                    errors.extend(chunk_errors)
                    kinds.update(chunk_kinds)
                    for kind, example in chunk_examples.items():
                        examples.setdefault(kind, example)
        finally:
            self.pool.close()
            self.pool.join()
        return errors, kinds, examples, time.monotonic() - self.started


def validate_all(objects: list[dict], workers: int) -> tuple[list[str], Counter, dict[str, str]]:
    validation = Validation(workers)
    validation.add(objects)
    errors, kinds, examples, _ = validation.result()
    return errors, kinds, examples


def check_accelerator(checks: Checks, sample: list[dict]) -> None:
    """The cached validator gives the stock validator's exact results (run here in-process, stock first)."""
    fast_validator.uninstall()
    stock_result = validate_chunk(sample)
    fast_validator.install()
    try:
        fast_result = validate_chunk(sample)
    finally:
        fast_validator.uninstall()
    checks.check(f'validator: cached schema loading gives the stock results on {len(sample)} objects',
                 (stock_result[0], stock_result[1]) == (fast_result[0], fast_result[1]))


def _sample(objects: list[dict]) -> list[dict]:
    """Some objects of every type, plus some retired (valid_until) indicators."""
    by_type: dict[str, list[dict]] = {}
    for obj in objects:
        by_type.setdefault(obj['type'], []).append(obj)
    sample = [obj for group in by_type.values() for obj in group[:40]]
    sample += [obj for obj in objects if 'valid_until' in obj][:20]
    return sample


def distinct_objects(checks: Checks, snapshots: dict[str, Snapshot]) -> list[dict]:
    """One copy of each served object; the same id must be served with the same content everywhere."""
    seen: dict[str, dict] = {}
    conflicts = []
    for snapshot in snapshots.values():
        for obj in snapshot.objects:
            previous = seen.setdefault(obj['id'], obj)
            if previous is not obj and previous != obj:
                conflicts.append(obj['id'])
    checks.check('every id is served with one content across collections', not conflicts, f'{len(conflicts)} differ {conflicts[:2]}')
    return list(seen.values())


def report(checks: Checks, label: str, objects: list[dict], errors: list[str], kinds: Counter, examples: dict[str, str], timing: str = '') -> None:
    checks.check(f'OASIS stix2-validator 3.2.0: {label}: {len(objects)} objects, zero errors', not errors,
                 timing if not errors else f'{len(errors)} errors, e.g. {errors[:3]}')
    total = sum(kinds.values())
    print(f'   warnings: {total} in {len(kinds)} kinds', flush=True)
    explained: set[str] = set()
    for kind, count in sorted(kinds.items(), key=lambda item: (-item[1], item[0])):
        code = _CODE.search(kind)
        why = EXPLANATIONS.get(code.group(1)) if code else None
        shown = f'  ({why})' if why and code.group(1) not in explained else ''
        if code:
            explained.add(code.group(1))
        print(f'   {count:>8}  {kind}{shown}', flush=True)
    for kind, example in sorted(examples.items()):
        print(f'   e.g. {example[:220]}', flush=True)


def check_with_stix2(checks: Checks, label: str, objects: list[dict]) -> None:
    """The Python STIX library (stix2) parses each object too: what Python consumers of the feed use."""
    failures = []
    for obj in objects:
        try:
            stix2.parse(json.loads(json.dumps(obj)), allow_custom=True, version='2.1')
        except Exception as error:  # noqa: BLE001
            failures.append(f'{obj["id"]}: {type(error).__name__}: {str(error)[:120]}')
    checks.check(f'stix2 3.0.1 parses {label} ({len(objects)} objects)', not failures, '; '.join(failures[:2]))


def check_attack_patterns(checks: Checks, objects: list[dict]) -> None:
    """The demo threats' ATT&CK techniques (docs/stix-mapping.md): one attack-pattern each, referenced to
    attack.mitre.org, and a relationship from each citing threat: `uses` where STIX 2.1 lists it, else `related-to`."""
    by_id = {obj['id']: obj for obj in objects}
    patterns = [obj for obj in objects if obj['type'] == 'attack-pattern' and 'x_threatgate_tid' not in obj]
    problems = []
    techniques = set()
    for obj in patterns:
        refs = obj.get('external_references') or [{}]
        ref = refs[0]
        technique = ref.get('external_id', '')
        techniques.add(technique)
        url = 'https://attack.mitre.org/techniques/' + technique.replace('.', '/')
        if ref.get('source_name') != 'mitre-attack' or not _TECHNIQUE_ID.match(technique) or ref.get('url') != url:
            problems.append(f'{obj["id"]}: reference {ref}')
        for phase in obj.get('kill_chain_phases', []):
            if phase.get('kill_chain_name') != 'mitre-attack' or not _PHASE_NAME.match(phase.get('phase_name', '')):
                problems.append(f'{obj["id"]}: phase {phase}')
    checks.check(f'{len(patterns)} ATT&CK attack-patterns, one per technique, referenced to attack.mitre.org',
                 len(patterns) > 0 and len(techniques) == len(patterns) and not problems, '; '.join(problems[:3]))
    pattern_ids = {obj['id'] for obj in patterns}
    relationships = [obj for obj in objects if obj['type'] == 'relationship' and obj['target_ref'] in pattern_ids]
    wrong = []
    for rel in relationships:
        source = by_id.get(rel['source_ref'])
        expected = 'uses' if rel['source_ref'].split('--')[0] in _USES_ATTACK_PATTERN else 'related-to'
        if source is None or rel['relationship_type'] != expected:
            wrong.append(f'{rel["id"]}: {rel["relationship_type"]} from {rel["source_ref"]} (served: {source is not None})')
    cited = {rel['target_ref'] for rel in relationships if not rel.get('revoked')}
    checks.check(f'{len(relationships)} threat-to-technique relationships: uses where STIX 2.1 section 4 allows it, '
                 'else related-to, from served threats; every attack-pattern cited',
                 len(relationships) > 0 and not wrong and cited == pattern_ids, '; '.join(wrong[:3]))


def check_sightings(checks: Checks, snapshots: dict[str, Snapshot]) -> None:
    """The sightings `threatgate seen` recorded (sightings.py), then each sighting object on its own: the stock
    validator reports no error, and stix2 reads it, with no custom content allowed, as a `Sighting`."""
    objects = sightings.check(checks, snapshots)
    if not objects:
        return
    errors, kinds, _ = validate_chunk(objects)
    checks.check(f'OASIS stix2-validator 3.2.0: the {len(objects)} sighting objects, zero errors', not errors,
                 f'{len(errors)} errors, e.g. {errors[:3]}' if errors else f'warnings {dict(kinds)}')
    wrong = []
    for obj in objects:
        try:
            parsed = stix2.parse(json.loads(json.dumps(obj)), allow_custom=False, version='2.1')
            if not isinstance(parsed, stix2.v21.Sighting):
                wrong.append(f'{obj["id"]}: read as {type(parsed).__name__}')
        except Exception as error:  # noqa: BLE001
            wrong.append(f'{obj["id"]}: {type(error).__name__}: {str(error)[:120]}')
    checks.check(f'stix2 3.0.1 parses each of the {len(objects)} sighting objects into a stix2.v21.Sighting', not wrong, '; '.join(wrong[:2]))


def start(workers: int) -> Validation:
    """Starts the worker processes; the reference client feeds them each collection as soon as it has read it."""
    return Validation(workers)


def finish(checks: Checks, validation: Validation, snapshots: dict[str, Snapshot]) -> Counter:
    checks.section('STIX 2.1 validity of everything the gateway serves')
    validation.add(distinct_objects(checks, snapshots))
    objects = list(validation.objects.values())
    print(f'   {len(objects)} distinct objects, validated in bundles of {BUNDLE_SIZE} by {validation.workers} processes', flush=True)
    errors, kinds, examples, seconds = validation.result()
    report(checks, 'all collections', objects, errors, kinds, examples, f'done {seconds:.0f} s after the first objects were queued')
    check_attack_patterns(checks, objects)
    check_accelerator(checks, _sample(objects))
    # stix2 takes ~2 ms an object: the small collections whole, and a sample of each type.
    small = {obj['id']: obj for snapshot in snapshots.values() if len(snapshot.objects) <= 5000 for obj in snapshot.objects}
    small.update((obj['id'], obj) for obj in _sample(objects))
    check_with_stix2(checks, 'the Test collection and a sample of each type', list(small.values()))
    check_sightings(checks, snapshots)
    return kinds
