#!/usr/bin/env bash
# ab-jobs.sh — compares two builds of the daemons (or two settings of one) on the same jobs:
# fresh loopback clusters of each build, alternated (base, new, base, new, ...), each
# running a few jobs one after another, every job under `flock /tmp/strads-cpu.lock`. On a shared
# VM whose speed drifts by tens of percent within an hour, only alternated runs compare builds.
#
# Usage: deploy/ab-jobs.sh --base-bin DIR --new-bin DIR --data FILE --lambda L --fstar F [options]
#   --base-bin DIR, --new-bin DIR   the two builds' bin directories (strads, strads-coordinator,
#                                   strads-scheduler, strads-worker)
#   --data FILE, --lambda L         the problem (libsvm)
#   --fstar F                       the best objective known (e.g. from deploy/bench-lasso.sh)
#   --app APP                       lasso (default), logistic or svm
#   --schedulers S, --workers W     the cluster (default 1 x 2)
#   --reps R                        clusters of each build, alternated (default 3)
#   --jobs N                        jobs a cluster (default 4)
#   --flags "FLAGS"                 more flags for every job (e.g. "--max-seconds 3", or
#                                   "--check-every 1000000000 --max-updates 1024000" for rounds
#                                   without checks)
#   --base-flags "F", --new-flags "F"
#                                   flags for one side's jobs only, added to --flags (an option
#                                   must not be in both): two settings of one build compared
#                                   (--base-bin = --new-bin)
#   --base-launcher FILE            the strads-cluster script that starts the base build's
#                                   clusters (default: this checkout's): a build from before the
#                                   launcher moved into the C++ CLI needs its own checkout's
#   --dir DIR                       results (default /tmp/strads-ab-jobs)
# Prints, for each build, the medians over its jobs of: seconds to 1e-3 / 1e-6 / 1e-9 of F*
# (bench/epsilon.py: the first trace.csv row at or below the relative gap; nan: not reached), rounds, checks, the
# wall µs a round between round 2 and the last row before the final check, the coordinator's wait
# for chords a round (summary.json's wait ledger), and each job's time to 1e-3.
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$SCRIPT_DIR/.." && pwd)
# The Python harnesses (bench/ at the repository's root).
pybench() { PYTHONPATH="$REPO${PYTHONPATH:+:$PYTHONPATH}" python3 -m "bench.$1" "${@:2}"; }
BASE_BIN='' NEW_BIN='' DATA='' LAMBDA='' FSTAR='' FLAGS='' BASE_FLAGS='' NEW_FLAGS=''
APP=lasso S=1 W=2 REPS=3 JOBS=4 DIR=/tmp/strads-ab-jobs BASE_LAUNCHER=$SCRIPT_DIR/strads-cluster
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
die() { echo "ab-jobs.sh: $*" >&2; exit 2; }
while [[ $# -gt 0 ]]; do
  case $1 in
    --base-bin) BASE_BIN=${2:?}; shift 2 ;;
    --base-launcher) BASE_LAUNCHER=${2:?}; shift 2 ;;
    --new-bin) NEW_BIN=${2:?}; shift 2 ;;
    --data) DATA=${2:?}; shift 2 ;;
    --lambda) LAMBDA=${2:?}; shift 2 ;;
    --fstar) FSTAR=${2:?}; shift 2 ;;
    --app) APP=${2:?}; shift 2 ;;
    --schedulers) S=${2:?}; shift 2 ;;
    --workers) W=${2:?}; shift 2 ;;
    --reps) REPS=${2:?}; shift 2 ;;
    --jobs) JOBS=${2:?}; shift 2 ;;
    --flags) FLAGS=${2-}; shift 2 ;;
    --base-flags) BASE_FLAGS=${2-}; shift 2 ;;
    --new-flags) NEW_FLAGS=${2-}; shift 2 ;;
    --dir) DIR=${2:?}; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) die "unknown option '$1' (--help lists them)" ;;
  esac
done
[[ -n $BASE_BIN && -n $NEW_BIN && -n $DATA && -n $LAMBDA && -n $FSTAR ]] ||
  die "need --base-bin, --new-bin, --data, --lambda and --fstar (--help)"
for bin in "$BASE_BIN" "$NEW_BIN"; do
  for exe in strads strads-coordinator strads-scheduler strads-worker; do
    [[ -x $bin/$exe ]] || die "$bin/$exe: not found or not executable"
  done
done
[[ -r $DATA ]] || die "$DATA: cannot read"
for n in "$S" "$W" "$REPS" "$JOBS"; do
  [[ $n =~ ^[1-9][0-9]*$ ]] || die "--schedulers, --workers, --reps and --jobs take positive integers"
done

rm -rf "$DIR" && mkdir -p "$DIR"
for rep in $(seq "$REPS"); do
  for side in base new; do
    bin=$BASE_BIN side_flags=$BASE_FLAGS launcher=$BASE_LAUNCHER
    [[ $side == new ]] && bin=$NEW_BIN side_flags=$NEW_FLAGS launcher=$SCRIPT_DIR/strads-cluster
    run=$(mktemp -d /tmp/strads-ab-cluster.XXXXXX)
    printf '127.0.0.1 coordinator scheduler=%s worker=%s\n' "$S" "$W" > "$run/hosts"
    exports=$("$launcher" start --hostfile "$run/hosts" --run-dir "$run" --port 0 \
      --bin-dir "$bin" --log-level warn 2> "$run/start.log") ||
      { cat "$run/start.log" >&2; die "the $side cluster did not start"; }
    eval "$(grep '^export STRADS_COORDINATOR=' <<< "$exports")"
    for job in $(seq "$JOBS"); do
      echo "ab-jobs.sh: $side, cluster $rep, job $job" >&2
      # shellcheck disable=SC2086  # FLAGS and side_flags are lists of flags
      flock /tmp/strads-cpu.lock "$bin/strads" submit "$APP" --data "$DATA" --lambda "$LAMBDA" \
        --tolerance 1e-9 --trace-every 0.002 $FLAGS $side_flags --wait \
        --output "$DIR/$side-$rep-$job" \
        > "$DIR/$side-$rep-$job.log" 2>&1 || echo "ab-jobs.sh: $side job $rep-$job failed (its log: $DIR/$side-$rep-$job.log)" >&2
    done
    "$launcher" stop --run-dir "$run" --bin-dir "$bin" > /dev/null 2>&1 || true
    rm -rf "$run"
  done
done

pybench ab_jobs "$DIR" "$FSTAR"
