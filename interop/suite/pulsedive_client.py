"""The `pulsedive` client from PyPI (0.1.0) against the lookup API, by changing only its base URL.

What the client does (pulsedive/client.py): every call is `GET {PULSEDIVE_URL}/info.php`, the base
URL a module constant read at each call, with `pretty=0`, `sanitize=1` and `key` added to the
parameters of the call; `indicator(iid=|value=)` also sends `schema=0` and `iid` or `indicator`;
`threat(tid=|name=)` sends `tid` or `tname`; `threat.summary(tid, splitrisk)` sends
`tid&get=links&summary=1&splitrisk=0|1`; `feed.get(fid=)` and `feed.links(fid)` send `fid`
(`&get=links`), and a `page=` keyword becomes the `page` parameter. It calls `raise_for_status()`
before it reads the body, so a miss (404 `{"error": "Indicator not found."}`) surfaces as
`requests.HTTPError` with that response, as the analyzers built on it treat it; a 200 body with an
`error` member would be a `PulsediveException`.

Checks: values found in three spellings each (a domain, an IPv6 address, a URL with its host in
upper case), by value and by iid, the same body as indicator.php; misses; threats by id, name and
alias; a feed by id; feed and threat links with paging and the plan's page allowance; the threat
summary; every answer equal to the endpoint info.php stands for.
"""
from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

import pulsedive
import pulsedive.client
import requests

from harness import Checks, Settings

#: The client's own default, restored when the phase ends.
PULSEDIVE_URL = pulsedive.client.PULSEDIVE_URL
INDICATOR_FIELDS = [
    'iid', 'type', 'indicator', 'risk', 'retired', 'retired_reason', 'stamp_added', 'stamp_updated',
    'stamp_seen', 'stamp_retired', 'threats', 'feeds', 'attributes', 'sightings', 'stamp_sighted', 'submissions',
]
#: A value no demo feed lists (RFC 6761 reserves .test).
UNLISTED_DOMAIN = 'never-listed.threatgate-interop.test'
#: Feeds are walked from fid 1 until one is unknown; the demo has 12.
MAX_FEEDS = 100


def _normalized(kind: str, value: str) -> bool:
    """Whether a linked value is stored as pulls write it, so that other spellings of it must find it."""
    if kind == 'domain':
        return value == value.lower() and not value.endswith('.')
    if kind == 'ipv6':
        return value == ipaddress.ip_address(value).compressed
    if kind == 'url':
        parts = urlsplit(value)
        return parts.scheme == parts.scheme.lower() and parts.netloc == parts.netloc.lower() and parts.netloc != ''
    return False


def spellings(kind: str, value: str) -> list[str]:
    """Three ways a person or a tool writes the value; all normalize to it (docs/interface.md 4.3)."""
    if kind == 'domain':
        return [value, f'{value.upper()}.', f' {value[:1].upper()}{value[1:]} ']
    if kind == 'ipv6':
        address = ipaddress.ip_address(value)
        return [value, address.exploded.upper(), address.exploded]
    parts = urlsplit(value)
    rest = value[len(f'{parts.scheme}://{parts.netloc}'):]
    return [value, f'{parts.scheme.upper()}://{parts.netloc.upper()}{rest}', f'{parts.scheme.capitalize()}://{parts.netloc.upper()}{rest}']


class Endpoint:
    """The endpoint info.php stands for, read directly, to compare the client's answers with."""

    def __init__(self, settings: Settings) -> None:
        self.api = f'{settings.base_url}/api'
        self.key = settings.pro_key
        self.session = requests.Session()

    def get(self, path: str, **params) -> requests.Response:
        return self.session.get(f'{self.api}/{path}', params={**params, 'key': self.key})


def http_error(action) -> tuple[int | None, object]:
    """(status, JSON body) of the HTTPError the client raises, or (None, what it returned)."""
    try:
        return None, action()
    except requests.HTTPError as error:
        try:
            body = error.response.json()
        except ValueError:
            body = error.response.text[:200]
        return error.response.status_code, body


def run(checks: Checks, settings: Settings) -> None:
    checks.section('pulsedive client 0.1.0 (PyPI) against info.php')
    pulsedive.client.PULSEDIVE_URL = f'{settings.base_url}/api'
    try:
        _run(checks, settings)
    finally:
        pulsedive.client.PULSEDIVE_URL = PULSEDIVE_URL


def _run(checks: Checks, settings: Settings) -> None:
    sent: list[requests.PreparedRequest] = []
    pud = pulsedive.Pulsedive(settings.pro_key, hooks={'response': lambda r, *_a, **_k: sent.append(r.request)})
    direct = Endpoint(settings)

    # Feeds by id, and their first page of links: where the values to look up come from.
    feeds: dict[int, dict] = {}
    first_pages: dict[int, dict] = {}
    with checks.guard('feed.get(fid) and feed.links(fid) for every feed'):
        for fid in range(1, MAX_FEEDS + 1):
            status, feed = http_error(lambda: pud.feed.get(fid=fid))
            if status == 404:
                checks.equal(f'feed.get(fid={fid}) past the last feed: HTTPError 404 "Feed not found."', feed, {'error': 'Feed not found.'})
                break
            feeds[fid] = feed
            first_pages[fid] = pud.feed.links(fid)
        same_feeds = all(feeds[fid] == direct.get('feed.php', fid=fid).json() for fid in feeds)
        checks.check(f'feed.get(fid) for {len(feeds)} feeds equals feed.php?fid=N', bool(feeds) and same_feeds)
        same_links = all(first_pages[fid] == direct.get('feed.php', fid=fid, get='links').json() for fid in feeds)
        checks.check('feed.links(fid) equals feed.php?fid=N&get=links for every feed', bool(feeds) and same_links)

    # Paging through the client: its `page` keyword, and the Pro plan's 2 pages.
    long_feed = next((fid for fid, page in first_pages.items() if 'page_next' in page), None)
    if checks.check('some feed has more than one page of links', long_feed is not None):
        page1 = pud.feed.links(long_feed, page=1)
        checks.equal(f'feed.links({long_feed}, page=1) is page 1 of feed.php', page1, direct.get('feed.php', fid=long_feed, get='links', page=1).json())
        status, body = http_error(lambda: pud.feed.links(long_feed, page=2))
        checks.check(
            f'feed.links({long_feed}, page=2) with a Pro key (2 pages): HTTPError 403 naming the limit',
            status == 403 and 'page 2 is beyond that limit' in str(body.get('error', '')) if isinstance(body, dict) else False,
            f'HTTP {status}: {body!r:.160}',
        )

    # One normalized value of each kind from the links, with the feed that lists it.
    found: dict[str, tuple[str, int]] = {}
    for fid, page in first_pages.items():
        for row in page.get('results', []):
            kind = row['type']
            if kind in ('domain', 'ipv6', 'url') and kind not in found and _normalized(kind, row['indicator']):
                found[kind] = (row['indicator'], fid)
    checks.equal('the links hold a domain, an IPv6 address and a URL to look up', sorted(found), ['domain', 'ipv6', 'url'])

    for kind, (value, fid) in sorted(found.items()):
        with checks.guard(f'{kind} {value} in three spellings'):
            expected = direct.get('indicator.php', indicator=value).json()
            answers = []
            for spelling in spellings(kind, value):
                body = pud.indicator(value=spelling)
                answers.append(body)
                checks.check(
                    f'indicator(value={spelling!r}) answers iid {expected.get("iid")} ({value})',
                    body == expected,
                    f'iid {body.get("iid")}, indicator {body.get("indicator")!r}',
                )
            body = answers[0]
            checks.equal(f'{kind}: the body has the fields of the indicator lookup (docs/lookup-api.md), in order', list(body), INDICATOR_FIELDS)
            checks.check(f'{kind}: its feeds include fid {fid}, whose links list it', any(f.get('fid') == fid for f in body.get('feeds', [])))
            checks.equal(f'indicator(iid={body.get("iid")}) answers the same body', pud.indicator(iid=body.get('iid')), body)

    # Misses, as the client surfaces them.
    status, body = http_error(lambda: pud.indicator(value=UNLISTED_DOMAIN))
    checks.check(f'indicator(value={UNLISTED_DOMAIN!r}): HTTPError 404 {{"error": "Indicator not found."}}', status == 404 and body == {'error': 'Indicator not found.'}, f'HTTP {status}: {body!r:.160}')
    status, body = http_error(lambda: pud.indicator(iid=999_999_999))
    checks.check('indicator(iid=999999999): HTTPError 404 {"error": "Indicator not found."}', status == 404 and body == {'error': 'Indicator not found.'}, f'HTTP {status}: {body!r:.160}')
    status, body = http_error(lambda: pud.indicator(value='no such thing'))
    checks.check('indicator(value="no such thing"): HTTPError 400 naming the parameter', status == 400 and 'Parameter "indicator"' in str(body), f'HTTP {status}: {body!r:.160}')
    status, body = http_error(lambda: pud.indicator.links(999_999_999))
    checks.check('indicator.links(999999999): HTTPError 404 {"error": "Indicator not found."}', status == 404 and body == {'error': 'Indicator not found.'}, f'HTTP {status}: {body!r:.160}')

    # Threats by id, by name in another case, by alias; links; the summary.
    with checks.guard('threats by id, name and alias'):
        threat = pud.threat(tid=1)
        checks.equal('threat(tid=1) equals threat.php?tid=1', threat, direct.get('threat.php', tid=1).json())
        checks.equal(f'threat(name={threat["threat"].upper()!r}) answers tid 1', pud.threat(name=threat['threat'].upper()).get('tid'), 1)
        aliased = next((tid for tid in range(1, 31) if pud.threat(tid=tid).get('othernames')), None)
        if checks.check('some threat has another name', aliased is not None):
            alias = pud.threat(tid=aliased)['othernames'][-1]
            checks.equal(f'threat(name={alias!r}) answers tid {aliased}', pud.threat(name=alias).get('tid'), aliased)
        status, body = http_error(lambda: pud.threat(name='Nobody At All'))
        checks.check('threat(name="Nobody At All"): HTTPError 404 {"error": "Threat not found."}', status == 404 and body == {'error': 'Threat not found.'}, f'HTTP {status}: {body!r:.160}')

    with checks.guard('threat links and summary'):
        links = pud.threat.links(1)
        checks.equal('threat.links(1) equals threat.php?tid=1&get=links', links, direct.get('threat.php', tid=1, get='links').json())
        record = direct.get('threat.php', tid=1).json()
        for splitrisk in (False, True):
            summary = pud.threat.summary(1, splitrisk=splitrisk)
            checks.equal(f'threat.summary(1, splitrisk={splitrisk}) answers the threat, with its summary', summary, record)
        counts = record['summary']
        checks.check(
            'the summary counts per feed, attribute, property and risk',
            bool(counts.get('feeds')) and bool(counts.get('attributes')) and counts.get('risk', {}).get('total', 0) > 0,
            f'{len(counts.get("feeds", []))} feeds, {counts.get("risk", {}).get("total")} indicators',
        )
        small = next((tid for tid in range(1, 31) if 0 < direct.get('threat.php', tid=tid).json()['summary']['risk']['total'] <= 1000), None)
        if checks.check('some threat has at most one page of links', small is not None):
            total = pud.threat.summary(small)['summary']['risk']['total']
            checks.equal(f'threat {small}: summary risk total = rows of threat.links({small})', len(pud.threat.links(small)['results']), total)

    # What the client sent: info.php only, with its fixed parameters, answered as documented.
    paths = {urlsplit(request.url).path for request in sent}
    checks.equal('every call of the client went to /api/info.php', paths, {'/api/info.php'})
    fixed = [request.url for request in sent if 'pretty=0' not in request.url or 'sanitize=1' not in request.url or 'key=' not in request.url]
    checks.check(f'all {len(sent)} calls sent pretty=0, sanitize=1 and the key', not fixed, f'e.g. {fixed[:1]}' if fixed else '')
    with checks.guard('pretty=True'):
        pretty = pulsedive.Pulsedive(settings.pro_key, pretty=True, raw=True).threat(tid=1)
        checks.check('Pulsedive(pretty=True): indented JSON, the same threat', pretty.text.startswith('{\n  "tid": 1') and pretty.json() == pud.threat(tid=1), repr(pretty.text[:40]))
