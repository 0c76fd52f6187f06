#!/usr/bin/env bash
# Server CPU time per request on the cached path, for A/B checks of per-request work: steadier than
# req/s on a noisy VM. Starts the built gateway on DB (pinned to core 0), runs wrk on core 1 for each
# scenario (2 s warm-up, then DURATION s), and divides the server's user+system CPU by the requests.
#   bash bench/cpu-per-request.sh [DB] [DURATION]   (DB default bench/out/db-10k.sqlite; npm run build first)
# With REPLAY=FILE (the bare-responses-SIZE.json the HTTP bench records), the bare node:http server
# (or with EXPRESS=1 the Express floor) replays those answers instead, and each recorded path is run.
set -euo pipefail
cd "$(dirname "$0")/.."
DB=${1:-bench/out/db-10k.sqlite}
DURATION=${2:-5}
PORT=${PORT:-8899}
command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install -y wrk)" >&2; exit 1; }
TICK_US=$((1000000 / $(getconf CLK_TCK)))
cpu_ticks() { awk '{print $14 + $15}' "/proc/$SERVER/stat"; }

run() {
  local name=$1 path=$2
  shift 2
  taskset -c 1 wrk -t1 -c16 -d2s "$@" "http://127.0.0.1:$PORT$path" >/dev/null
  local before out after
  before=$(cpu_ticks)
  out=$(taskset -c 1 wrk -t1 -c16 -d"${DURATION}s" --latency "$@" "http://127.0.0.1:$PORT$path")
  after=$(cpu_ticks)
  local requests rps p50 p99
  requests=$(awk '/requests in/{print $1}' <<<"$out")
  rps=$(awk '/Requests\/sec/{print $2}' <<<"$out")
  p50=$(awk '$1=="50%"{print $2}' <<<"$out")
  p99=$(awk '$1=="99%"{print $2}' <<<"$out")
  printf '%-10s %5d µs CPU/request  %9s req/s  p50 %8s  p99 %8s\n' "$name" $(((after - before) * TICK_US / requests)) "$rps" "$p50" "$p99"
}

if [ -n "${REPLAY:-}" ]; then
  taskset -c 0 node --import tsx bench/bare-server.ts --responses "$REPLAY" --port "$PORT" ${EXPRESS:+--express} >/dev/null 2>&1 &
  SERVER=$!
  trap 'kill $SERVER 2>/dev/null || true' EXIT
  for _ in $(seq 100); do curl -s "http://127.0.0.1:$PORT/" >/dev/null && break; sleep 0.2; done
  while read -r path; do run "${path:0:24}" "$path"; done < <(node -e 'for (const r of JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))) console.log(r.path)' "$REPLAY")
  exit 0
fi

[ -f "$DB" ] || { echo "no database $DB: run the HTTP bench once (it imports bench/out/db-10k.sqlite)" >&2; exit 1; }

BUSINESS=$(node dist/main.js keys create --plan business --label cpu-per-request --db "$DB" | head -1)
PRO=$(node dist/main.js keys create --plan pro --label cpu-per-request --db "$DB" | head -1)
taskset -c 0 node dist/main.js serve --db "$DB" --config bench/bench-config.json --host 127.0.0.1 --port "$PORT" >/dev/null 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null && break; sleep 0.2; done

AUTH="Authorization: Basic $(printf 'taxii2:%s' "$PRO" | base64 -w0)"
ACCEPT="Accept: application/taxii+json;version=2.1"
COLLECTION=$(curl -s -H "$AUTH" -H "$ACCEPT" "http://127.0.0.1:$PORT/taxii2/api/collections/" |
  node -e 'let s="";process.stdin.on("data",(d)=>(s+=d)).on("end",()=>{const c=JSON.parse(s).collections;console.log(c[c.length-1].id)})')
run threat "/api/threat.php?tid=1&key=$BUSINESS"
run links "/api/feed.php?fid=1&get=links&page=0&key=$BUSINESS"
run discovery "/taxii2/" -H "$AUTH" -H "$ACCEPT"
run objects "/taxii2/api/collections/$COLLECTION/objects/?limit=100" -H "$AUTH" -H "$ACCEPT"
