#!/usr/bin/env bash
# bench-recovery.sh — what checkpoints cost and what a worker loss costs, on a loopback cluster
# (docs/reliability.md, "Checkpoints and recovery"; issue 10).
#
# Starts `127.0.0.1 coordinator scheduler=1 worker=W` (W = 2 + 1 spare, so a lost worker can be
# replaced at once) with deploy/strads-cluster, then on one Lasso problem:
#  1. runs the job to --tolerance with --checkpoint-every 0 (none), 30 (the default) and EVERY
#     (a stress interval, default 0.05 s), alternating, REPEAT times each, and prints each run's
#     solve time (summary.json "seconds") and the checkpoints written (the coordinator's log);
#  2. runs it again and kill -9s one of its workers KILL_AT seconds after it starts running, and
#     prints the time to detect the loss, to restart, the work redone and the total time against
#     an uninterrupted run; the final objective must equal the uninterrupted one.
# Timed runs hold `flock /tmp/strads-cpu.lock`.
#
# Usage: deploy/bench-recovery.sh [--bin-dir DIR] [--data FILE --lambda L] [--repeat N]
#                                 [--every S] [--kill-at S] [--tolerance T]
#   Without --data: strads-gen --rows 2000 --features 40000 --group-size 10 --correlation 0.9
#   --density 0.05 --nonzeros 100 --seed 3, lambda 20 (the default problem takes ~8 s here).
set -euo pipefail
SCRIPT_DIR=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd -- "$SCRIPT_DIR/.." && pwd)
# The Python harnesses (bench/ at the repository's root).
pybench() { PYTHONPATH="$REPO${PYTHONPATH:+:$PYTHONPATH}" python3 -m "bench.$1" "${@:2}"; }
BIN=$SCRIPT_DIR/../build/bin
DATA="" LAMBDA=20 REPEAT=3 EVERY=0.05 KILL_AT=3 TOL=1e-9
while (($#)); do
  case $1 in
    --bin-dir) BIN=$2; shift 2 ;;
    --data) DATA=$(readlink -f -- "$2"); shift 2 ;;
    --lambda) LAMBDA=$2; shift 2 ;;
    --repeat) REPEAT=$2; shift 2 ;;
    --every) EVERY=$2; shift 2 ;;
    --kill-at) KILL_AT=$2; shift 2 ;;
    --tolerance) TOL=$2; shift 2 ;;
    *) sed -n '2,20p' "$0" >&2; exit 2 ;;
  esac
done
BIN=$(readlink -f -- "$BIN")
RUN=$(mktemp -d /tmp/strads-recovery.XXXXXX)
trap '"$SCRIPT_DIR/strads-cluster" stop --run-dir "$RUN" --bin-dir "$BIN" >/dev/null 2>&1 || true' EXIT
if [[ -z $DATA ]]; then
  DATA=$RUN/problem.svm
  "$BIN/strads-gen" --rows 2000 --features 40000 --group-size 10 --correlation 0.9 --density 0.05 \
    --nonzeros 100 --seed 3 --output "$DATA" 2>/dev/null
fi
printf '127.0.0.1 coordinator scheduler=1 worker=3\n' >"$RUN/hosts"
exports=$("$SCRIPT_DIR/strads-cluster" start --hostfile "$RUN/hosts" --run-dir "$RUN" --port 0 \
  --bin-dir "$BIN" --log-level info)
eval "$(grep '^export STRADS_COORDINATOR=' <<<"$exports")"
CLOG=$(ls "$RUN"/logs/coordinator*.log)
JOB=(lasso --data "$DATA" --lambda "$LAMBDA" --tolerance "$TOL" --workers 2)

field() { pybench recovery field "$@"; }
run() {  # run EVERY_S OUT: one uninterrupted job; prints "seconds objective checkpoints"
  local before after
  before=$(grep -c "checkpoint at" "$CLOG" || true)
  flock /tmp/strads-cpu.lock "$BIN/strads" submit "${JOB[@]}" --checkpoint-every "$1" \
    --output "$2" --wait --quiet >/dev/null
  after=$(grep -c "checkpoint at" "$CLOG" || true)
  echo "$(field "$2/summary.json" seconds) $(field "$2/summary.json" objective) $((after - before))"
}

echo "# checkpoint overhead: solve seconds (summary.json) per --checkpoint-every"
printf '%-8s %-12s %-12s %-22s %s\n' run interval seconds objective checkpoints
for ((r = 1; r <= REPEAT; r++)); do
  for every in 0 30 "$EVERY"; do
    read -r secs obj cps < <(run "$every" "$RUN/out-$r-$every")
    printf '%-8s %-12s %-12s %-22s %s\n' "$r" "$every" "$secs" "$obj" "$cps"
  done
done
grep "checkpoint at" "$CLOG" | sed -n 's/.*written in \([0-9.]*\) ms/\1/p' | sort -n |
  awk '{ a[NR] = $1 } END { if (NR) printf "# checkpoint write: min %s ms, median %s ms, max %s ms over %d\n", a[1], a[int((NR + 1) / 2)], a[NR], NR }'

echo "# a worker killed ${KILL_AT} s into the run (a spare worker is registered)"
flock /tmp/strads-cpu.lock "$BIN/strads" submit "${JOB[@]}" --output "$RUN/out-kill" --wait --quiet \
  >/dev/null &
sub=$!
for _ in $(seq 1 200); do
  "$BIN/strads" status --json 2>/dev/null | grep -q '"state": "RUNNING"' && break
  sleep 0.05
done
sleep "$KILL_AT"
# A busy worker (in the job), and the job's time at the kill.
read -r wpid killed_at < <("$BIN/strads" status --json | pybench recovery busy-worker)
kill -9 "$wpid"
wait "$sub" || true
pybench recovery report "$RUN/out-kill/summary.json" "$RUN/out-1-0/summary.json" "$killed_at"
