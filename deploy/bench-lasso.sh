#!/usr/bin/env bash
# bench-lasso.sh — the Lasso (and L1-LR) benchmark (docs/performance.md).
#
# For one problem (the correlated synthetic one by default, or --data FILE) it runs
#   (a) the sequential reference solver        strads-lasso-reference (lasso only)
#   (b) the embedded engine, 1x1 and 1x2       strads run APP --schedulers S --workers P
#   (c) daemon clusters on loopback, 1x1, 1x2, 2x2
#                                              deploy/strads-cluster start --port 0, strads submit
# all at a tight tolerance, then reads every trace.csv and prints, per configuration, the solve
# time and updates at which the relative objective gap (F - F*)/|F*| first drops to <= 1e-3, 1e-6
# and 1e-9 (bench/epsilon.py), and the ratio of those times to the reference's.
#
#   F*     = the smallest exact objective seen: the reference's trace (exact after every sweep)
#            and every run's final summary objective (exact: computed at the last full check).
#   lambda = LAMBDA_FRACTION * lambda_max, lambda_max = max_j |x_j^T y| (from a reference run at
#            a huge lambda, which stops at beta = 0 and reports it); logistic: max_j |x_j^T y| / 2
#            (python3 -m bench.compare lambda-max).
#   Times  = solve time. The reference's trace starts at the start of the solve (loading is
#            excluded). The engine's trace.csv `seconds` count from job start, which includes
#            each worker loading its shard; its first row is written at the first optimality
#            check (at beta = 0, right after loading), so engine solve time = seconds - seconds of
#            the first row. That first-row time is shown as "start" (load + first check).
#   Engine trace rows are exact at every full check (every `features` updates) and, in between,
#   every 2 ms (--trace-every 0.002): the exact objective of the coordinator's replica.
#
# Usage: deploy/bench-lasso.sh [options]
#   --app APP            lasso (default) or logistic; logistic's default problem is compare-tools.sh's
#                        logistic-synthetic (strads-gen 20000 x 20000, y thresholded at its median)
#   --data FILE          use this libsvm file instead of generating the synthetic problem
#   --name NAME          label for the output (default: synthetic or the file's base name)
#   --dir DIR            data and results (default /tmp/strads-bench)
#   --bin-dir DIR        binaries (default: build-bench/bin beside deploy/)
#   --lambda-fraction F  lambda = F * lambda_max (default 0.1)
#   --tolerance T        tolerance of every run (default 1e-9: relative KKT violation)
#   --max-seconds S      time limit of each engine run (default 90; the 1e-6 point is reached
#                        long before the 1e-9 tolerance on this machine)
#   --max-updates N      stop every engine run after N updates (default 0: no limit)
#   --trace-every S      a trace row of every engine run at most every S seconds between checks
#                        (default 0.002; a solve of a millisecond or two wants less, e.g. 0.00001:
#                        a row after every commit, as the reference writes one every sweep)
#   --engine-args "ARGS" more options for every engine run, split on spaces (e.g.
#                        "--chord-size 4096 --candidates 8192"); the reference does not get them
#   --configs LIST       comma list of ref (the reference), emb11c, emb12c (embedded 1x1, 1x2),
#                        cl11c, cl12c, cl22c (loopback clusters of S schedulers x P workers)
#                        (default: ref,emb11c,emb12c,cl11c,cl22c; the c once meant the column
#                        layout, now the dynamic engine's only one)
set -euo pipefail

SCRIPT_DIR=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd -- "$SCRIPT_DIR/.." && pwd)
# The Python harnesses (bench/ at the repository's root).
pybench() { PYTHONPATH="$REPO${PYTHONPATH:+:$PYTHONPATH}" python3 -m "bench.$1" "${@:2}"; }
BIN=$REPO/build-bench/bin
APP=lasso
DIR=/tmp/strads-bench
DATA=""
NAME=""
FRACTION=0.1
TOL=1e-9
MAX_SECONDS=90
MAX_UPDATES=0
TRACE_EVERY=0.002
ENGINE_ARGS=()
CONFIGS=ref,emb11c,emb12c,cl11c,cl22c

# The synthetic problem (tools/synthetic_lasso.h): 1000 x 100,000, groups of 10 features with
# correlation 0.9, 2% dense columns sharing their group's row support, 50 true nonzeros.
GEN_ARGS=(--rows 1000 --features 100000 --group-size 10 --correlation 0.9 --density 0.02
  --nonzeros 50 --noise 0.1 --seed 42)

while (($#)); do
  case $1 in
    --app) APP=$2; shift 2 ;;
    --data) DATA=$2; shift 2 ;;
    --name) NAME=$2; shift 2 ;;
    --dir) DIR=$2; shift 2 ;;
    --bin-dir) BIN=$2; shift 2 ;;
    --lambda-fraction) FRACTION=$2; shift 2 ;;
    --tolerance) TOL=$2; shift 2 ;;
    --max-seconds) MAX_SECONDS=$2; shift 2 ;;
    --max-updates) MAX_UPDATES=$2; shift 2 ;;
    --trace-every) TRACE_EVERY=$2; shift 2 ;;
    --engine-args) read -ra ENGINE_ARGS <<<"$2"; shift 2 ;;
    --configs) CONFIGS=$2; shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-lasso.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done

for b in strads strads-coordinator strads-scheduler strads-worker strads-gen strads-lasso-reference; do
  [[ -x $BIN/$b ]] || { echo "bench-lasso.sh: $BIN/$b missing: build with cmake --build build-bench" >&2; exit 1; }
done
mkdir -p "$DIR"
DIR=$(cd -- "$DIR" && pwd)

case $APP in
  lasso) ;;
  logistic) CONFIGS=${CONFIGS//ref/} ;;  # no sequential reference executable for logistic
  *) echo "bench-lasso.sh: --app must be lasso or logistic, got $APP" >&2; exit 2 ;;
esac

if [[ -z $DATA && $APP == logistic ]]; then
  NAME=${NAME:-logistic-synthetic}
  DATA=$DIR/logistic-20000x20000.libsvm
  if [[ ! -s $DATA ]]; then
    echo "== generating $DATA (compare-tools.sh's logistic-synthetic)" >&2
    "$BIN/strads-gen" --rows 20000 --features 20000 --density 0.002 --nonzeros 2000 --seed 7 \
      --output "$DIR/gen-20000x20000.libsvm" >&2
    pybench compare gen-labels "$DIR/gen-20000x20000.libsvm" "$DATA" >&2
  fi
elif [[ -z $DATA ]]; then
  NAME=${NAME:-synthetic}
  DATA=$DIR/synthetic-1000x100000.libsvm
  if [[ ! -s $DATA ]]; then
    echo "== generating $DATA: strads-gen ${GEN_ARGS[*]}" >&2
    "$BIN/strads-gen" "${GEN_ARGS[@]}" --output "$DATA" >&2
  fi
else
  DATA=$(readlink -f -- "$DATA")
  NAME=${NAME:-$(basename -- "${DATA%.*}")}
fi
OUT=$DIR/results-$NAME
rm -rf -- "$OUT"
mkdir -p "$OUT"

has() { [[ ,$CONFIGS, == *",$1,"* ]]; }

echo "== lambda_max" >&2
if [[ $APP == lasso ]]; then
  "$BIN/strads-lasso-reference" --data "$DATA" --lambda 1e300 --tolerance 0 --output "$OUT/lambda-max" >&2
  LAMBDA_MAX=$(python3 -c 'import json,sys; print(repr(json.load(open(sys.argv[1]))["lambda_max"]))' "$OUT/lambda-max/summary.json")
else
  LAMBDA_MAX=$(pybench compare lambda-max "$APP" "$DATA")
fi
LAMBDA=$(python3 -c 'import sys; print(repr(float(sys.argv[1]) * float(sys.argv[2])))' "$FRACTION" "$LAMBDA_MAX")
echo "== lambda = $FRACTION * lambda_max = $FRACTION * $LAMBDA_MAX = $LAMBDA" >&2

JOB=(--data "$DATA" --lambda "$LAMBDA" --tolerance "$TOL")

if has ref; then
  echo "== (a) reference" >&2
  "$BIN/strads-lasso-reference" "${JOB[@]}" --output "$OUT/ref" >&2
fi
# The engine's runs only. A trace row every 2 ms between checks (by default), so that the time to
# a gap is not rounded up to the next check (100 rounds apart on the synthetic problem).
JOB+=(--max-updates "$MAX_UPDATES" --trace-every "$TRACE_EVERY" "${ENGINE_ARGS[@]}")

run_embedded() { # NAME SCHEDULERS WORKERS [JOB OPTIONS...]
  echo "== (b) embedded $2x$3: strads run $APP ${JOB[*]} ${*:4} --schedulers $2 --workers $3 --max-seconds $MAX_SECONDS" >&2
  "$BIN/strads" run "$APP" "${JOB[@]}" "${@:4}" --schedulers "$2" --workers "$3" \
    --max-seconds "$MAX_SECONDS" --output "$OUT/$1" >"$OUT/$1.log" 2>&1 ||
    { echo "bench-lasso.sh: $1 failed, see $OUT/$1.log" >&2; tail -5 "$OUT/$1.log" >&2; }
  tail -1 "$OUT/$1.log" >&2 || true
}
has emb11c && run_embedded emb11c 1 1
has emb12c && run_embedded emb12c 1 2

CLUSTER_RUN_DIR=""
stop_cluster() {
  if [[ -n $CLUSTER_RUN_DIR ]]; then
    "$SCRIPT_DIR/strads-cluster" stop --run-dir "$CLUSTER_RUN_DIR" --bin-dir "$BIN" >&2 || true
    rm -rf -- "$CLUSTER_RUN_DIR"
    CLUSTER_RUN_DIR=""
  fi
}
trap stop_cluster EXIT
trap 'exit 130' INT TERM

run_cluster() { # NAME SCHEDULERS WORKERS [JOB OPTIONS...]
  CLUSTER_RUN_DIR=$(mktemp -d /tmp/strads-bench-cluster.XXXXXX)
  printf '127.0.0.1 coordinator scheduler=%s worker=%s\n' "$2" "$3" >"$CLUSTER_RUN_DIR/hosts"
  echo "== (c) loopback cluster $2x$3: strads-cluster start --hostfile $CLUSTER_RUN_DIR/hosts --port 0" >&2
  local exports
  exports=$("$SCRIPT_DIR/strads-cluster" start --hostfile "$CLUSTER_RUN_DIR/hosts" \
    --run-dir "$CLUSTER_RUN_DIR" --port 0 --bin-dir "$BIN" --log-level warn)
  eval "$(grep '^export STRADS_COORDINATOR=' <<<"$exports")"
  echo "   $STRADS_COORDINATOR; strads submit $APP ${JOB[*]} ${*:4} --max-seconds $MAX_SECONDS --wait" >&2
  "$BIN/strads" submit "$APP" "${JOB[@]}" "${@:4}" --max-seconds "$MAX_SECONDS" --wait \
    --output "$OUT/$1" >"$OUT/$1.log" 2>&1 ||
    { echo "bench-lasso.sh: $1 failed, see $OUT/$1.log" >&2; tail -5 "$OUT/$1.log" >&2; }
  tail -1 "$OUT/$1.log" >&2 || true
  daemon_cpu_seconds >"$OUT/$1.cpu"
  stop_cluster
}

# Prints "DAEMON CPU_SECONDS" (user + system, since it started) for every local daemon of the
# cluster: what each role spent, idle heartbeats included (the cost model of docs/performance.md).
daemon_cpu_seconds() {
  local f pid tick
  tick=$(getconf CLK_TCK)
  for f in "$CLUSTER_RUN_DIR"/pids/*.pid; do
    pid=$(head -n 1 "$f")
    [[ $pid =~ ^[0-9]+$ && -r /proc/$pid/stat ]] || continue
    # Fields 14 and 15 of /proc/PID/stat (after the parenthesised command name).
    awk -v n="$(basename "$f" .pid)" -v t="$tick" '{ sub(/^.*\) /, ""); print n, ($12 + $13) / t }' \
      "/proc/$pid/stat"
  done
}
has cl11c && run_cluster cl11c 1 1
has cl12c && run_cluster cl12c 1 2
has cl22c && run_cluster cl22c 2 2

echo "== table ($NAME: $DATA, lambda = $FRACTION lambda_max = $LAMBDA, tolerance $TOL)" >&2
pybench lasso "$OUT" "$NAME" "$LAMBDA" "$FRACTION"
