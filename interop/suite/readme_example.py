"""The taxii2-client example of docs/taxii.md, run as written.

Its code block is read from docs/taxii.md ("Configuring TAXII clients") and run unchanged but for the
server's address, with a Pro key, against a gateway with the default plans (10 requests a second),
as `npm start` serves the demo. It must wait out every 429 and walk every page of the Indicators
collection: every object the reference client saw, each once.
"""
from __future__ import annotations

import re
import textwrap
import time
from pathlib import Path

import requests
from taxii2client.v21 import Collection

from harness import INDICATORS_COLLECTION, Checks, Settings, Snapshot, compare_delivery, describe_error

README = Path(__file__).resolve().parents[2] / 'docs' / 'taxii.md'
SECTION = '## Configuring TAXII clients'
#: The address the README's examples use, that of `npm start`.
README_BASE_URL = 'http://127.0.0.1:8080'
_PYTHON_BLOCK = re.compile(r'^([ \t]*)```python\n(.*?)^\1```[ \t]*$', re.S | re.M)


def example_code(readme: str) -> str:
    """The first Python block of the section, dedented as its list item indents it."""
    start = readme.index(SECTION)
    match = _PYTHON_BLOCK.search(readme, start)
    if match is None:
        raise ValueError(f'{README.name} has no ```python block after "{SECTION}"')
    return textwrap.dedent(match.group(2))


class Observer:
    """Records what taxii2-client's Get Objects answers while the example runs: each envelope, and each 429."""

    def __init__(self) -> None:
        self.envelopes: list[dict] = []
        self.refusals: list[str | None] = []
        self._original = Collection.get_objects

    def __enter__(self) -> 'Observer':
        original = self._original

        def get_objects(collection, *args, **kwargs):
            try:
                envelope = original(collection, *args, **kwargs)
            except requests.HTTPError as error:
                if error.response is not None and error.response.status_code == 429:
                    self.refusals.append(error.response.headers.get('Retry-After'))
                raise
            self.envelopes.append(envelope)
            return envelope

        Collection.get_objects = get_objects
        return self

    def __exit__(self, *_exc) -> None:
        Collection.get_objects = self._original


def run(checks: Checks, settings: Settings, snapshots: dict[str, Snapshot]) -> None:
    checks.section('README example: taxii2-client against the default plans')
    try:
        code = example_code(README.read_text(encoding='utf-8'))
    except ValueError as error:
        checks.check('README example: docs/taxii.md has the block', False, str(error))
        return
    if not checks.check('README example: the block names the server as npm start serves it', README_BASE_URL in code, README_BASE_URL):
        return
    code = code.replace(README_BASE_URL, settings.demo_base_url)
    started = time.monotonic()
    with Observer() as seen:
        try:
            exec(compile(code, f'{README.name} ({SECTION.lstrip("# ")})', 'exec'), {'__name__': 'readme_example', 'KEY': settings.pro_key})
            error = None
        except Exception as raised:  # noqa: BLE001 - whatever the example raises is the failure to report
            error = raised
    seconds = time.monotonic() - started
    pages = seen.envelopes
    waits = f'{len(seen.refusals)} answers 429 waited out (Retry-After {sorted(set(seen.refusals))})'
    if not checks.check('README example: runs to the end with a Pro key', error is None,
                        f'{len(pages)} pages in {seconds:.1f} s, {waits}' if error is None else f'{describe_error(error)} after {len(pages)} pages, {waits}'):
        return
    if not seen.refusals:
        checks.note('README example: the walk never met the rate limit, so the wait for Retry-After was not exercised')
    checks.check('README example: walks every page (each but the last says more, the last does not)',
                 bool(pages) and all(page.get('more') for page in pages[:-1]) and not pages[-1].get('more'),
                 f'{len(pages)} pages')
    version = lambda obj: obj.get('modified', obj.get('created'))  # noqa: E731
    delivered = [(obj['id'], version(obj)) for page in pages for obj in page.get('objects', [])]
    expected = {obj['id']: version(obj) for obj in snapshots[INDICATORS_COLLECTION].objects}
    compare_delivery(checks, 'README example: gets every object of Indicators once, as the reference client did', delivered, expected)
