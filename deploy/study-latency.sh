#!/usr/bin/env bash
# study-latency.sh — the dynamic engine against network latency (docs/performance.md, "Dynamic
# engine across a network").
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
REPO=$(cd -- "$SCRIPT_DIR/.." && pwd)
# The Python harnesses (bench/ at the repository's root).
pybench() { PYTHONPATH="$REPO${PYTHONPATH:+:$PYTHONPATH}" python3 -m "bench.$1" "${@:2}"; }
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

pybench latency table "$DIR" "$NAME" "$LATENCIES" "$CONFIGS"

((COST_MODEL)) || exit 0
# 1024 updates a round (the column layout's default chord): 100 and 1000 rounds.
for rounds in 100 1000; do
  echo "==== cost model: $rounds rounds, no added latency" >&2
  STRADS_INJECT_LATENCY_US=0 "$SCRIPT_DIR/bench-lasso.sh" "${PASS[@]}" --name "$NAME-rounds$rounds" \
    --configs "$CONFIGS" --max-updates $((rounds * 1024)) >/dev/null
done
pybench latency cost-model "$DIR" "$NAME" "$CONFIGS"
