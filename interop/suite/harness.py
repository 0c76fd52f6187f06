"""Shared pieces of the interop suite: settings from the environment, the check counter, TAXII helpers."""
from __future__ import annotations

import json
import os
import re
import sys
import traceback
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone

TAXII_MEDIA_TYPE = 'application/taxii+json;version=2.1'
STIX_MEDIA_TYPE = 'application/stix+json;version=2.1'
TEST_COLLECTION = '981c4916-ebb2-4567-aece-54ae970c4230'
INDICATORS_COLLECTION = 'a5cffbfe-c0ff-4842-a235-cb3a7a040a37'
COLLECTION_NAMES = {TEST_COLLECTION: 'Test collection', INDICATORS_COLLECTION: 'Indicators'}
TAXII_USER = 'taxii2'


@dataclass(frozen=True)
class Settings:
    """What run-interop.mjs hands over: where the gateway listens, keys, and how to run the change import."""

    base_url: str
    #: A second gateway on the same store with the default plans, as `npm start` serves the demo (README example).
    demo_base_url: str
    pro_key: str
    free_key: str
    change_command: list[str]
    change_expected_file: str
    workers: int

    @property
    def discovery_url(self) -> str:
        return f'{self.base_url}/taxii2/'

    @property
    def api_root_url(self) -> str:
        return f'{self.base_url}/taxii2/api/'

    def collection_url(self, collection_id: str) -> str:
        return f'{self.api_root_url}collections/{collection_id}/'

    def objects_url(self, collection_id: str) -> str:
        return f'{self.collection_url(collection_id)}objects/'

    def manifest_url(self, collection_id: str) -> str:
        return f'{self.collection_url(collection_id)}manifest/'


def settings_from_env() -> Settings:
    missing = [name for name in ('TG_BASE_URL', 'TG_DEMO_BASE_URL', 'TG_PRO_KEY', 'TG_FREE_KEY', 'TG_CHANGE_COMMAND', 'TG_CHANGE_EXPECTED') if not os.environ.get(name)]
    if missing:
        raise SystemExit(f'interop suite: missing environment {", ".join(missing)} (run it through interop/run-interop.mjs)')
    return Settings(
        base_url=os.environ['TG_BASE_URL'].rstrip('/'),
        demo_base_url=os.environ['TG_DEMO_BASE_URL'].rstrip('/'),
        pro_key=os.environ['TG_PRO_KEY'],
        free_key=os.environ['TG_FREE_KEY'],
        change_command=json.loads(os.environ['TG_CHANGE_COMMAND']),
        change_expected_file=os.environ['TG_CHANGE_EXPECTED'],
        workers=max(1, int(os.environ.get('TG_WORKERS') or os.cpu_count() or 1)),
    )


class Checks:
    """Counts checks; every check prints one PASS/FAIL line with a short reason."""

    def __init__(self) -> None:
        self.passed = 0
        self.failed = 0
        self.failures: list[str] = []

    def section(self, title: str) -> None:
        print(f'\n== {title}', flush=True)

    def check(self, name: str, ok: bool, detail: str = '') -> bool:
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            self.failures.append(name)
        suffix = f' - {detail}' if detail else ''
        print(f'{"PASS" if ok else "FAIL"} {name}{suffix}', flush=True)
        return ok

    def equal(self, name: str, actual, expected, detail: str = '') -> bool:
        if actual == expected:
            return self.check(name, True, detail)
        return self.check(name, False, f'expected {_short(expected)}, got {_short(actual)}')

    def note(self, text: str) -> None:
        print(f'NOTE {text}', flush=True)

    def warn(self, text: str) -> None:
        print(f'WARN {text}', flush=True)

    @contextmanager
    def guard(self, name: str):
        """Turns an exception inside the block into one failed check, so the suite goes on."""
        try:
            yield
        except Exception as error:  # noqa: BLE001 - any failure is reported as a check
            self.check(name, False, f'raised {describe_error(error)}')
            traceback.print_exc(limit=3, file=sys.stdout)


def _short(value, limit: int = 300) -> str:
    text = repr(value)
    return text if len(text) <= limit else f'{text[:limit]}...'


def describe_error(error: Exception) -> str:
    response = getattr(error, 'response', None)
    if response is not None:
        return f'{type(error).__name__} HTTP {response.status_code}: {response.text[:200]}'
    return f'{type(error).__name__}: {str(error)[:300]}'


_TIMESTAMP = re.compile(r'^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?Z$')


def micros(timestamp: str) -> int:
    """RFC 3339 UTC timestamp (0-9 fractional digits) to integer microseconds since the epoch."""
    match = _TIMESTAMP.match(timestamp)
    if not match:
        raise ValueError(f'not an RFC 3339 UTC timestamp: {timestamp!r}')
    y, mo, d, h, mi, s, fraction = match.groups()
    whole = datetime(int(y), int(mo), int(d), int(h), int(mi), int(s), tzinfo=timezone.utc)
    return int(whole.timestamp()) * 1_000_000 + int((fraction or '').ljust(6, '0')[:6])


def format_micros(value: int, digits: int = 6) -> str:
    whole = datetime.fromtimestamp(value // 1_000_000, tz=timezone.utc).strftime('%Y-%m-%dT%H:%M:%S')
    if digits == 0:
        return f'{whole}Z'
    return f'{whole}.{str(value % 1_000_000).rjust(6, "0")[:digits]}Z'


def now_micros() -> int:
    return int(datetime.now(tz=timezone.utc).timestamp() * 1_000_000)


@dataclass
class Snapshot:
    """One collection as the reference client saw it: objects in served order and their manifest entries."""

    collection_id: str
    objects: list[dict] = field(default_factory=list)
    manifest: dict[str, dict] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return COLLECTION_NAMES.get(self.collection_id, self.collection_id)

    @property
    def by_id(self) -> dict[str, dict]:
        return {obj['id']: obj for obj in self.objects}

    def versions(self) -> dict[str, str]:
        return {entry['id']: entry['version'] for entry in self.manifest.values()}

    def date_added(self, object_id: str) -> int:
        return micros(self.manifest[object_id]['date_added'])

    def newest_date_added(self) -> int:
        return max(micros(entry['date_added']) for entry in self.manifest.values())


def duplicates(ids) -> list[str]:
    seen: set[str] = set()
    repeated: list[str] = []
    for object_id in ids:
        if object_id in seen:
            repeated.append(object_id)
        seen.add(object_id)
    return repeated


def compare_delivery(checks: Checks, name: str, delivered: list[tuple[str, str]], expected: dict[str, str]) -> bool:
    """A client's delivery must be exactly `expected` (id -> version): every object once, none missing, none extra."""
    ids = [object_id for object_id, _ in delivered]
    repeated = duplicates(ids)
    got = dict(delivered)
    missing = sorted(set(expected) - set(got))
    extra = sorted(set(got) - set(expected))
    stale = sorted(object_id for object_id in set(got) & set(expected) if got[object_id] != expected[object_id])
    ok = not repeated and not missing and not extra and not stale
    if ok:
        return checks.check(name, True, f'{len(ids)} objects, each once')
    parts = [f'{len(ids)} delivered, {len(expected)} expected']
    if repeated:
        parts.append(f'{len(repeated)} twice (e.g. {repeated[:2]})')
    if missing:
        parts.append(f'{len(missing)} missing (e.g. {missing[:2]})')
    if extra:
        parts.append(f'{len(extra)} unexpected (e.g. {extra[:2]})')
    if stale:
        parts.append(f'{len(stale)} in another version (e.g. {stale[:2]})')
    return checks.check(name, False, '; '.join(parts))
