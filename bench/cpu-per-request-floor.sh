#!/usr/bin/env bash
# Server CPU time per cached request of threatgate beside the least-work server and the bare server
# (bench/bare-server.ts --least-work and plain), replaying the answers the HTTP bench recorded: all
# three serve at once (each one process, pinned to core 0, wrk on core 1), and each recorded path is
# measured in rotating 3 s bursts, BURSTS per server. Prints per path the median µs per request of
# each and their ratios: bare ÷ least is what the request's necessary work costs on this machine,
# least ÷ threatgate what the rest of threatgate costs. Request logs go to files under
# bench/out/logs, as in the HTTP bench.
#   bash bench/cpu-per-request-floor.sh [DB] [BURSTS]   (DB default bench/out/db-10k.sqlite, BURSTS 7;
#   npm run build and one HTTP bench run first, which records bench/out/bare-responses-SIZE.json)
#   ONLY=REGEX measures only the recorded paths it matches, e.g. ONLY='threat.php|/taxii2/$'
set -euo pipefail
cd "$(dirname "$0")/.."
DB=${1:-bench/out/db-10k.sqlite}
N=${2:-7}
SIZE=$(basename "$DB" .sqlite)
REPLAY=${REPLAY:-bench/out/bare-responses-${SIZE#db-}.json}
command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install -y wrk)" >&2; exit 1; }
[ -f "$REPLAY" ] || { echo "no recorded answers $REPLAY: run the HTTP bench once at this size" >&2; exit 1; }
TICK_US=$((1000000 / $(getconf CLK_TCK)))
mkdir -p bench/out/logs
PORT=${PORT:-8890}
TG_PORT=$((PORT + 1)) LEAST_PORT=$((PORT + 2)) BARE_PORT=$((PORT + 3))
taskset -c 0 node dist/main.js serve --db "$DB" --config bench/bench-config.json --host 127.0.0.1 --port $TG_PORT --workers 1 >/dev/null 2>bench/out/logs/floor-threatgate.log &
TG=$!
trap 'kill $TG ${LEAST:-} ${BARE:-} 2>/dev/null || true' EXIT
taskset -c 0 node --import tsx bench/bare-server.ts --responses "$REPLAY" --port $LEAST_PORT --least-work >/dev/null 2>bench/out/logs/floor-least.log &
LEAST=$!
taskset -c 0 node --import tsx bench/bare-server.ts --responses "$REPLAY" --port $BARE_PORT >/dev/null 2>&1 &
BARE=$!
for port in $TG_PORT $LEAST_PORT $BARE_PORT; do
  for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$port/healthz" && break; sleep 0.2; done
done
# The TAXII paths need a key of a plan that opens TAXII; the replays take any key.
PRO=$(node dist/main.js keys create --plan pro --label cpu-per-request-floor --db "$DB" | head -1)
AUTH="Authorization: Basic $(printf 'taxii2:%s' "$PRO" | base64 -w0)"
ACCEPT="Accept: application/taxii+json;version=2.1"
mapfile -t PATHS < <(node -e 'for (const r of JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))) if (new RegExp(process.env.ONLY || ".").test(r.path)) console.log(r.path)' "$REPLAY")

burst() {
  local pid=$1 port=$2 path=$3
  shift 3
  local before out after
  before=$(awk '{print $14 + $15}' "/proc/$pid/stat")
  out=$(taskset -c 1 wrk -t1 -c16 -d3s "$@" "http://127.0.0.1:$port$path")
  after=$(awk '{print $14 + $15}' "/proc/$pid/stat")
  awk -v t=$(((after - before) * TICK_US)) -v n="$(awk '/requests in/{print $1}' <<<"$out")" 'BEGIN { printf "%.1f", t / n }'
}
median() { tr ' ' '\n' | grep . | sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

SERVERS=("threatgate:$TG_PORT:$TG" "least:$LEAST_PORT:$LEAST" "bare:$BARE_PORT:$BARE")
for path in "${PATHS[@]}"; do
  headers=()
  [[ $path == /taxii2* ]] && headers=(-H "$AUTH" -H "$ACCEPT")
  declare -A got=()
  for s in "${SERVERS[@]}"; do
    IFS=: read -r name port pid <<<"$s"
    taskset -c 1 wrk -t1 -c16 -d2s "${headers[@]}" "http://127.0.0.1:$port$path" >/dev/null
    got[$name]=""
  done
  for ((i = 0; i < N; i++)); do
    for ((r = 0; r < 3; r++)); do
      IFS=: read -r name port pid <<<"${SERVERS[(i + r) % 3]}" # each round starts with the next server
      got[$name]+=" $(burst "$pid" "$port" "$path" "${headers[@]}")"
    done
  done
  tg=$(median <<<"${got[threatgate]}") least=$(median <<<"${got[least]}") bare=$(median <<<"${got[bare]}")
  printf '%-48s threatgate %5s µs  least %5s µs  bare %5s µs   bare÷tg %s  bare÷least %s  least÷tg %s\n' \
    "$(sed 's/key=[^&]*/key=KEY/' <<<"${path:0:60}")" "$tg" "$least" "$bare" "$(ratio "$bare" "$tg")" "$(ratio "$bare" "$least")" "$(ratio "$least" "$tg")"
  for name in threatgate least bare; do echo "    $name:${got[$name]}"; done
done
