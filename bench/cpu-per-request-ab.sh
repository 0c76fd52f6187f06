#!/usr/bin/env bash
# Server CPU time per cached request of several builds, side by side: every build serves at once
# (each one process, all pinned to core 0, wrk on core 1), and each scenario is measured in rotating
# 3 s bursts, BURSTS per build, so that whatever else loads the machine falls on every build alike.
# Prints per scenario the median µs per request of each build and its difference from the first.
# On a shared VM, cpu-per-request.sh run build after build drifts by 10% and more between runs;
# this is for deciding differences of a few percent.
#   bash bench/cpu-per-request-ab.sh DB BURSTS NAME=CLONE_DIR...   (each clone built, npm run build; oldest first:
#   keys are made by the last, whose migrations the store then has); SCENARIOS=threat,objects for only those
#   (threat, ind-iid, ind-value, links, discovery, objects)
# e.g. bash bench/cpu-per-request-ab.sh bench/out/db-10k.sqlite 10 before=/tmp/base after=.
set -euo pipefail
[ $# -ge 3 ] || { sed -n '2,12p' "$0" >&2; exit 1; }
DB=$(realpath "$1")
N=$2
shift 2
command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install -y wrk)" >&2; exit 1; }
[ -f "$DB" ] || { echo "no database $DB: run the HTTP bench once (it imports bench/out/db-10k.sqlite)" >&2; exit 1; }
TICK_US=$((1000000 / $(getconf CLK_TCK)))
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

names=() dirs=() pids=() ports=()
port=${PORT:-8890}
for spec in "$@"; do
  port=$((port + 1))
  names+=("${spec%%=*}")
  dirs+=("$(realpath "${spec#*=}")")
  ports+=("$port")
  (cd "${dirs[-1]}" && exec taskset -c 0 node dist/main.js serve --db "$DB" --config bench/bench-config.json --host 127.0.0.1 --port "$port" --workers 1 >/dev/null 2>&1) &
  pids+=($!)
  trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT
  # One after another: a later build may migrate the store, which an earlier one checks at its start.
  for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.2; done
done

BUSINESS=$(cd "${dirs[-1]}" && node dist/main.js keys create --plan business --label cpu-per-request-ab --db "$DB" | head -1)
PRO=$(cd "${dirs[-1]}" && node dist/main.js keys create --plan pro --label cpu-per-request-ab --db "$DB" | head -1)
AUTH="Authorization: Basic $(printf 'taxii2:%s' "$PRO" | base64 -w0)"
ACCEPT="Accept: application/taxii+json;version=2.1"
COLLECTION=$(curl -s -H "$AUTH" -H "$ACCEPT" "http://127.0.0.1:${ports[0]}/taxii2/api/collections/" |
  node -e 'let s="";process.stdin.on("data",(d)=>(s+=d)).on("end",()=>{const c=JSON.parse(s).collections;console.log(c[c.length-1].id)})')

# One burst: µs of server CPU per request.
burst() {
  local pid=$1 port=$2 path=$3
  shift 3
  local before out after
  before=$(cpu_ticks "$pid")
  out=$(taskset -c 1 wrk -t1 -c16 -d3s "$@" "http://127.0.0.1:$port$path")
  after=$(cpu_ticks "$pid")
  # Tenths of a µs: a few percent is what these runs are for.
  awk -v t=$(((after - before) * TICK_US)) -v n="$(awk '/requests in/{print $1}' <<<"$out")" 'BEGIN { printf "%.1f", t / n }'

}
median() { sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

run() {
  local name=$1 path=$2
  shift 2
  # SCENARIOS=threat,objects runs only those.
  [ -z "${SCENARIOS:-}" ] || [[ ",$SCENARIOS," == *",$name,"* ]] || return 0
  local k=${#pids[@]} i j r
  local -a got=()
  for ((j = 0; j < k; j++)); do taskset -c 1 wrk -t1 -c16 -d2s "$@" "http://127.0.0.1:${ports[j]}$path" >/dev/null; done
  for ((i = 0; i < N; i++)); do
    for ((r = 0; r < k; r++)); do
      j=$(((i + r) % k)) # each round starts with the next build
      got[j]="${got[j]:-} $(burst "${pids[j]}" "${ports[j]}" "$path" "$@")"
    done
  done
  local line first=""
  line=$(printf '%-10s' "$name")
  for ((j = 0; j < k; j++)); do
    local m
    m=$(tr ' ' '\n' <<<"${got[j]}" | grep . | median)
    first=${first:-$m}
    line+=$(printf '  %s %6s µs (%+.1f%%)' "${names[j]}" "$m" "$(awk -v a="$first" -v b="$m" 'BEGIN { print (b - a) * 100 / a }')")
  done
  echo "$line"
  for ((j = 0; j < k; j++)); do echo "           ${names[j]}:${got[j]}"; done
}

run threat "/api/threat.php?tid=1&key=$BUSINESS"
# The indicator lookups (docs/lookup-api.md): by iid, and by the same indicator's value in another spelling
# (a domain in upper case with a trailing dot; other types as stored), which the lookup normalizes.
VALUE=$(curl -s "http://127.0.0.1:${ports[0]}/api/indicator.php?iid=1&key=$BUSINESS" |
  node -e 'let s="";process.stdin.on("data",(d)=>(s+=d)).on("end",()=>{const i=JSON.parse(s);console.log(encodeURIComponent(i.type==="domain"?`${i.indicator.toUpperCase()}.`:i.indicator))})')
run ind-iid "/api/indicator.php?iid=1&key=$BUSINESS"
run ind-value "/api/indicator.php?indicator=$VALUE&key=$BUSINESS"
run links "/api/feed.php?fid=1&get=links&page=0&key=$BUSINESS"
run discovery "/taxii2/" -H "$AUTH" -H "$ACCEPT"
run objects "/taxii2/api/collections/$COLLECTION/objects/?limit=100" -H "$AUTH" -H "$ACCEPT"
