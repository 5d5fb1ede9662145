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
# from there, the rounds to 1e-6, and the mean step length of the line search (summary.json).
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
HELPER=$REPO/docs/compare/compare_tools.py
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
      python3 "$HELPER" gen-labels "$DIR/$name-$order.raw" "$out" >&2
      rm -f "$DIR/$name-$order.raw" "$DIR/$name-$order.raw.truth.tsv"
    else
      "$BIN/strads-gen" "$@" "${flag[@]}" --output "$out" >&2
    fi
  done
}

bench() { # NAME APP
  local name=$1 app=$2 lam order g r out
  lam=$(python3 -c "import sys; print(repr(0.1 * float(sys.argv[1])))" \
    "$(python3 "$HELPER" lambda-max "$app" "$DIR/$name-plain.libsvm")")
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
  python3 - "$DIR/results-$name" "$name" "$app" "$lam" <<'PYEOF'
import csv, glob, json, os, statistics, sys
res, name, app, lam = sys.argv[1:5]
runs = {}
for d in sorted(glob.glob(os.path.join(res, "*-r*"))):
    if not os.path.isdir(d):
        continue
    key = os.path.basename(d).rsplit("-r", 1)[0]
    rows = list(csv.DictReader(open(os.path.join(d, "trace.csv"))))
    summary = json.load(open(os.path.join(d, "summary.json")))
    runs.setdefault(key, []).append((rows, summary))
fstar = min(float(r["objective"]) for v in runs.values() for rows, _ in v for r in rows)

def at(rows, eps):
    t0 = float(rows[0]["seconds"])
    for r in rows:
        if float(r["objective"]) <= fstar * (1 + eps):
            return float(r["seconds"]) - t0, int(r["round"])
    return None, None

def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None

def fmt(x, spec):
    return "—" if x is None else format(x, spec)

print(f"\n### {name}: {app}, lambda = {lam}, F* = {fstar:.12g}\n")
print("| columns | --group-rho | load s | s to 1e-3 | s to 1e-6 | rounds to 1e-6 | mean step | runs |")
print("|---|---|---|---|---|---|---|---|")
for order in ("plain", "shuffled"):
    for g in ("0.5", "1"):
        v = runs.get(f"{order}-g{g}", [])
        if not v:
            continue
        load = med([float(rows[0]["seconds"]) for rows, _ in v])
        t3 = med([at(rows, 1e-3)[0] for rows, _ in v])
        t6 = med([at(rows, 1e-6)[0] for rows, _ in v])
        r6 = med([at(rows, 1e-6)[1] for rows, _ in v])
        step = med([s.get("mean_step_length") for _, s in v])
        label = "side by side" if order == "plain" else "shuffled"
        print(f"| {label} | {g} | {fmt(load, '.3f')} | {fmt(t3, '.3f')} | {fmt(t6, '.3f')} | "
              f"{fmt(r6, '.0f')} | {fmt(step, '.3f')} | {len(v)} |")
PYEOF
}

if [[ ,$PROBLEMS, == *,logistic,* ]]; then
  make_pair logistic-20000x20000 logistic --rows 20000 --features 20000 --density 0.002 --nonzeros 2000 --seed 7
  bench logistic-20000x20000 logistic
fi
if [[ ,$PROBLEMS, == *,lasso,* ]]; then
  make_pair lasso-5000x50000 lasso --rows 5000 --features 50000 --density 0.002 --nonzeros 500 --seed 3
  bench lasso-5000x50000 lasso
fi
