"""The `pulsedive` client's search (search.php) and indicator links and properties, and OWASP Amass's explore.php request.

What the client sends (pulsedive/client.py, 0.1.0): `search(value, risk=[...], indicator_type=[...])`
is `GET search.php` with `value`, `export=0`, `type[]` and `risk[]` once per value (its defaults:
every type and risk), `limit=hundred`, and `pretty=0&sanitize=1&key`; `search.threat` adds
`search=threat`, `category[]` (every category it knows) and `splitrisk`; `search.feed` sends
`search=feed`; `search.to_csv(value, filename=...)` is the indicator search with `export=1`, its
body streamed to the file; `indicator.links(iid)` and `indicator.properties(iid)` are `info.php`
with `iid` and `get=links|properties`. Amass's Pulsedive data source asks `explore.php` for
`search=indicators`, `q=type=domain and ioc=*.DOMAIN`, `limit` (1000 with a key, 100 without) and
`key`, encoded as Go's `url.Values` encodes (keys sorted, `+` for a blank, `*` as `%2A`), and reads
`results[].indicator`.

Every answer is held to two things: what explore.php (or indicator.php, threat.php, feed.php)
answers for the same question, and what the reference TAXII client read of the Indicators collection
(every indicator's value, type and risk), which is the truth here and knows nothing of explore.
"""
from __future__ import annotations

import csv
import os
import tempfile
from urllib.parse import quote_plus, urlsplit

import pulsedive
import pulsedive.client
import requests

from harness import INDICATORS_COLLECTION, Checks, Settings, Snapshot
from pulsedive_client import PULSEDIVE_URL, Endpoint, http_error

CSV_COLUMNS = ['iid', 'indicator', 'type', 'risk', 'stamp_added', 'stamp_updated', 'stamp_seen', 'stamp_retired', 'threats', 'feeds']
#: Words the demo's lure domains and URLs are made of: the broad search takes the first that matches two to ten pages.
LURE_WORDS = ['login', 'secure', 'verify', 'account', 'update', 'support', 'billing', 'wallet']
BROAD_TYPES = ['domain', 'url']
BROAD_RISKS = ['high', 'critical']
#: A spreadsheet would run a cell starting with one of these: the CSV prefixes it with `'` (docs/exports.md).
FORMULA_START = ('=', '+', '-', '@', '\t', '\r')


def stored_indicators(snapshot: Snapshot) -> list[dict]:
    """Every indicator the TAXII client read, as {iid, value, type, risk}, newest (highest iid) first."""
    rows = [
        {'iid': o['x_threatgate_iid'], 'value': o['name'], 'type': o['x_threatgate_type'], 'risk': o['x_risk']}
        for o in snapshot.objects if o.get('type') == 'indicator' and 'x_threatgate_iid' in o
    ]
    return sorted(rows, key=lambda row: row['iid'], reverse=True)


def subdomains_by_parent(stored: list[dict]) -> dict[str, list[dict]]:
    """Each parent name (two labels or more) -> the stored domains under it, compared in lower case as explore compares."""
    parents: dict[str, list[dict]] = {}
    for row in stored:
        if row['type'] != 'domain':
            continue
        labels = row['value'].lower().split('.')
        for i in range(1, len(labels) - 1):
            parents.setdefault('.'.join(labels[i:]), []).append(row)
    return parents


def amass_url(base_url: str, domain: str, key: str | None) -> str:
    """explore.php as Amass's Pulsedive script builds it, encoded as Go's url.Values.Encode encodes (keys sorted)."""
    params = {'limit': '1000' if key else '100', 'q': f'type=domain and ioc=*.{domain}', 'search': 'indicators'}
    if key:
        params['key'] = key
    return f'{base_url}/api/explore.php?' + '&'.join(f'{name}={quote_plus(params[name], safe="")}' for name in sorted(params))


def csv_cell(value) -> str:
    """A row's field as the CSV export writes it, before quoting (csv reads the quoting back)."""
    text = '|'.join(value) if isinstance(value, list) else '' if value is None else str(value)
    return f"'{text}" if text.startswith(FORMULA_START) else text


def run(checks: Checks, settings: Settings, snapshots: dict[str, Snapshot]) -> None:
    checks.section('pulsedive client 0.1.0: search.php, indicator links and properties; OWASP Amass on explore.php')
    if not checks.check('the reference client read the Indicators collection', INDICATORS_COLLECTION in snapshots):
        return
    pulsedive.client.PULSEDIVE_URL = f'{settings.base_url}/api'
    try:
        _run(checks, settings, stored_indicators(snapshots[INDICATORS_COLLECTION]))
    finally:
        pulsedive.client.PULSEDIVE_URL = PULSEDIVE_URL


def _run(checks: Checks, settings: Settings, stored: list[dict]) -> None:
    pud = pulsedive.Pulsedive(settings.pro_key)
    direct = Endpoint(settings)
    checks.check('the TAXII client read every indicator of the demo', len(stored) > 1000, f'{len(stored)} indicators')
    by_iid = {row['iid']: row for row in stored}

    # OWASP Amass: the subdomains of the parent that has the most, a stored indicator itself when one such is.
    parents = subdomains_by_parent(stored)
    values = {row['value'].lower(): row for row in stored if row['type'] == 'domain'}
    parent = max(parents, key=lambda p: (len(parents[p]), p in values, p))
    expected = sorted(row['value'] for row in parents[parent])
    with checks.guard(f'Amass: the subdomains of {parent}'):
        response = requests.get(amass_url(settings.base_url, parent, settings.pro_key))
        body = response.json()
        got = sorted(row['indicator'] for row in body.get('results', []))
        checks.check(f'explore.php as Amass asks with a key (limit=1000): 200, the {len(expected)} stored subdomains of {parent}', response.status_code == 200 and got == expected, f'HTTP {response.status_code}: {got[:5]}, stored {expected[:5]}')
        checks.equal('Amass: every row a domain, one page alone (`results`, no page_next)', (sorted({row['type'] for row in body['results']}), list(body)), (['domain'], ['results']))
        keyless = requests.get(amass_url(settings.base_url, parent.upper(), None))
        checks.check('explore.php as Amass asks without a key (limit=100), the parent in upper case: the same subdomains', keyless.status_code == 200 and sorted(r['indicator'] for r in keyless.json().get('results', [])) == expected, '' if keyless.ok else f'HTTP {keyless.status_code}: {keyless.text[:160]}')

    # indicator.links and indicator.properties (info.php with get=links|properties).
    with checks.guard('indicator.links(iid) and indicator.properties(iid)'):
        if parent in values:
            iid = values[parent]['iid']
            links = pud.indicator.links(iid)
            checks.equal(f'indicator.links({iid}) equals indicator.php?iid={iid}&get=links', links, direct.get('indicator.php', iid=iid, get='links').json())
            checks.equal(f'indicator.links({iid}) ({parent}): its Subdomains are the stored subdomains', sorted(r['indicator'] for r in links['results'].get('Subdomains', [])), expected)
        else:
            checks.note(f'{parent} is not stored itself: its links are not asked for')
        url = next((row for row in stored if row['type'] == 'url' and (urlsplit(row['value']).hostname or '') in values), None)
        if checks.check('some stored URL has a stored domain as its host', url is not None):
            host = values[urlsplit(url['value']).hostname]
            links = pud.indicator.links(url['iid'])
            checks.equal(f'indicator.links({url["iid"]}) equals indicator.php?iid={url["iid"]}&get=links', links, direct.get('indicator.php', iid=url['iid'], get='links').json())
            checks.equal(f'indicator.links({url["iid"]}): its Host is {host["value"]} (iid {host["iid"]})', [r['iid'] for r in links['results'].get('Host', [])], [host['iid']])
            urls = pud.indicator.links(host['iid'])['results'].get('URLs', [])
            checks.check(f'indicator.links({host["iid"]}): its URLs include {url["value"]}', any(r['iid'] == url['iid'] for r in urls), f'{len(urls)} URLs')
        for iid in (stored[0]['iid'], stored[-1]['iid']):
            properties = pud.indicator.properties(iid)
            checks.check(f'indicator.properties({iid}) equals indicator.php?iid={iid}&get=properties, a `properties` object', properties == direct.get('indicator.php', iid=iid, get='properties').json() and isinstance(properties.get('properties'), dict), repr(properties)[:160])

    # search(value): the client's defaults (every type and risk) find every stored value holding the text,
    # here the parent's first label, in upper case: text that is no indicator value.
    text = parent.split('.')[0].upper() if len(parent.split('.')[0]) >= 3 else parent.upper()
    with checks.guard(f'search({text!r})'):
        answer = pud.search(text)
        holding = [row['iid'] for row in stored if text.lower() in row['value'].lower()]
        checks.equal(f'search({text!r}): the newest 100 of the {len(holding)} stored values holding it, in any case', [r['iid'] for r in answer['results']], holding[:100])
        checks.equal(f'search({text!r}) equals explore.php?q={text}', answer, direct.get('explore.php', q=text).json())

    # A broad search, risk=[...], indicator_type=[...]: pages through the client's `page`, the Pro plan's two, and to_csv.
    def matching(word: str) -> list[int]:
        return [row['iid'] for row in stored if word in row['value'].lower() and row['type'] in BROAD_TYPES and row['risk'] in BROAD_RISKS]
    word = next((w for w in LURE_WORDS if 100 < len(matching(w)) <= 1000), None)
    if not checks.check('some lure word is in two to ten pages of high and critical domains and URLs', word is not None):
        return
    oracle = matching(word)
    options = {'risk': BROAD_RISKS, 'indicator_type': BROAD_TYPES}
    query = f'{word} and (type=domain or type=url) and (risk=high or risk=critical)'
    with checks.guard(f'search({word!r}, risk={BROAD_RISKS}, indicator_type={BROAD_TYPES})'):
        first = pud.search(word, **options)
        rows = first['results']
        checks.equal(f'search({word!r}, risk=..., indicator_type=...) page 0: the newest 100 of the {len(oracle)} stored matches', [r['iid'] for r in rows], oracle[:100])
        checks.check('every row has the text, a type and a risk asked for', all(word in r['indicator'].lower() and r['type'] in BROAD_TYPES and r['risk'] in BROAD_RISKS for r in rows))
        checks.equal('page 0 says page_current 0, page_next 1', (first.get('page_current'), first.get('page_next')), (0, 1))
        checks.equal(f'it equals explore.php?q={query}', first, direct.get('explore.php', q=query).json())
        second = pud.search(word, page=1, **options)
        checks.equal(f'search(..., page=1): the next 100 ({len(oracle[100:200])} stored)', [r['iid'] for r in second['results']], oracle[100:200])
        checks.equal('it equals explore.php page 1', second, direct.get('explore.php', q=query, page=1).json())
        status, body = http_error(lambda: pud.search(word, page=2, **options))
        checks.check('search(..., page=2) with a Pro key (2 pages): HTTPError 403 naming the limit', status == 403 and 'page 2 is beyond that limit' in str(body), f'HTTP {status}: {body!r:.160}')

    with checks.guard(f'search.to_csv({word!r}, filename=...)'):
        handle, filename = tempfile.mkstemp(suffix='.csv')
        os.close(handle)
        try:
            pud.search.to_csv(word, filename=filename, **options)
            with open(filename, newline='', encoding='utf-8') as file:
                records = list(csv.reader(file))
        finally:
            os.unlink(filename)
        checks.equal('to_csv: the header row names the JSON rows\u2019 fields', records[:1], [CSV_COLUMNS])
        expected_rows = [[csv_cell(r[c]) for c in CSV_COLUMNS] for r in rows + second['results']]
        checks.equal(f'to_csv: the rows of the two pages a Pro key reads ({len(expected_rows)}), field for field', records[1:], expected_rows)
        checks.equal('to_csv: their iids are the newest 200 stored matches', [int(r[0]) for r in records[1:]], oracle[:200])
        checks.check('to_csv: every value, type and risk is the one TAXII serves', all(by_iid[int(r[0])]['value'] == r[1].removeprefix("'") and by_iid[int(r[0])]['type'] == r[2] and by_iid[int(r[0])]['risk'] == r[3] for r in records[1:]))

    _threats_and_feeds(checks, pud, direct)


def _walk(direct: Endpoint, path: str, name: str) -> list[dict]:
    """Every record of threat.php or feed.php, by id from 1 until one is unknown."""
    records = []
    for record_id in range(1, 1000):
        response = direct.get(path, **{name: record_id})
        if response.status_code == 404:
            return records
        records.append(response.json())
    return records


def _threats_and_feeds(checks: Checks, pud: pulsedive.Pulsedive, direct: Endpoint) -> None:
    with checks.guard('search.threat(value, risk=...)'):
        threats = _walk(direct, 'threat.php', 'tid')
        name = threats[0]['threat'][:4].lower()
        for risks in (pulsedive.client.RISKS, [threats[0]['risk']]):
            answer = pud.search.threat(name, risk=risks)
            expected = sorted((t['tid'] for t in threats if t['risk'] in risks and any(name in n.lower() for n in [t['threat'], *t['othernames']])), reverse=True)
            checks.equal(f'search.threat({name!r}, risk={risks}): every threat whose name or other name holds it, newest first', [r['tid'] for r in answer['results']], expected)
        checks.equal(f'search.threat({name!r}) equals explore.php?type=threats&q="{name}"', pud.search.threat(name), direct.get('explore.php', type='threats', q=f'"{name}"').json())
        record = {t['tid']: t for t in threats}
        fields = ['threat', 'category', 'risk', 'othernames', 'stamp_added', 'stamp_seen']
        rows = pud.search.threat('')['results']
        checks.equal('search.threat(""): every threat', sorted(r['tid'] for r in rows), sorted(record))
        bad = [r['tid'] for r in rows if [r[f] for f in fields] != [record[r['tid']][f] for f in fields] or r['indicators'] != record[r['tid']]['summary']['risk']['total'] or r['retired'] != (None if record[r['tid']]['retired'] is None else int(record[r['tid']]['retired']))]
        checks.check('each threat row agrees with threat.php: names, category, risk, stamps, retired, and its linked indicators', not bad, f'differ: tids {bad[:5]}' if bad else '')

    with checks.guard('search.feed(value), search.feed(category=...)'):
        feeds = _walk(direct, 'feed.php', 'fid')
        record = {f['fid']: f for f in feeds}
        answer = pud.search.feed('phishing')
        checks.equal('search.feed("phishing"): every feed whose name holds it, newest first', [r['fid'] for r in answer['results']], sorted((f['fid'] for f in feeds if 'phishing' in f['feed'].lower()), reverse=True))
        category = feeds[0]['category']
        answer = pud.search.feed('', category=[category])
        checks.equal(f'search.feed(category=[{category!r}]): every feed of it', [r['fid'] for r in answer['results']], sorted((f['fid'] for f in feeds if f['category'].lower() == category.lower()), reverse=True))
        rows = pud.search.feed('')['results']
        checks.equal('search.feed(""): every feed (the client\u2019s categories, all at once, mean any)', sorted(r['fid'] for r in rows), sorted(record))
        fields = ['feed', 'organization', 'category', 'pricing', 'stamp_added', 'stamp_pulled']
        bad = [r['fid'] for r in rows if [r[f] for f in fields] != [record[r['fid']][f] for f in fields] or r['indicators'] != record[r['fid']]['indicators']['total']]
        checks.check('each feed row agrees with feed.php: name, organization, category, pricing, stamps, and its indicators', not bad, f'differ: fids {bad[:5]}' if bad else '')
