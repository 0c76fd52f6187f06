"""The `pulsedive` client's `analyze(value)` and `analyze.results(qid)` against analyze.php (docs/observations.md).

What the client sends (pulsedive/client.py, 0.1.0): `analyze(value)` base64-encodes the value and
POSTs `{PULSEDIVE_URL}/analyze.php` with the form `ioc`, `enrich=1`, `probe=0`, `pretty=0`,
`sanitize=1` and `key` (its `enrich` and `probe` arguments never reach the form);
`analyze.encoded(text)` posts `text` as `ioc` unchanged; `analyze.results(qid)` is
`GET analyze.php?qid=N&pretty=0&sanitize=1&key=K`. It calls `raise_for_status()` first, so a refusal
surfaces as `requests.HTTPError`; a 200 body with an `error` member would be a `PulsediveException`.

Checks: a stored value and the same value defanged are queued, and their results are what
indicator.php answers for the value (read after, the submission being an observation of it); an
unknown value's result says `known` false and its lookup stays a 404; another key cannot read a
result; no key is a 401; `ioc` that is no base64 a 400 naming it; what the client sent. This phase
runs last: a submission is an observation, and the phases before compare the store's answers
across time.
"""
from __future__ import annotations

import time
from urllib.parse import parse_qs, urlsplit

import pulsedive
import pulsedive.client
import requests

from harness import Checks, Settings
from pulsedive_client import PULSEDIVE_URL, UNLISTED_DOMAIN, Endpoint, http_error

QUEUED = 'Added request to queue.'
#: The lookups' response cache re-reads the data version this often (config `cache.versionCheckMs`, 1 s by
#: default; docs/configuration.md): indicator.php shows a write that late at most.
LOOKUP_LAG_SECONDS = 1.5


def run(checks: Checks, settings: Settings) -> None:
    checks.section('pulsedive client 0.1.0 (PyPI): analyze and analyze.results (analyze.php)')
    pulsedive.client.PULSEDIVE_URL = f'{settings.base_url}/api'
    try:
        _run(checks, settings)
    finally:
        pulsedive.client.PULSEDIVE_URL = PULSEDIVE_URL


def _stored_domain(direct: Endpoint) -> str | None:
    """A domain the first feeds list, as stored: the value to submit."""
    for fid in range(1, 20):
        response = direct.get('feed.php', fid=fid, get='links')
        if response.status_code != 200:
            return None
        for row in response.json().get('results', []):
            if row['type'] == 'domain':
                return row['indicator']
    return None


def _run(checks: Checks, settings: Settings) -> None:
    sent: list[requests.PreparedRequest] = []
    pud = pulsedive.Pulsedive(settings.pro_key, hooks={'response': lambda r, *_a, **_k: sent.append(r.request)})
    direct = Endpoint(settings)
    value = _stored_domain(direct)
    if not checks.check('a feed lists a domain to submit', value is not None):
        return

    with checks.guard(f'analyze({value!r}) and its results'):
        queued = pud.analyze(value)
        checks.equal(f'analyze({value!r}) answers success and a qid', sorted(queued), ['qid', 'success'])
        checks.equal('its success is "Added request to queue."', queued.get('success'), QUEUED)
        qid = queued.get('qid')
        checks.check('its qid is a positive whole number', isinstance(qid, int) and qid > 0, repr(qid))
        time.sleep(LOOKUP_LAG_SECONDS)
        result = pud.analyze.results(qid)
        lookup = direct.get('indicator.php', indicator=value).json()
        checks.equal(f'analyze.results({qid}) is done, with its qid', [result.get('qid'), result.get('status')], [qid, 'done'])
        checks.equal(f'analyze.results({qid}): data is what indicator.php answers for the value', result.get('data'), lookup)
        checks.check('the value counts the submission: submissions is 1 or more', lookup.get('submissions', 0) >= 1, f'submissions {lookup.get("submissions")}')

    with checks.guard('a defanged value'):
        defanged = value.replace('.', '[.]')
        result = pud.analyze.results(pud.analyze(defanged)['qid'])
        checks.equal(f'analyze({defanged!r}) answers the stored indicator {value}', result['data'].get('indicator'), value)

    with checks.guard('an unknown value'):
        result = pud.analyze.results(pud.analyze(UNLISTED_DOMAIN)['qid'])
        checks.equal(
            f'analyze({UNLISTED_DOMAIN!r}): known false, risk unknown',
            result.get('data'),
            {'indicator': UNLISTED_DOMAIN, 'type': 'domain', 'risk': 'unknown', 'known': False},
        )
        response = direct.get('indicator.php', indicator=UNLISTED_DOMAIN)
        checks.check('no indicator is made of it: indicator.php still answers 404', response.status_code == 404, f'HTTP {response.status_code}')

    with checks.guard('refusals'):
        qid = pud.analyze(value)['qid']
        other = pulsedive.Pulsedive(settings.free_key)
        status, body = http_error(lambda: other.analyze.results(qid))
        checks.check(f'another key\u2019s analyze.results({qid}): HTTPError 404 "Analysis not found."', status == 404 and body == {'error': 'Analysis not found.'}, f'HTTP {status}: {body!r:.160}')
        status, body = http_error(lambda: pulsedive.Pulsedive().analyze(value))
        checks.check('analyze without a key: HTTPError 401', status == 401 and 'key' in str(body), f'HTTP {status}: {body!r:.160}')
        status, body = http_error(lambda: pud.analyze.encoded('not*base64'))
        checks.check('analyze.encoded("not*base64"): HTTPError 400 naming ioc', status == 400 and 'Parameter "ioc"' in str(body), f'HTTP {status}: {body!r:.160}')

    # What the client sent: the form in the body of a POST, key included; the result a GET.
    posts = [r for r in sent if r.method == 'POST']
    gets = [r for r in sent if r.method == 'GET']
    checks.check('analyze() POSTed to /api/analyze.php', bool(posts) and all(urlsplit(r.url).path == '/api/analyze.php' for r in posts))
    if posts:
        form = parse_qs(posts[0].body if isinstance(posts[0].body, str) else posts[0].body.decode())
        checks.equal('its form: ioc, enrich, probe, pretty, sanitize and key', sorted(form), ['enrich', 'ioc', 'key', 'pretty', 'probe', 'sanitize'])
        checks.equal('its Content-Type is a form', posts[0].headers.get('Content-Type'), 'application/x-www-form-urlencoded')
    checks.check('analyze.results() sent a GET with qid and the key', bool(gets) and all('qid=' in r.url and 'key=' in r.url for r in gets))
