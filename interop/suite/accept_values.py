"""Accept values seen from real TAXII clients, and the outcomes docs/taxii.md gives them."""
from __future__ import annotations

from urllib.parse import quote

import requests

from harness import INDICATORS_COLLECTION, TAXII_MEDIA_TYPE, TAXII_USER, TEST_COLLECTION, Checks, Settings

# (Accept header value or None for no header, expected status, where it comes from)
CASES = [
    ('application/taxii+json;version=2.1', 200, 'the TAXII 2.1 media type (taxii2-client, OpenCTI, Elastic)'),
    ('application/taxii+json', 200, 'no version: some TAXII 2.1 clients'),
    ('*/*', 200, 'curl, python-requests defaults'),
    ('application/json, text/plain, */*', 200, 'axios default'),
    ('application/taxii+json;version=2.0', 406, 'a TAXII 2.0 setting on a 2.1 client'),
    ('application/*', 200, 'docs/taxii.md, Accept'),
    ('application/taxii+json; version="2.1"', 200, 'quoted parameter, spaces'),
    ('application/taxii+json;version=2.0, */*;q=0.1', 200, 'another version preferred, */* also acceptable'),
    ('application/taxii+json;version=2.1;q=0', 406, 'q=0 means not acceptable'),
    ('application/vnd.oasis.taxii+json; version=2.0', 406, 'the TAXII 2.0 media type'),
    ('application/json', 406, 'plain JSON only'),
    ('text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 200, 'a browser'),
    (None, 406, 'no Accept header at all'),
]


def _endpoints(settings: Settings) -> list[tuple[str, str]]:
    return [
        ('discovery', settings.discovery_url),
        ('API root', settings.api_root_url),
        ('collections', f'{settings.api_root_url}collections/'),
        ('objects', f'{settings.objects_url(TEST_COLLECTION)}?limit=1'),
        ('manifest', f'{settings.manifest_url(INDICATORS_COLLECTION)}?limit=1'),
    ]


def _outcome_problem(response: requests.Response, status: int) -> str | None:
    if response.status_code != status:
        return f'HTTP {response.status_code}'
    if response.headers.get('Content-Type') != TAXII_MEDIA_TYPE:
        return f'Content-Type {response.headers.get("Content-Type")!r}'
    body = response.json()
    if status == 406 and (body.get('http_status') != '406' or not body.get('title')):
        return f'body {body!r:.120}'
    return None


def run(checks: Checks, settings: Settings) -> None:
    checks.section('Accept values from real clients (docs/taxii.md)')
    session = requests.Session()
    session.auth = (TAXII_USER, settings.pro_key)
    endpoints = _endpoints(settings)
    for accept, status, origin in CASES:
        problems = []
        for label, url in endpoints:
            # requests sends `Accept: */*` unless told otherwise; None removes the header.
            response = session.get(url, headers={'Accept': accept})
            sent = response.request.headers.get('Accept')
            if sent != accept:
                problems.append(f'{label}: the client sent {sent!r}')
                continue
            problem = _outcome_problem(response, status)
            if problem:
                problems.append(f'{label}: {problem}')
        shown = 'no Accept' if accept is None else f'Accept: {accept}'
        checks.check(f'{shown} -> {status} on {len(endpoints)} endpoints ({origin})', not problems, '; '.join(problems[:3]))

    # Query-string authentication: the `accept` parameter decides, whatever the browser sends.
    browser = {'Accept': 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'User-Agent': 'Mozilla/5.0'}
    for accept, status in [(TAXII_MEDIA_TYPE, 200), ('application/taxii+json', 200), ('*/*', 200), ('application/taxii+json;version=2.0', 406)]:
        url = f'{settings.objects_url(TEST_COLLECTION)}?key={settings.free_key}&accept={quote(accept, safe="")}&limit=1'
        response = requests.get(url, headers=browser)
        problem = _outcome_problem(response, status)
        checks.check(f'?key=...&accept={quote(accept, safe="")} -> {status}', problem is None, problem or '')
