"""The OASIS reference TAXII client (taxii2-client) end to end: discovery, API root, collections, paged reads."""
from __future__ import annotations

import logging

import requests
from taxii2client.v21 import ApiRoot, Collection, Server, as_pages

from harness import (
    INDICATORS_COLLECTION,
    STIX_MEDIA_TYPE,
    TAXII_MEDIA_TYPE,
    TAXII_USER,
    TEST_COLLECTION,
    Checks,
    Settings,
    Snapshot,
    duplicates,
    micros,
)

# Page sizes per collection. None means "no limit": as_pages(per_request=0) sends no `limit` at first,
# then the size of the first page. The Indicators collection (~87k objects) is walked in full with 1000
# and with the server default (100); the small sizes, and one above the server's cap of 1000, on the
# Test collection, where they are cheap.
PAGE_SIZES = {
    TEST_COLLECTION: [1000, None, 7, 50, 2000],
    INDICATORS_COLLECTION: [1000, None],
}
DEFAULT_LIMIT = 100
MAX_LIMIT = 1000
# get_object/object_versions for every object would be ~175k requests on the big collection: the Test
# collection is checked whole; on Indicators every object that is neither an indicator nor a
# relationship, and every SAMPLE_EVERY-th object of those.
SAMPLE_EVERY = 250


def _status_of(error: Exception) -> int | None:
    response = getattr(error, 'response', None)
    return response.status_code if response is not None else None


def _taxii_error_ok(error: Exception, status: int) -> bool:
    """The refusal is an HTTP error whose body is a TAXII error resource with the TAXII media type."""
    response = getattr(error, 'response', None)
    if response is None or response.status_code != status:
        return False
    try:
        body = response.json()
    except ValueError:
        return False
    return response.headers.get('Content-Type') == TAXII_MEDIA_TYPE and body.get('http_status') == str(status) and bool(body.get('title'))


def expect_refusal(checks: Checks, name: str, action, status: int = 403) -> None:
    try:
        action()
    except requests.HTTPError as error:
        checks.check(name, _taxii_error_ok(error, status), f'HTTP {_status_of(error)} with a TAXII error resource')
        return
    except Exception as error:  # noqa: BLE001
        checks.check(name, False, f'raised {type(error).__name__} instead of an HTTP {status}: {error}')
        return
    checks.check(name, False, f'no error: expected HTTP {status}')


def walk_objects(collection: Collection, per_request: int | None, **filters) -> tuple[list[dict], list[dict]]:
    """All pages of Get Objects through taxii2client's as_pages; returns (envelopes, objects)."""
    envelopes = list(as_pages(collection.get_objects, per_request=per_request or 0, **filters))
    objects = [obj for envelope in envelopes for obj in envelope.get('objects', [])]
    return envelopes, objects


def walk_manifest(collection: Collection, per_request: int | None, **filters) -> list[dict]:
    envelopes = list(as_pages(collection.get_manifest, per_request=per_request or 0, **filters))
    return [entry for envelope in envelopes for entry in envelope.get('objects', [])]


def _page_shape_problems(envelopes: list[dict], per_request: int | None) -> list[str]:
    """Every page but the last is full and says more/next; the last says more: false."""
    size = min(per_request, MAX_LIMIT) if per_request else DEFAULT_LIMIT
    problems = []
    for index, envelope in enumerate(envelopes):
        count = len(envelope.get('objects', []))
        last = index == len(envelopes) - 1
        if not last and (count != size or envelope.get('more') is not True or not envelope.get('next')):
            problems.append(f'page {index + 1}: {count} objects, more={envelope.get("more")}, next={"yes" if envelope.get("next") else "no"}')
        if last and (envelope.get('more') is not False or 'next' in envelope or not 0 < count <= size):
            problems.append(f'last page {index + 1}: {count} objects, more={envelope.get("more")}, next={"next" in envelope}')
    return problems


def check_discovery(checks: Checks, settings: Settings) -> Server:
    server = Server(settings.discovery_url, user=TAXII_USER, password=settings.pro_key)
    checks.check('Server: discovery has a title', bool(server.title), repr(server.title))
    roots = [root.url for root in server.api_roots]
    checks.equal('Server: one API root, resolved from the relative URL', roots, [settings.api_root_url])
    checks.check('Server: default API root is that root', server.default is not None and server.default.url == settings.api_root_url)
    root = server.api_roots[0]
    checks.equal('ApiRoot: versions', root.versions, [TAXII_MEDIA_TYPE])
    checks.check('ApiRoot: max_content_length is a positive integer', isinstance(root.max_content_length, int) and root.max_content_length > 0, str(root.max_content_length))
    return server


def check_collections(checks: Checks, root: ApiRoot) -> list[Collection]:
    collections = root.collections
    ids = [c.id for c in collections]
    checks.equal('ApiRoot: the two configured collections', sorted(ids), sorted([TEST_COLLECTION, INDICATORS_COLLECTION]))
    for c in collections:
        checks.check(
            f'Collection {c.title}: readable, read-only, STIX 2.1',
            c.can_read is True and c.can_write is False and c.media_types == [STIX_MEDIA_TYPE],
            f'can_read={c.can_read} can_write={c.can_write} media_types={c.media_types}',
        )
    return [c for c in collections if c.can_read]


def read_collection(checks: Checks, collection: Collection, on_reference=None) -> Snapshot:
    """Walks one collection with each page size; the first walk is the reference the others must match."""
    name = collection.title
    snapshot = Snapshot(collection.id)
    reference_ids: list[str] | None = None
    for per_request in PAGE_SIZES.get(collection.id, [1000, None]):
        label = f'per_request={per_request}' if per_request else 'no page size'
        envelopes, objects = walk_objects(collection, per_request)
        ids = [obj['id'] for obj in objects]
        repeated = duplicates(ids)
        checks.check(f'{name}: as_pages(get_objects, {label}) gives every object once', bool(ids) and not repeated,
                     f'{len(ids)} objects in {len(envelopes)} pages' + (f', {len(repeated)} repeated' if repeated else ''))
        problems = _page_shape_problems(envelopes, per_request)
        checks.check(f'{name}: {label}: full pages with more/next, last page more=false', not problems, '; '.join(problems[:3]))
        if reference_ids is None:
            reference_ids = ids
            snapshot.objects = objects
            if on_reference:
                on_reference(objects)
        else:
            checks.check(f'{name}: {label}: same objects in the same order as per_request=1000', ids == reference_ids,
                         f'{len(ids)} vs {len(reference_ids)}')
    return snapshot


def check_manifest(checks: Checks, collection: Collection, snapshot: Snapshot) -> None:
    name = collection.title
    entries = walk_manifest(collection, 1000)
    snapshot.manifest = {entry['id']: entry for entry in entries}
    ids = [entry['id'] for entry in entries]
    checks.equal(f'{name}: as_pages(get_manifest) lists the objects in the same order', ids, [obj['id'] for obj in snapshot.objects])
    by_id = snapshot.by_id
    wrong_version = [e['id'] for e in entries if by_id.get(e['id'], {}).get('modified') != e.get('version')]
    checks.check(f'{name}: manifest version = object modified', not wrong_version, f'{len(wrong_version)} differ {wrong_version[:2]}')
    wrong_media = [e['id'] for e in entries if e.get('media_type') != STIX_MEDIA_TYPE]
    checks.check(f'{name}: manifest media_type is STIX 2.1', not wrong_media, f'{len(wrong_media)} differ')
    stamps = [micros(e['date_added']) for e in entries]
    increasing = all(a < b for a, b in zip(stamps, stamps[1:]))
    checks.check(f'{name}: manifest date_added strictly increasing (6 digits)', increasing and all(len(e['date_added']) == 27 for e in entries))
    if collection.id == TEST_COLLECTION:
        small = walk_manifest(collection, 7)
        checks.equal(f'{name}: as_pages(get_manifest, per_request=7) agrees', [e['id'] for e in small], ids)
    first_page = collection.get_manifest()
    checks.equal(f'{name}: get_manifest() first page = first {DEFAULT_LIMIT} entries', first_page.get('objects'), entries[:DEFAULT_LIMIT])


def _sample(snapshot: Snapshot) -> list[dict]:
    if snapshot.collection_id == TEST_COLLECTION:
        return snapshot.objects
    chosen = [obj for i, obj in enumerate(snapshot.objects)
              if obj['type'] not in ('indicator', 'relationship') or i % SAMPLE_EVERY == 0]
    return chosen + [snapshot.objects[-1]]


def check_single_objects(checks: Checks, collection: Collection, snapshot: Snapshot) -> None:
    name = collection.title
    sample = _sample(snapshot)
    bad_object, bad_versions, bad_by_version = [], [], []
    for obj in sample:
        envelope = collection.get_object(obj['id'])
        if envelope.get('objects') != [obj] or envelope.get('more') is not False:
            bad_object.append(obj['id'])
        versions = collection.object_versions(obj['id'])
        if versions.get('versions') != [obj['modified']] or versions.get('more') is not False:
            bad_versions.append(obj['id'])
        if obj['type'] not in ('indicator', 'relationship'):
            pinned = collection.get_object(obj['id'], version=obj['modified'])
            if pinned.get('objects') != [obj]:
                bad_by_version.append(obj['id'])
    checks.check(f'{name}: get_object returns the listed object ({len(sample)} objects)', not bad_object, f'{len(bad_object)} differ {bad_object[:2]}')
    checks.check(f'{name}: object_versions lists exactly its modified ({len(sample)} objects)', not bad_versions, f'{len(bad_versions)} differ {bad_versions[:2]}')
    checks.check(f'{name}: get_object with version=modified returns it', not bad_by_version, f'{len(bad_by_version)} differ')


def check_filters(checks: Checks, collection: Collection, snapshot: Snapshot) -> None:
    name = collection.title
    identities = [obj['id'] for obj in snapshot.objects if obj['type'] == 'identity']
    _, found = walk_objects(collection, 1000, type='identity')
    checks.equal(f'{name}: get_objects(type=identity) gives the identities', [obj['id'] for obj in found], identities)
    target = snapshot.objects[len(snapshot.objects) // 2]
    entries = collection.get_manifest(id=target['id']).get('objects', [])
    checks.equal(f'{name}: get_manifest(id=...) gives that one entry', [e['id'] for e in entries], [target['id']])
    cut = max(0, len(snapshot.objects) - 150)
    after = snapshot.manifest[snapshot.objects[cut]['id']]['date_added']
    _, newer = walk_objects(collection, 50, added_after=after)
    checks.equal(f'{name}: added_after=<date_added of object {cut + 1}> gives exactly the objects after it',
                 [obj['id'] for obj in newer], [obj['id'] for obj in snapshot.objects[cut + 1:]])


def check_free_plan(checks: Checks, settings: Settings, snapshots: dict[str, Snapshot]) -> None:
    checks.section('taxii2-client with a Free-plan key')
    free = settings.free_key
    expect_refusal(checks, 'Free: Server discovery raises 403', lambda: Server(settings.discovery_url, user=TAXII_USER, password=free).title)
    expect_refusal(checks, 'Free: API root information raises 403', lambda: ApiRoot(settings.api_root_url, user=TAXII_USER, password=free).title)
    expect_refusal(checks, 'Free: Get Collections raises 403', lambda: ApiRoot(settings.api_root_url, user=TAXII_USER, password=free).refresh_collections())
    indicators = Collection(settings.collection_url(INDICATORS_COLLECTION), user=TAXII_USER, password=free)
    expect_refusal(checks, 'Free: Indicators collection information raises 403', lambda: indicators.title)
    bare = Collection(settings.collection_url(INDICATORS_COLLECTION), user=TAXII_USER, password=free,
                      collection_info={'id': INDICATORS_COLLECTION, 'title': 'Indicators', 'can_read': True, 'can_write': False})
    expect_refusal(checks, 'Free: Indicators get_objects raises 403', lambda: bare.get_objects())
    expect_refusal(checks, 'Free: Indicators get_manifest raises 403', lambda: bare.get_manifest())
    expect_refusal(checks, 'Free: Indicators get_object raises 403', lambda: bare.get_object(snapshots[INDICATORS_COLLECTION].objects[0]['id']))

    test = Collection(settings.collection_url(TEST_COLLECTION), user=TAXII_USER, password=free)
    checks.check('Free: Test collection information', test.title == 'Test collection' and test.can_read is True, repr(test.title))
    reference = snapshots[TEST_COLLECTION]
    _, objects = walk_objects(test, 50)
    checks.equal('Free: Test collection as_pages(get_objects, 50) = what Pro reads', objects, reference.objects)
    entries = walk_manifest(test, 50)
    checks.equal('Free: Test collection as_pages(get_manifest, 50) = what Pro reads', entries, list(reference.manifest.values()))
    first = reference.objects[0]
    checks.equal('Free: Test collection get_object', test.get_object(first['id']).get('objects'), [first])
    checks.equal('Free: Test collection object_versions', test.object_versions(first['id']).get('versions'), [first['modified']])


def run(checks: Checks, settings: Settings, on_reference=None) -> dict[str, Snapshot]:
    """Reads everything once with the reference client; the snapshots are the truth later phases compare with.

    on_reference(objects) is called with each collection's objects as soon as they are read.
    """
    # as_pages logs a warning each time the server's page is smaller than asked (the last page, the cap):
    # expected here, and checked through the page shapes instead.
    logging.getLogger('taxii2client').setLevel(logging.ERROR)
    checks.section('taxii2-client end to end (Pro key)')
    server = check_discovery(checks, settings)
    collections = check_collections(checks, server.api_roots[0])
    snapshots: dict[str, Snapshot] = {}
    for collection in collections:
        checks.section(f'taxii2-client: {collection.title}')
        snapshot = read_collection(checks, collection, on_reference)
        check_manifest(checks, collection, snapshot)
        check_single_objects(checks, collection, snapshot)
        check_filters(checks, collection, snapshot)
        snapshots[collection.id] = snapshot
    test, everything = snapshots.get(TEST_COLLECTION), snapshots.get(INDICATORS_COLLECTION)
    if test and everything:
        inside = everything.by_id
        checks.check('Test collection objects are the same objects as in Indicators',
                     all(inside.get(obj['id']) == obj for obj in test.objects), f'{len(test.objects)} objects')
        check_free_plan(checks, settings, snapshots)
    return snapshots
