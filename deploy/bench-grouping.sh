#!/usr/bin/env bash
# bench-grouping.sh — what grouping correlated features on one worker buys (engine/feature_grouping.h,
# --group-rho), on synthetic problems whose correlated groups are side by side in the file and on
# the same problems with their columns shuffled (strads-gen --shuffle; the same rows, labels and
# optimum), each with grouping (--group-rho 0.5, the default) and without (--group-rho 1: blocks of
# ids, what the engine did before):
#
#   logistic  L1-LR, 20,000 x 20,000, 0.2 % non-zero, groups of 10 at correlation 0.9 (the
#             problem of compare-tools.sh, target 2 of issue 9), lambda = 0.1 lambda_max
#   lasso     Lasso, 5,000 x 50,000, 0.2 % non-zero, groups of 10 at 0.9, lambda = 0.1 lambda_max
#
# Every run is `strads run APP --data F --lambda L --workers P --tolerance 1e-8 --trace-every
# 0.002 --group-rho G` (embedded, 1 scheduler), R times, under the CPU lock
# (/tmp/strads-cpu.lock): do not build or run tests meanwhile. The table gives, per
# configuration, the median over the repeats of: the load (the trace's first row: loading,
# grouping and the first optimality check), the solve time to F*(1 + 1e-3) and to F*(1 + 1e-6)
# from there (bench/epsilon.py), the rounds to 1e-6, and the mean step length of the line search
# (summary.json).
# F* is the least objective any run of the problem reached (both orders have the same optimum).
#
# Usage: deploy/bench-grouping.sh [--bin-dir DIR] [--dir DIR] [--repeats R] [--workers P]
#                                  [--problems logistic,lasso]
set -euo pipefail

SCRIPT_DIR=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd -- "$SCRIPT_DIR/.." && pwd)
BIN=$REPO/build/bin
DIR=/tmp/strads-grouping
REPEATS=5
WORKERS=2
PROBLEMS=logistic,lasso
while (($#)); do
  case $1 in
    --bin-dir) BIN=$2; shift 2 ;;
    --dir) DIR=$2; shift 2 ;;
    --repeats) REPEATS=$2; shift 2 ;;
    --workers) WORKERS=$2; shift 2 ;;
    --problems) PROBLEMS=$2; shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-grouping.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
[[ $REPEATS =~ ^[1-9][0-9]*$ ]] || { echo "bench-grouping.sh: --repeats must be a positive integer" >&2; exit 2; }
[[ $WORKERS =~ ^[1-9][0-9]*$ ]] || { echo "bench-grouping.sh: --workers must be a positive integer" >&2; exit 2; }
for b in strads strads-gen; do
  [[ -x $BIN/$b ]] || { echo "bench-grouping.sh: $BIN/$b is missing (build first, or --bin-dir)" >&2; exit 2; }
done
BIN=$(cd -- "$BIN" && pwd)
mkdir -p "$DIR"
DIR=$(cd -- "$DIR" && pwd)
# The Python harnesses (bench/ at the repository's root).
pybench() { PYTHONPATH="$REPO${PYTHONPATH:+:$PYTHONPATH}" python3 -m "bench.$1" "${@:2}"; }
LOCK=/tmp/strads-cpu.lock

# Writes $DIR/NAME-plain.libsvm and $DIR/NAME-shuffled.libsvm (once): strads-gen ARGS, with and
# without --shuffle; logistic's labels are thresholded at the median as compare-tools.sh does.
make_pair() { # NAME APP ARGS...
  local name=$1 app=$2 order
  shift 2
  for order in plain shuffled; do
    local out=$DIR/$name-$order.libsvm flag=()
    [[ $order == shuffled ]] && flag=(--shuffle)
    [[ -s $out ]] && continue
    if [[ $app == logistic ]]; then
      "$BIN/strads-gen" "$@" "${flag[@]}" --output "$DIR/$name-$order.raw" >&2
      pybench compare gen-labels "$DIR/$name-$order.raw" "$out" >&2
      rm -f "$DIR/$name-$order.raw" "$DIR/$name-$order.raw.truth.tsv"
    else
      "$BIN/strads-gen" "$@" "${flag[@]}" --output "$out" >&2
    fi
  done
}

bench() { # NAME APP
  local name=$1 app=$2 lam order g r out
  lam=$(python3 -c "import sys; print(repr(0.1 * float(sys.argv[1])))" \
    "$(pybench compare lambda-max "$app" "$DIR/$name-plain.libsvm")")
  echo "== $name: strads run $app --data $DIR/$name-{plain,shuffled}.libsvm --lambda $lam --workers $WORKERS --tolerance 1e-8 --trace-every 0.002 --group-rho {0.5,1} (x $REPEATS)" >&2
  for ((r = 1; r <= REPEATS; ++r)); do
    for order in plain shuffled; do
      for g in 0.5 1; do
        out=$DIR/results-$name/$order-g$g-r$r
        rm -rf "$out"
        mkdir -p "$(dirname "$out")"
        flock "$LOCK" "$BIN/strads" run "$app" --data "$DIR/$name-$order.libsvm" --lambda "$lam" \
          --workers "$WORKERS" --tolerance 1e-8 --trace-every 0.002 --group-rho "$g" \
          --output "$out" >/dev/null 2>"$out.log" ||
          { echo "bench-grouping.sh: run failed, see $out.log" >&2; exit 1; }
      done
    done
  done
  pybench grouping "$DIR/results-$name" "$name" "$app" "$lam"
}

if [[ ,$PROBLEMS, == *,logistic,* ]]; then
  make_pair logistic-20000x20000 logistic --rows 20000 --features 20000 --density 0.002 --nonzeros 2000 --seed 7
  bench logistic-20000x20000 logistic
fi
if [[ ,$PROBLEMS, == *,lasso,* ]]; then
  make_pair lasso-5000x50000 lasso --rows 5000 --features 50000 --density 0.002 --nonzeros 500 --seed 3
  bench lasso-5000x50000 lasso
fi
