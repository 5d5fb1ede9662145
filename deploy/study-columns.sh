#!/usr/bin/env bash
# study-columns.sh — the scheduling-policy study (docs/performance.md, "Scheduling: dynamic
# against random and static"): time to 1e-3 of F* for each policy and chord size, embedded, 1 scheduler x 2 workers,
# the app's default pipeline depth (lasso: 2; --extra "--pipeline-depth 1" for depth 1), every
# run under `flock /tmp/strads-cpu.lock`.
# A trace row every 2 ms (--trace-every 0.002), so a time to 1e-3 is not rounded up to a check.
#
# Usage: deploy/study-columns.sh DATA LAMBDA FSTAR [options]
#   DATA, LAMBDA, FSTAR   a libsvm file, lambda, and the best objective known (deploy/bench-lasso.sh
#                         prints both for its synthetic problem: "lambda = ...; F* = ...")
#   --policies LIST       space-separated (default "dynamic random cyclic")
#   --sizes LIST          chord sizes, space-separated (default "8 64 512 1024")
#   --extra "FLAGS"       more flags for every run (e.g. "--rho 0.1" for the filtered static policy)
#   --bin-dir DIR         binaries (default build/bin beside deploy/)
#   --dir DIR             results (default /tmp/strads-study-columns)
#   --max-seconds S       limit of each run (default 20)
# Prints one markdown row per run: B, policy, seconds to 1e-3 of F* (bench/epsilon.py; n/r: not
# reached), updates then,
# rounds, mean step length and damped rounds of the whole run (summary.json).
set -euo pipefail
SCRIPT_DIR=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd -- "$SCRIPT_DIR/.." && pwd)
# The Python harnesses (bench/ at the repository's root).
pybench() { PYTHONPATH="$REPO${PYTHONPATH:+:$PYTHONPATH}" python3 -m "bench.$1" "${@:2}"; }
BIN=$SCRIPT_DIR/../build/bin
DIR=/tmp/strads-study-columns
POLICIES="dynamic random cyclic"
SIZES="8 64 512 1024"
EXTRA=""
MAX_SECONDS=20
(($# >= 3)) || { sed -n '2,16p' "$0" >&2; exit 2; }
DATA=$1 LAMBDA=$2 FSTAR=$3
shift 3
while (($#)); do
  case $1 in
    --policies) POLICIES=$2; shift 2 ;;
    --sizes) SIZES=$2; shift 2 ;;
    --extra) EXTRA=$2; shift 2 ;;
    --bin-dir) BIN=$2; shift 2 ;;
    --dir) DIR=$2; shift 2 ;;
    --max-seconds) MAX_SECONDS=$2; shift 2 ;;
    *) echo "study-columns.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$DIR"
echo "| B | policy | s to 1e-3 | updates to 1e-3 | rounds | mean step | damped rounds |"
echo "|---|---|---|---|---|---|---|"
for b in $SIZES; do
  for policy in $POLICIES; do
    out=$DIR/$policy-$b
    # shellcheck disable=SC2086  # EXTRA is a list of flags
    flock /tmp/strads-cpu.lock "$BIN/strads" run lasso --data "$DATA" --lambda "$LAMBDA" \
      --workers 2 --schedule "$policy" --chord-size "$b" --tolerance 1e-6 \
      --max-seconds "$MAX_SECONDS" --trace-every 0.002 --output "$out" $EXTRA > /dev/null 2>&1 || true
    pybench columns "$out" "$policy" "$b" "$FSTAR"
  done
done
