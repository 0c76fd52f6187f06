"""Replays of how real SIEM/TIP clients poll a TAXII 2.1 collection, in plain HTTP.

Each replay keeps the state its product keeps between polls, and follows the product's own rules for
`next`, `added_after` and the X-TAXII-Date-Added-Last header (see interop/README.md for sources):

- Microsoft Sentinel (TAXII data connector): configured with the API root URL and a collection id;
  Basic auth; the first poll asks for an import window (`added_after` = now - 1 day), follows `next`
  re-sending `added_after`; the next poll asks for what was added since the previous poll started.
- OpenCTI TAXII ingester: `uri/collections/{id}/objects/` (it appends the `/`); the first request of a
  run sends `added_after`, the pages after it only `next`; at the end of a run it keeps
  X-TAXII-Date-Added-Last truncated to milliseconds (`new Date(header).toISOString()`) as the next
  `added_after`. A response without objects changes nothing.
- Elastic (Custom Threat Intelligence, CEL program for TAXII 2.1): the objects URL with
  `added_after` (the cursor, or now - initial interval) and `limit`; pages after it send `next` and
  `limit` only; the cursor is X-TAXII-Date-Added-Last of each response. A body without `objects`
  fails the CEL evaluation (the cursor is kept); an empty `objects` list without the header drops
  the cursor in memory, so the next interval starts again from now - initial interval.
- A person testing with a browser: query-string auth `?key=...&accept=<encoded media type>`,
  browser headers, pastes `next` into the URL; resumes with the last X-TAXII-Date-Added-Last.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import quote, urlencode

import requests

from harness import (
    INDICATORS_COLLECTION,
    TAXII_MEDIA_TYPE,
    TAXII_USER,
    TEST_COLLECTION,
    Checks,
    Settings,
    Snapshot,
    compare_delivery,
    format_micros,
    micros,
    now_micros,
)

DAY_MICROS = 86_400 * 1_000_000
BROWSER_HEADERS = {
    'User-Agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0',
    'Accept': 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
    'Accept-Language': 'en-US,en;q=0.5',
    'Accept-Encoding': 'gzip, deflate',
    'Upgrade-Insecure-Requests': '1',
    'Sec-Fetch-Dest': 'document',
    'Sec-Fetch-Mode': 'navigate',
    'Sec-Fetch-Site': 'none',
}


@dataclass
class Poll:
    """What one poll (one scheduled run of the product) received."""

    delivered: list[tuple[str, str]] = field(default_factory=list)
    requests: int = 0
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


class Replay:
    name = 'replay'

    def __init__(self, settings: Settings, collection_id: str, key: str) -> None:
        self.settings = settings
        self.collection_id = collection_id
        self.key = key
        self.session = requests.Session()
        self.reference: dict[str, int] = {}

    @property
    def label(self) -> str:
        return f'{self.name} on {"Test collection" if self.collection_id == TEST_COLLECTION else "Indicators"}'

    def set_reference(self, snapshot: Snapshot) -> None:
        """date_added of each object, to check the X-TAXII-Date-Added-First/Last of each page."""
        self.reference = {object_id: snapshot.date_added(object_id) for object_id in snapshot.manifest}

    def page(self, poll: Poll, url: str, **kwargs) -> tuple[dict, requests.Response]:
        response = self.session.get(url, **kwargs)
        poll.requests += 1
        if response.status_code != 200:
            raise RuntimeError(f'{self.label}: HTTP {response.status_code} for {response.request.url}: {response.text[:200]}')
        if response.headers.get('Content-Type') != TAXII_MEDIA_TYPE:
            poll.problems.append(f'Content-Type {response.headers.get("Content-Type")!r}')
        body = response.json()
        objects = body.get('objects', [])
        poll.delivered.extend((obj['id'], obj['modified']) for obj in objects)
        first, last = response.headers.get('X-TAXII-Date-Added-First'), response.headers.get('X-TAXII-Date-Added-Last')
        if objects:
            if not first or not last:
                poll.problems.append(f'page {poll.requests}: no X-TAXII-Date-Added headers')
            elif self.reference and objects[0]['id'] in self.reference and objects[-1]['id'] in self.reference:
                if micros(first) != self.reference[objects[0]['id']] or micros(last) != self.reference[objects[-1]['id']]:
                    poll.problems.append(f'page {poll.requests}: date headers {first}..{last} differ from the manifest')
        elif first or last or body != {'more': False}:
            poll.problems.append(f'empty page {poll.requests}: body {body!r:.80}, headers {first}/{last}')
        if body.get('more') is True and not body.get('next'):
            poll.problems.append(f'page {poll.requests}: more without next')
        return body, response


class Sentinel(Replay):
    name = 'Microsoft Sentinel'

    def __init__(self, settings: Settings, collection_id: str, key: str) -> None:
        super().__init__(settings, collection_id, key)
        self.api_root = settings.api_root_url  # what the admin pastes, with the collection id
        self.session.auth = (TAXII_USER, key)
        self.session.headers.update({'Accept': TAXII_MEDIA_TYPE, 'User-Agent': 'Microsoft-Sentinel-TAXII-connector'})
        self.last_poll_started: int | None = None

    def connect(self) -> None:
        """The connector's "Add" button: the API root and the collection must answer."""
        root = self.session.get(self.api_root)
        root.raise_for_status()
        if TAXII_MEDIA_TYPE not in root.json().get('versions', []):
            raise RuntimeError(f'{self.label}: API root versions {root.json().get("versions")}')
        collection = self.session.get(f'{self.api_root}collections/{self.collection_id}/')
        collection.raise_for_status()
        if collection.json().get('can_read') is not True:
            raise RuntimeError(f'{self.label}: collection not readable')

    def poll(self) -> Poll:
        started = now_micros()
        since = self.last_poll_started if self.last_poll_started is not None else started - DAY_MICROS
        added_after = format_micros(since, 3)
        url = f'{self.api_root}collections/{self.collection_id}/objects/'
        poll, params = Poll(), {'added_after': added_after}
        while True:
            body, _ = self.page(poll, url, params=params)
            if not body.get('more'):
                break
            params = {'added_after': added_after, 'next': body['next']}
        self.last_poll_started = started
        return poll


class OpenCTI(Replay):
    name = 'OpenCTI ingester'

    def __init__(self, settings: Settings, collection_id: str, key: str) -> None:
        super().__init__(settings, collection_id, key)
        uri = settings.api_root_url.rstrip('/')  # pasted without the trailing slash; the ingester adds it
        self.url = f'{uri}/collections/{collection_id}/objects/'
        self.session.headers.update({'Accept': TAXII_MEDIA_TYPE, 'User-Agent': 'axios/1.7.9'})
        self.session.auth = (TAXII_USER, key)
        # "Import from date" in the ingester form: a date, sent as Date.toISOString().
        self.added_after_start = format_micros(now_micros() - 30 * DAY_MICROS, 3)
        self.cursor: str | None = None

    def poll(self) -> Poll:
        poll = Poll()
        while True:
            params = {'next': self.cursor} if self.cursor else {'added_after': self.added_after_start}
            body, response = self.page(poll, self.url, params=params)
            if not body.get('objects'):
                break  # a response without objects leaves the state as it was
            if body.get('more') and body.get('next'):
                self.cursor = body['next']
                continue
            self.cursor = None
            last = response.headers.get('X-TAXII-Date-Added-Last')
            # utcDate(header).toISOString(): milliseconds, the microseconds are cut off.
            self.added_after_start = format_micros(micros(last), 3) if last else format_micros(now_micros(), 3)
            break
        return poll


class Elastic(Replay):
    name = 'Elastic Custom TI (CEL)'
    LIMIT = 500
    INITIAL_INTERVAL = 30 * DAY_MICROS  # "720h"

    def __init__(self, settings: Settings, collection_id: str, key: str) -> None:
        super().__init__(settings, collection_id, key)
        self.url = settings.objects_url(collection_id)
        self.session.headers.update({'Accept': TAXII_MEDIA_TYPE, 'User-Agent': 'Elastic-Filebeat/8.17.0 (linux; amd64)'})
        self.session.auth = (TAXII_USER, key)
        self.cursor: str | None = None

    def _query(self, values: dict) -> str:
        # Go's url.Values.Encode: keys sorted, values query-escaped.
        return f'{self.url.rstrip("/")}/?{urlencode(sorted(values.items()))}'

    def poll(self) -> Poll:
        poll = Poll()
        since = self.cursor or format_micros(now_micros() - self.INITIAL_INTERVAL, 0)
        url = self._query({'added_after': since, 'limit': str(self.LIMIT)})
        while True:
            body, response = self.page(poll, url)
            if 'objects' not in body:
                # `body.objects.map(...)` fails: "no such key: objects"; the input logs an error
                # event, marks itself degraded and keeps the last good cursor.
                poll.notes.append('CEL evaluation error: the body has no "objects" (cursor kept)')
                break
            header = response.headers.get('X-TAXII-Date-Added-Last')
            if not body['objects'] and header is None:
                self.cursor = None  # the in-memory cursor is replaced by an empty one
                poll.notes.append('empty page without X-TAXII-Date-Added-Last: cursor dropped')
                break
            self.cursor = header
            if not body.get('next'):
                break
            url = self._query({'next': body['next'], 'limit': str(self.LIMIT)})
        return poll


class BrowserTester(Replay):
    name = 'browser tester (?key=)'

    def __init__(self, settings: Settings, collection_id: str, key: str, limit: int | None = None) -> None:
        super().__init__(settings, collection_id, key)
        self.session.headers.update(BROWSER_HEADERS)
        self.base = f'{settings.objects_url(collection_id)}?key={key}&accept=application%2Ftaxii%2Bjson%3Bversion%3D2.1'
        if limit:
            self.base += f'&limit={limit}'
        self.last_seen: str | None = None

    def poll(self) -> Poll:
        poll = Poll()
        start = self.base + (f'&added_after={self.last_seen}' if self.last_seen else '')
        url = start
        while True:
            body, response = self.page(poll, url)
            self.last_seen = response.headers.get('X-TAXII-Date-Added-Last') or self.last_seen
            if not body.get('more'):
                break
            url = f'{start}&next={quote(body["next"], safe="")}'
        return poll


def create(settings: Settings) -> list[Replay]:
    return [
        Sentinel(settings, INDICATORS_COLLECTION, settings.pro_key),
        OpenCTI(settings, INDICATORS_COLLECTION, settings.pro_key),
        Elastic(settings, INDICATORS_COLLECTION, settings.pro_key),
        BrowserTester(settings, TEST_COLLECTION, settings.free_key),
        BrowserTester(settings, INDICATORS_COLLECTION, settings.pro_key, limit=1000),
    ]


def _report(checks: Checks, replay: Replay, what: str, poll: Poll, expected: dict[str, str]) -> None:
    compare_delivery(checks, f'{replay.label}: {what}', poll.delivered, expected)
    checks.check(f'{replay.label}: {what}: pages well-formed ({poll.requests} requests)', not poll.problems, '; '.join(poll.problems[:3]))


def initial_polls(checks: Checks, replays: list[Replay], snapshots: dict[str, Snapshot]) -> None:
    checks.section('Replays: first poll of each client')
    for replay in replays:
        with checks.guard(f'{replay.label}: first poll'):
            if isinstance(replay, Sentinel):
                replay.connect()
            snapshot = snapshots[replay.collection_id]
            replay.set_reference(snapshot)
            poll = replay.poll()
            _report(checks, replay, 'first poll gets the whole collection', poll, snapshot.versions())
            for note in poll.notes:
                checks.note(f'{replay.label}: {note}')


def resume_polls(checks: Checks, replays: list[Replay], changed: dict[str, dict[str, str]]) -> None:
    """After the change import: each client gets each changed object once, in its new version, then nothing."""
    checks.section('Replays: polls after the change import')
    for replay in replays:
        with checks.guard(f'{replay.label}: polls after the change'):
            replay.reference = {}
            poll = replay.poll()
            _report(checks, replay, 'next poll gets each changed object once, new version', poll, changed[replay.collection_id])
            for note in poll.notes:
                checks.note(f'{replay.label}: {note}')
            idle = [replay.poll(), replay.poll()]
            delivered = [item for p in idle for item in p.delivered]
            problems = [problem for p in idle for problem in p.problems]
            checks.check(f'{replay.label}: two idle polls get nothing', not delivered and not problems,
                         f'{len(delivered)} objects again' + (f'; {problems[0]}' if problems else ''))
            for note in sorted({n for p in idle for n in p.notes}):
                checks.warn(f'{replay.label}: idle poll: {note}')
