#!/usr/bin/env bash
# study-latency.sh — the dynamic engine against network latency (docs/scaling.md).
#
# This machine's kernel has no netem qdisc, so the latency is injected in the daemons' transport:
# with STRADS_INJECT_LATENCY_US=L every message a daemon receives is handed to it L µs after it
# arrived (common/latency_transport.h), i.e. L µs one way on every hop, on top of loopback TCP.
# For each latency it runs deploy/bench-lasso.sh over loopback clusters (the reference once per
# latency, as the F* and ratio basis) and then prints one table: per latency and configuration,
# µs per round, rounds/s, updates/s, updates per round and the solve time to 1e-3 of F*.
#
# Then, for the cost model, where a round's time goes at no added latency: each configuration
# runs twice more, stopped at 100 and at 1000 rounds (--max-updates), and the differences of the
# two runs (so loading cancels) give each daemon's CPU µs per round and the wall µs per round.
#
# Usage: deploy/study-latency.sh [--latencies 0,50,250] [--configs cl11c,cl12c,cl22c]
#                                [--no-cost-model]
#                                [bench-lasso.sh options: --bin-dir, --dir, --data, --app, ...]
set -euo pipefail

SCRIPT_DIR=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
LATENCIES=0,50,250
CONFIGS=cl11c,cl12c,cl22c
DIR=/tmp/strads-bench
NAME=synthetic
COST_MODEL=1
PASS=()
while (($#)); do
  case $1 in
    --latencies) LATENCIES=$2; shift 2 ;;
    --configs) CONFIGS=$2; shift 2 ;;
    --dir) DIR=$2; PASS+=("$1" "$2"); shift 2 ;;
    --name) NAME=$2; shift 2 ;;
    --no-cost-model) COST_MODEL=0; shift ;;
    -h | --help) sed -n '2,18p' "$0"; exit 0 ;;
    *) PASS+=("$1"); shift ;;
  esac
done

IFS=, read -r -a LAT <<<"$LATENCIES"
for l in "${LAT[@]}"; do
  [[ $l =~ ^[0-9]+$ ]] || { echo "study-latency.sh: bad latency '$l' (whole microseconds)" >&2; exit 2; }
  echo "==== one-way latency $l us" >&2
  STRADS_INJECT_LATENCY_US=$l "$SCRIPT_DIR/bench-lasso.sh" "${PASS[@]}" --name "$NAME-lat$l" \
    --configs "ref,$CONFIGS"
done

python3 - "$DIR" "$NAME" "$LATENCIES" "$CONFIGS" <<'PY'
import json, os, sys

root, name, lats, configs = sys.argv[1], sys.argv[2], sys.argv[3].split(","), sys.argv[4].split(",")
print(f"Problem `{name}`; latency injected one way on every message a daemon receives.")
print()
print("| one-way latency | config | us/round | rounds/s | updates/s | updates/round "
      "| s to 1e-3 | vs reference | vs 0 us |")
print("|---|---|---|---|---|---|---|---|---|")
base = {}
for lat in lats:
    with open(os.path.join(root, f"results-{name}-lat{lat}", "table.json")) as f:
        table = json.load(f)["configs"]
    ref = table.get("ref", {}).get("s_to_1e-3")
    for key in configs:
        c = table.get(key)
        if c is None:
            continue
        t3 = c["s_to_1e-3"]
        base.setdefault(key, t3)
        per_round = c["solve_s"] / c["rounds"] * 1e6 if c["rounds"] else None
        def ratio(x, y):
            return "n/r" if x is None or not y else f"{x / y:.1f}x"
        print(f"| {lat} us | {c['label']} | {per_round:,.0f} | {c['rounds'] / c['solve_s']:,.0f} | "
              f"{c['updates'] / c['solve_s']:,.0f} | {c['updates'] / c['rounds']:,.0f} | "
              f"{'n/r' if t3 is None else f'{t3:.3f}'} | {ratio(t3, ref)} | {ratio(t3, base[key])} |")
PY

((COST_MODEL)) || exit 0
# 1024 updates a round (the column layout's default chord): 100 and 1000 rounds.
for rounds in 100 1000; do
  echo "==== cost model: $rounds rounds, no added latency" >&2
  STRADS_INJECT_LATENCY_US=0 "$SCRIPT_DIR/bench-lasso.sh" "${PASS[@]}" --name "$NAME-rounds$rounds" \
    --configs "$CONFIGS" --max-updates $((rounds * 1024)) >/dev/null
done
python3 - "$DIR" "$NAME" "$CONFIGS" <<'PY'
import json, os, sys

root, name, configs = sys.argv[1], sys.argv[2], sys.argv[3].split(",")

def load(tag, key):
    d = os.path.join(root, f"results-{name}-{tag}")
    with open(os.path.join(d, "table.json")) as f:
        c = json.load(f)["configs"][key]
    cpu = {}
    with open(os.path.join(d, f"{key}.cpu")) as f:
        for line in f:
            daemon, seconds = line.split()
            role = daemon.split("-")[0]
            cpu[role] = cpu.get(role, 0.0) + float(seconds)
    return c, cpu

print()
print("Where a round goes at no added latency (differences of a 1000-round and a 100-round run;"
      " CPU summed over the daemons of a role):")
print()
print("| config | wall us/round | coordinator CPU us/round | schedulers CPU us/round "
      "| workers CPU us/round |")
print("|---|---|---|---|---|")
for key in configs:
    try:
        (s, cs), (l, cl) = load("rounds100", key), load("rounds1000", key)
    except (OSError, KeyError):
        continue
    dr = l["rounds"] - s["rounds"]
    wall = (l["solve_s"] - s["solve_s"]) / dr * 1e6
    per = {r: (cl.get(r, 0.0) - cs.get(r, 0.0)) / dr * 1e6 for r in ("coordinator", "scheduler", "worker")}
    print(f"| {l['label']} | {wall:,.0f} | {per['coordinator']:,.0f} | {per['scheduler']:,.0f} "
          f"| {per['worker']:,.0f} |")
PY
