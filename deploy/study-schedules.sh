#!/usr/bin/env bash
# study-schedules.sh — the scheduling-policy study (the shape of the STRADS paper's Figures 1
# and 4 on this engine; its earlier tables: docs/performance.md, "History").
#
# For each data set (synthetic: correlated, like the paper's; debian: the APT package lists), for
# each policy in dynamic random cyclic static and each chord size B in 1 8 32 128 256 it runs
#   strads run lasso --data F --lambda L --schedule POLICY --chord-size B --candidates 2B
#     --rho 0.1 --pipeline-depth 1 --schedulers 1 --workers 2 --seed 1 --tolerance 1e-9
#     --max-seconds S [--max-updates N]
# (pipeline depth 1: the parallelism is exactly B, as in the paper; the study was first run on the
# row layout, since removed: its tables are in git history, see docs/performance.md), plus the sequential reference
# (strads-lasso-reference, tolerance 1e-9), then a scheduler-throughput measurement (dynamic and
# cyclic at B = 256 with 1 and 2 schedulers x 2 workers, pipeline depth 1 and 2) and finally
# python3 -m bench.schedules analyze (tables) and bench/schedules.gp (gnuplot PNGs).
#
#   lambda = 0.1 * lambda_max (synthetic), 0.02 * lambda_max (debian); lambda_max = max_j |x_j^T y|
#            from a reference run at lambda = 1e300.
#   Every timed command runs under `flock /tmp/strads-cpu.lock` after waiting for any
#   bench-lasso.sh to finish, so two benchmarks never share the 2 cores.
#   Outputs: raw runs in --dir; traces (trace.csv, downsampled to <= 2000 rows), summaries,
#   tables and plots in results/study/ (git ignores results/).
#
# Usage: deploy/study-schedules.sh [options]
#   --dir DIR             data and raw results (default /tmp/strads-study)
#   --bin-dir DIR         binaries (default build-study/bin beside deploy/)
#   --datasets LIST       comma list of synthetic,debian (default both)
#   --max-seconds S       time limit of each policy run (default 15)
#   --max-updates N       update limit of each policy run (default 0 = none)
#   --throughput-seconds S  time limit of each throughput run (default 15)
#   --throughput-policies LIST  policies of the throughput step (default dynamic,cyclic,random)
#   --steps LIST          comma list of runs,throughput,analyze (default all)
#   --results DIR         where the copied traces, tables and plots go (default results/study
#                         beside deploy/; --docs is its old name)
#   --synthetic-args "A"  strads-gen arguments instead of the default problem (for smoke tests)
set -euo pipefail

SCRIPT_DIR=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd -- "$SCRIPT_DIR/.." && pwd)
# The Python harnesses (bench/ at the repository's root).
pybench() { PYTHONPATH="$REPO${PYTHONPATH:+:$PYTHONPATH}" python3 -m "bench.$1" "${@:2}"; }
BIN=$REPO/build-study/bin
DIR=/tmp/strads-study
DOCS=$REPO/results/study
DATASETS=synthetic,debian
MAX_SECONDS=15
MAX_UPDATES=0
TP_SECONDS=15
STEPS=runs,throughput,analyze
TP_POLICIES=dynamic,cyclic,random
POLICIES=(dynamic random cyclic static)
SIZES=(1 8 32 128 256)
LOCK=/tmp/strads-cpu.lock
SEED=1
SYN_TAG=1000x100000
TOL=1e-9

# The synthetic problem: 1000 x 100,000, groups of 10 consecutive features with correlation 0.9
# sharing a 2% row support, 50 true nonzeros, noise 0.1 (strads-gen's default).
GEN_ARGS=(--rows 1000 --features 100000 --group-size 10 --correlation 0.9 --density 0.02
  --nonzeros 50 --seed 42)

while (($#)); do
  case $1 in
    --dir) DIR=$2; shift 2 ;;
    --bin-dir) BIN=$2; shift 2 ;;
    --datasets) DATASETS=$2; shift 2 ;;
    --max-seconds) MAX_SECONDS=$2; shift 2 ;;
    --max-updates) MAX_UPDATES=$2; shift 2 ;;
    --throughput-seconds) TP_SECONDS=$2; shift 2 ;;
    --steps) STEPS=$2; shift 2 ;;
    --throughput-policies) TP_POLICIES=$2; shift 2 ;;
    --results | --docs) DOCS=$2; shift 2 ;;
    --synthetic-args) read -ra GEN_ARGS <<<"$2"; SYN_TAG=custom; shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "study-schedules.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done

for b in strads strads-gen strads-lasso-reference; do
  [[ -x $BIN/$b ]] || { echo "study-schedules.sh: $BIN/$b missing: cmake --build build-study" >&2; exit 1; }
done
mkdir -p "$DIR" "$DOCS"
DIR=$(cd -- "$DIR" && pwd)
DOCS=$(cd -- "$DOCS" && pwd)
has() { [[ ,$2, == *",$1,"* ]]; }

# Runs a CPU-heavy command alone: no bench-lasso.sh running, and the shared lock held.
timed() {
  while pgrep -f bench-lasso.sh >/dev/null; do sleep 10; done
  flock "$LOCK" "$@"
}

data_file() { # DATASET -> path, generated on first use
  local ds=$1 f
  case $ds in
    synthetic)
      f=$DIR/synthetic-$SYN_TAG.libsvm
      [[ -s $f ]] || timed "$BIN/strads-gen" "${GEN_ARGS[@]}" --output "$f" >&2 ;;
    debian)
      f=$DIR/debian-packages.libsvm
      if [[ ! -s $f ]]; then
        # apt-cache fails transiently while another apt/dpkg holds its cache: retry.
        for _ in 1 2 3 4 5; do
          python3 "$SCRIPT_DIR/debian-packages-data.py" --output "$f" >&2 && break
          sleep 5
        done
      fi ;;
    *) echo "study-schedules.sh: unknown data set $ds" >&2; exit 2 ;;
  esac
  [[ -s $f ]] || { echo "study-schedules.sh: no data for $ds" >&2; exit 1; }
  echo "$f"
}

fraction() { case $1 in synthetic) echo 0.1 ;; debian) echo 0.02 ;; esac; }

jget() { python3 -c 'import json,sys; print(repr(json.load(open(sys.argv[1]))[sys.argv[2]]))' "$1" "$2"; }

# Copies trace.csv, keeping at most 2000 rows (first, last and evenly spaced ones between).
copy_trace() { # SRC DST
  pybench schedules thin-trace "$1" "$2"
}

IFS=, read -ra DS_LIST <<<"$DATASETS"

if has runs "$STEPS"; then
  for ds in "${DS_LIST[@]}"; do
    data=$(data_file "$ds")
    out=$DIR/$ds
    mkdir -p "$out" "$DOCS/$ds"
    frac=$(fraction "$ds")
    echo "== $ds: $data; lambda_max" >&2
    timed "$BIN/strads-lasso-reference" --data "$data" --lambda 1e300 --tolerance 0 \
      --output "$out/lambda-max" >"$out/lambda-max.log" 2>&1
    lmax=$(jget "$out/lambda-max/summary.json" lambda_max)
    lambda=$(python3 -c 'import sys; print(repr(float(sys.argv[1]) * float(sys.argv[2])))' "$frac" "$lmax")
    echo "== $ds: lambda = $frac * $lmax = $lambda; reference at tolerance $TOL" >&2
    timed "$BIN/strads-lasso-reference" --data "$data" --lambda "$lambda" --tolerance "$TOL" \
      --output "$out/ref" >"$out/ref.log" 2>&1
    cp "$out/ref/summary.json" "$DOCS/$ds/reference.summary.json"
    copy_trace "$out/ref/trace.csv" "$DOCS/$ds/reference.csv"
    pybench schedules meta "$DOCS/$ds/meta.json" "$ds" "$data" "$frac" "$lmax" "$lambda" \
      "$MAX_SECONDS" "$MAX_UPDATES"
    for policy in "${POLICIES[@]}"; do
      for b in "${SIZES[@]}"; do
        name=$policy-B$b
        cmd=("$BIN/strads" run lasso --data "$data" --lambda "$lambda" --schedule "$policy"
          --chord-size "$b" --candidates $((2 * b)) --rho 0.1 --pipeline-depth 1
          --schedulers 1 --workers 2 --seed "$SEED" --tolerance "$TOL"
          --max-seconds "$MAX_SECONDS" --max-updates "$MAX_UPDATES" --output "$out/$name")
        echo "== $ds $name: ${cmd[*]}" >&2
        rm -rf -- "${out:?}/$name"
        rc=0
        timed "${cmd[@]}" >"$out/$name.log" 2>&1 || rc=$?
        echo "$rc" >"$DOCS/$ds/$name.rc"
        tail -1 "$out/$name.log" >&2 || true
        if [[ -s $out/$name/trace.csv ]]; then copy_trace "$out/$name/trace.csv" "$DOCS/$ds/$name.csv"; fi
        if [[ -s $out/$name/summary.json ]]; then cp "$out/$name/summary.json" "$DOCS/$ds/$name.summary.json"; fi
      done
    done
  done
fi

if has throughput "$STEPS"; then
  # Does the scheduler keep 2 workers busy at B = 256? dynamic (sampling + dependency filter)
  # vs cyclic and random (scheduling nearly free; cyclic diverges within ~1 s on this problem,
  # random runs the whole time), 1 and 2 schedulers, pipeline depth 1 and 2, on the synthetic
  # problem. /usr/bin/time gives the process's CPU use.
  data=$(data_file synthetic)
  lambda=$(python3 -c 'import json,sys; print(repr(json.load(open(sys.argv[1]))["lambda"]))' "$DOCS/synthetic/meta.json")
  out=$DIR/throughput
  mkdir -p "$out" "$DOCS/throughput"
  IFS=, read -ra TP_LIST <<<"$TP_POLICIES"
  for policy in "${TP_LIST[@]}"; do
    for s in 1 2; do
      for d in 1 2; do
        name=$policy-S$s-D$d
        cmd=("$BIN/strads" run lasso --data "$data" --lambda "$lambda" --schedule "$policy"
          --chord-size 256 --candidates 512 --rho 0.1 --pipeline-depth "$d"
          --schedulers "$s" --workers 2 --seed "$SEED" --tolerance "$TOL"
          --max-seconds "$TP_SECONDS" --output "$out/$name")
        echo "== throughput $name: ${cmd[*]}" >&2
        rm -rf -- "${out:?}/$name"
        rc=0
        timed /usr/bin/time -f 'time: wall %e user %U sys %S cpu %P' -o "$DOCS/throughput/$name.time" \
          "${cmd[@]}" >"$out/$name.log" 2>&1 || rc=$?
        echo "$rc" >"$DOCS/throughput/$name.rc"
        tail -1 "$out/$name.log" >&2 || true
        if [[ -s $out/$name/summary.json ]]; then cp "$out/$name/summary.json" "$DOCS/throughput/$name.summary.json"; fi
        if [[ -s $out/$name/trace.csv ]]; then copy_trace "$out/$name/trace.csv" "$DOCS/throughput/$name.csv"; fi
      done
    done
  done
fi

if has analyze "$STEPS"; then
  pybench schedules analyze "$DOCS"
  (cd "$DOCS" && gnuplot "$REPO/bench/schedules.gp")
  echo "== tables: $DOCS/table.md; plots: $DOCS/*.png" >&2
fi
