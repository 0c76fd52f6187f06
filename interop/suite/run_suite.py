"""Interop suite runner: reference client, the README's example, Accept values, the pulsedive client (lookups, then search and Amass's explore), client replays, STIX validity, change import, and last the pulsedive client's analyze.

Run through interop/run-interop.mjs (it builds, loads the data, starts the gateway and sets TG_*).
Prints one PASS/FAIL line per check and, last, `N passed, N failed`; exits 1 when anything failed.
TG_ONLY (`run-interop.mjs --only NAME,...`) runs only the named phases that need no other phase
before them: accept_values, pulsedive_client, pulsedive_analyze.
"""
from __future__ import annotations

import os
import sys
import time
import traceback

import accept_values
import change_import
import client_e2e
import pulsedive_analyze
import pulsedive_client
import pulsedive_search
import readme_example
import replays
import stix_validity
from harness import Checks, describe_error, settings_from_env

#: The phases that stand alone (they read the demo data as it is loaded), for TG_ONLY.
STANDALONE = {
    'accept_values': ('Accept values', accept_values.run),
    'pulsedive_client': ('pulsedive client (lookup API)', pulsedive_client.run),
    'pulsedive_analyze': ('pulsedive client (analyze.php)', pulsedive_analyze.run),
}


def main() -> int:
    settings = settings_from_env()
    checks = Checks()
    timings: list[tuple[str, float]] = []

    def phase(name: str, action):
        started = time.monotonic()
        try:
            return action()
        finally:
            timings.append((name, time.monotonic() - started))

    only = [name.strip() for name in os.environ.get('TG_ONLY', '').split(',') if name.strip()]
    unknown = [name for name in only if name not in STANDALONE]
    if unknown:
        raise SystemExit(f'interop suite: TG_ONLY names {", ".join(unknown)}; the phases that run alone are {", ".join(STANDALONE)}')
    try:
        if only:
            for name in only:
                title, action = STANDALONE[name]
                phase(title, lambda action=action: action(checks, settings))
            return finish(checks, timings)
        # The validator runs in worker processes, fed each collection as soon as the reference client
        # has read it, while the HTTP phases go on (they keep about one core busy).
        validation = stix_validity.start(settings.workers)
        snapshots = phase('taxii2-client', lambda: client_e2e.run(checks, settings, on_reference=validation.add))
        phase('README example (default plans)', lambda: readme_example.run(checks, settings, snapshots))
        phase('Accept values', lambda: accept_values.run(checks, settings))
        phase('pulsedive client (lookup API)', lambda: pulsedive_client.run(checks, settings))
        phase('pulsedive search and OWASP Amass (explore)', lambda: pulsedive_search.run(checks, settings, snapshots))
        clients = replays.create(settings)
        phase('replays, first polls', lambda: replays.initial_polls(checks, clients, snapshots))
        phase('STIX validator (what was left after the above)', lambda: stix_validity.finish(checks, validation, snapshots))
        changed = phase('change import', lambda: change_import.run(checks, settings, snapshots))
        phase('replays after the change', lambda: replays.resume_polls(checks, clients, changed))
        # Last: a submission is an observation of the value, and the phases above compare answers across time.
        phase('pulsedive client (analyze.php)', lambda: pulsedive_analyze.run(checks, settings))
    except Exception as error:  # noqa: BLE001 - a phase that cannot go on is one failure, and the end
        checks.check('the suite runs to the end', False, describe_error(error))
        traceback.print_exc(file=sys.stdout)
    return finish(checks, timings)


def finish(checks: Checks, timings: list[tuple[str, float]]) -> int:
    """The timings, the failed checks and the summary line; the exit code."""
    print('\n== Timings', flush=True)
    for name, seconds in timings:
        print(f'   {seconds:7.1f} s  {name}', flush=True)
    if checks.failures:
        print('\n== Failed checks', flush=True)
        for name in checks.failures:
            print(f'   {name}', flush=True)
    print(f'{checks.passed} passed, {checks.failed} failed', flush=True)
    return 0 if checks.failed == 0 else 1


if __name__ == '__main__':
    sys.exit(main())
