#!/usr/bin/env bash
# Fuzzes the built server against its own OpenAPI document (GET /openapi.json) with schemathesis,
# three times: anonymous, with a Free key, with a Pro key. Any finding of the checks below fails.
#
# It loads the demo into a temporary SQLite file and serves it on a spare loopback port with the
# Free and Pro rate limits lifted, so those runs reach the handlers; the anonymous plan keeps its
# limits (1 a second, 100 a day), so the anonymous run also meets 429s and checks them.
#
# Needs dist/ (npm run build) and Python 3.10+ (python3, or INTEROP_PYTHON=/path/to/python).
# schemathesis is pinned in requirements.txt beside this file and installed into .venv here,
# reinstalled only when requirements.txt or the interpreter changes, as the interop suite does.
#
# Environment: ST_MAX_EXAMPLES (test cases per operation and phase, default 40), ST_SEED (default
# 18; the same seed and document give the same requests), ST_KEEP=1 keeps the temporary folder
# (store, keys, server log), ST_VENV_ONLY=1 makes the virtual environment and stops.
set -euo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
VENV="$HERE/.venv"
REQUIREMENTS="$HERE/requirements.txt"
STAMP="$VENV/.requirements.sha256"
CLI="$ROOT/dist/main.js"
PYTHON="${INTEROP_PYTHON:-python3}"
MAX_EXAMPLES="${ST_MAX_EXAMPLES:-40}"
SEED="${ST_SEED:-18}"
CHECKS=not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance
STARTED=$SECONDS

say() { printf '%s\n' "$*"; }
fail() { say "schemathesis: $*" >&2; exit 1; }

[ "${ST_VENV_ONLY:-}" = 1 ] || [ -f "$CLI" ] || fail "$CLI is missing: run npm run build first"

# ---- the virtual environment ------------------------------------------------------------------
version="$("$PYTHON" --version 2>&1)" || fail "$PYTHON not found: set INTEROP_PYTHON to a Python 3.10+"
want="$({ cat "$REQUIREMENTS"; printf '%s\n' "$version"; } | sha256sum | cut -d' ' -f1)"
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import sys' 2>/dev/null; then
  rm -rf "$VENV"
  "$PYTHON" -m venv "$VENV"
fi
if [ "$(cat "$STAMP" 2>/dev/null)" != "$want" ]; then
  "$VENV/bin/python" -m pip install --disable-pip-version-check --no-input --quiet -r "$REQUIREMENTS"
  printf '%s\n' "$want" >"$STAMP"
  say "requirements installed ($("$VENV/bin/schemathesis" --version))"
else
  say "requirements up to date ($("$VENV/bin/schemathesis" --version))"
fi

# ST_VENV_ONLY=1: the virtual environment alone (CI makes it while other steps run).
if [ "${ST_VENV_ONLY:-}" = 1 ]; then exit 0; fi

# ---- the server -------------------------------------------------------------------------------
WORK="$(mktemp -d "${TMPDIR:-/tmp}/threatgate-schemathesis-XXXXXX")"
SERVER_PID=""
cleanup() {
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then kill -TERM "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
  if [ "${ST_KEEP:-}" = 1 ]; then say "kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

# Settings that would point the server at another store, port or config than this run's own.
unset DATABASE_URL REDIS_URL THREATGATE_CONFIG PORT HOST
export LOG_LEVEL=warn

LIFTED='{ "perSecond": 1000000, "perDay": 1000000000, "perMonth": 1000000000 }'
printf '{ "plans": { "free": %s, "pro": %s } }\n' "$LIFTED" "$LIFTED" >"$WORK/config.json"
node "$CLI" demo --db "$WORK/store.sqlite" --config "$WORK/config.json" >"$WORK/keys.txt" 2>"$WORK/demo.log" || { cat "$WORK/demo.log" >&2; fail "threatgate demo failed"; }
FREE_KEY="$(awk '$1 == "free" { print $2 }' "$WORK/keys.txt")"
PRO_KEY="$(awk '$1 == "pro" { print $2 }' "$WORK/keys.txt")"
[ -n "$FREE_KEY" ] && [ -n "$PRO_KEY" ] || fail "threatgate demo printed no free/pro keys"

# The output file exists before the server starts: the background job opens it only once it runs,
# and a read of it before that (a loaded machine) would fail this script under set -e.
: >"$WORK/server.out"
node "$CLI" serve --port 0 --host 127.0.0.1 --workers 1 --no-pull --db "$WORK/store.sqlite" --config "$WORK/config.json" >"$WORK/server.out" 2>"$WORK/server.log" &
SERVER_PID=$!
URL=""
for _ in $(seq 1 600); do
  URL="$(sed -n 's/^listening on \(http:\/\/[^ ]*\)$/\1/p' "$WORK/server.out")"
  [ -n "$URL" ] && break
  kill -0 "$SERVER_PID" 2>/dev/null || { cat "$WORK/server.log" >&2; fail "the server exited before it listened"; }
  sleep 0.1
done
[ -n "$URL" ] || fail "the server printed no \"listening on\" line in 60 s"
say "demo store served at $URL ($((SECONDS - STARTED)) s)"

# ---- the runs ---------------------------------------------------------------------------------
passed=0
failed=0
failures=""
run() {
  local name="$1" key="$2" start=$SECONDS
  # One worker: schemathesis's workers are threads, and Python 3.11 can fail parsing source in two
  # threads at once ("AST constructor recursion depth mismatch", CPython gh-106905), a tool error
  # that would fail the step now and then. One worker also keeps a seed's requests in one order.
  local args=(run "$URL/openapi.json" --checks "$CHECKS" --max-examples "$MAX_EXAMPLES" --seed "$SEED" --workers 1
    --no-color)
  say ""
  say "== schemathesis, $name"
  # From the work folder: schemathesis keeps its example database (.hypothesis) in the current one.
  if [ -n "$key" ]; then
    (cd "$WORK" && TG_KEY="$key" "$VENV/bin/schemathesis" --config-file "$HERE/keyed.toml" "${args[@]}") && status=0 || status=$?
  else
    (cd "$WORK" && "$VENV/bin/schemathesis" "${args[@]}") && status=0 || status=$?
  fi
  if [ "$status" = 0 ]; then
    passed=$((passed + 1))
    say "schemathesis, $name: no findings ($((SECONDS - start)) s)"
  else
    failed=$((failed + 1))
    failures="$failures $name"
    say "schemathesis, $name: FAILED with exit code $status ($((SECONDS - start)) s)"
  fi
}

run anonymous ""
run free "$FREE_KEY"
run pro "$PRO_KEY"

# The server must still be up, stop on SIGTERM with exit code 0, and have logged no error.
kill -0 "$SERVER_PID" 2>/dev/null || { failed=$((failed + 1)); failures="$failures server-died"; }
kill -TERM "$SERVER_PID" 2>/dev/null || true
server_status=0
wait "$SERVER_PID" || server_status=$?
SERVER_PID=""
if [ "$server_status" != 0 ]; then failed=$((failed + 1)); failures="$failures server-exit-$server_status"; fi
if grep -q '"level":"error"' "$WORK/server.log"; then
  failed=$((failed + 1))
  failures="$failures server-logged-errors"
  say "== errors in the server log"
  grep '"level":"error"' "$WORK/server.log" | head -20
fi

say ""
say "schemathesis $( "$VENV/bin/schemathesis" --version | awk '{ print $NF }'), $MAX_EXAMPLES examples per operation, seed $SEED, $((SECONDS - STARTED)) s${failures:+; failed:$failures}"
say "schemathesis: $passed passed, $failed failed"
[ "$failed" = 0 ]
