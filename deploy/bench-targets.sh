#!/usr/bin/env bash
# bench-targets.sh — re-measures every target of the dynamic engine's speed issue (issue 9), one
# after another, with the scripts that measured them (each prints its own tables; the figures are
# in docs/performance.md):
#
#   1  Lasso, 1 worker within 1.5x the sequential reference, embedded and as daemons:
#        bench-lasso.sh on the 1000 x 100,000 synthetic problem and on the diabetes and APT data
#   2  2 workers as daemons at or below glmnet (Lasso) and liblinear -s 6 (L1-LR):
#        compare-tools.sh --problems logistic,lasso --daemons on the same Lasso problem
#   3  real correlated data: APT on a 2 x 2 loopback cluster to 1e-9 (bench-lasso.sh cl22c) and
#        compare-tools.sh --problems lasso at --eps 1e-9 (glmnet); dense Fashion-MNIST L1-LR and
#        L1 SVM against liblinear (compare-tools.sh --problems fashion --daemons)
#   4  dynamic vs random and static at chord sizes 8..2048 (study-columns.sh)
#   5  the paper's shape, 450 x 1,000,000 (strads-gen, 1.2 GB of libsvm): bench-lasso.sh and the
#        peak memory of a 1 x 2 daemon cluster (measure-memory.sh)
#   6  latency (study-latency.sh; the delay is injected in the transport)
#
# Every timed step runs under the CPU lock of the scripts it calls (/tmp/strads-cpu.lock); do not
# build or run tests meanwhile. glmnet, liblinear, scikit-learn and Fashion-MNIST are optional
# Debian packages (apt-get install r-cran-glmnet liblinear-tools python3-liblinear python3-sklearn
# dataset-fashion-mnist); the comparisons skip a tool that is absent. All of it takes about 40
# minutes on a 2-core machine, most of it targets 3 and 5.
#
# Usage: deploy/bench-targets.sh [--targets 1,2,3,4,5,6] [--bin-dir DIR] [--dir DIR]
#   --targets LIST   which targets (default: all)
#   --bin-dir DIR    strads binaries (default: build/bin beside deploy/)
#   --dir DIR        data and results (default /tmp/strads-targets); the paper's shape needs 1.2 GB
set -euo pipefail

SCRIPT_DIR=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd -- "$SCRIPT_DIR/.." && pwd)
BIN=$REPO/build/bin
DIR=/tmp/strads-targets
TARGETS=1,2,3,4,5,6
while (($#)); do
  case $1 in
    --targets) TARGETS=$2; shift 2 ;;
    --bin-dir) BIN=$2; shift 2 ;;
    --dir) DIR=$2; shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-targets.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
for b in strads strads-gen strads-lasso-reference strads-coordinator strads-scheduler strads-worker; do
  [[ -x $BIN/$b ]] || { echo "bench-targets.sh: $BIN/$b is missing (build first, or --bin-dir)" >&2; exit 2; }
done
BIN=$(cd -- "$BIN" && pwd)
mkdir -p "$DIR"
DIR=$(cd -- "$DIR" && pwd)
wants() { [[ ,$TARGETS, == *,$1,* ]]; }
step() { printf '\n## %s\n\n' "$*"; }
FENCE='```'
run() { # prints the command, then runs it
  printf '%s\n%s\n%s\n\n' "$FENCE" "$*" "$FENCE"
  "$@"
}

SYN=$DIR/synthetic-1000x100000.libsvm  # what bench-lasso.sh generates by default
lambda_of() { # lambda = 0.1 lambda_max (bench-lasso.sh's default) of results directory $1
  python3 -c "import json,sys; print(repr(0.1 * json.load(open(sys.argv[1]))['lambda_max']))" \
    "$1/lambda-max/summary.json"
}
synthetic() { # lambda and F* of the synthetic problem, from bench-lasso.sh's results
  echo "$(lambda_of "$DIR/results-synthetic")" \
    "$(python3 -c "import json,sys; print(repr(json.load(open(sys.argv[1]))['fstar']))" \
      "$DIR/results-synthetic/table.json")"
}
apt_data() {
  [[ -s $DIR/apt.libsvm ]] || python3 "$SCRIPT_DIR/debian-packages-data.py" --output "$DIR/apt.libsvm" >&2
}

if wants 1 || wants 2 || wants 4 || wants 6; then
  step "Target 1: Lasso 1000 x 100,000, 1 worker (and 1 x 2 daemons) against the reference"
  run "$SCRIPT_DIR/bench-lasso.sh" --bin-dir "$BIN" --dir "$DIR" --configs ref,emb11c,cl11c,cl12c \
    --max-seconds 20
fi
if wants 1; then
  step "Target 1, real data: diabetes (442 x 64 with interactions) and APT"
  if "$SCRIPT_DIR/get-real-data.sh" --dir "$DIR" >&2; then
    run "$SCRIPT_DIR/bench-lasso.sh" --bin-dir "$BIN" --dir "$DIR" --data "$DIR/diabetes64.libsvm" \
      --name diabetes64 --configs ref,emb11c,cl11c --max-seconds 20
  else
    echo "(diabetes skipped: deploy/get-real-data.sh could not make it; see its message)"
  fi
  if apt_data; then
    run "$SCRIPT_DIR/bench-lasso.sh" --bin-dir "$BIN" --dir "$DIR" --data "$DIR/apt.libsvm" \
      --name apt --lambda-fraction 0.02 --configs ref,emb11c,cl11c --max-seconds 30
  else
    echo "(APT skipped: deploy/debian-packages-data.py could not make it; see its message)"
  fi
fi
if wants 2; then
  step "Target 2: 2 workers as daemons against glmnet and liblinear -s 6"
  run "$SCRIPT_DIR/compare-tools.sh" --dir "$DIR/compare" --bin-dir "$BIN" \
    --problems logistic,lasso --daemons --max-seconds 30 --lasso-data "$SYN"
fi
if wants 3; then
  step "Target 3: APT on a 2 x 2 loopback cluster to 1e-9, and glmnet on it"
  if apt_data; then
    run "$SCRIPT_DIR/bench-lasso.sh" --bin-dir "$BIN" --dir "$DIR" --data "$DIR/apt.libsvm" \
      --name apt --lambda-fraction 0.02 --configs ref,cl22c --max-seconds 60
    run "$SCRIPT_DIR/compare-tools.sh" --dir "$DIR/compare" --bin-dir "$BIN" --problems lasso \
      --lasso-data "$DIR/apt.libsvm" --lasso-fraction 0.02 --eps 1e-9 --max-seconds 60
  else
    echo "(APT skipped: deploy/debian-packages-data.py could not make it; see its message)"
  fi
  step "Target 3: dense Fashion-MNIST, L1-LR and L1 SVM against liblinear"
  run "$SCRIPT_DIR/compare-tools.sh" --dir "$DIR/compare" --bin-dir "$BIN" --problems fashion \
    --daemons --max-seconds 30
fi
if wants 4; then
  step "Target 4: dynamic vs random and static, chord sizes 8 to 2048"
  read -r LAMBDA FSTAR < <(synthetic)
  run "$SCRIPT_DIR/study-columns.sh" "$SYN" "$LAMBDA" "$FSTAR" --policies "dynamic random" \
    --sizes "8 64 512 1024 2048" --max-seconds 10 --dir "$DIR/study-columns" --bin-dir "$BIN"
  # static: uniform candidates through the dependency filter (its rho)
  run "$SCRIPT_DIR/study-columns.sh" "$SYN" "$LAMBDA" "$FSTAR" --policies static \
    --extra "--rho 0.1" --sizes "8 64 512 1024 2048" --max-seconds 10 \
    --dir "$DIR/study-columns" --bin-dir "$BIN"
fi
if wants 5; then
  step "Target 5: the paper's shape, 450 x 1,000,000, 2 workers"
  PAPER=$DIR/paper.libsvm
  [[ -s $PAPER ]] || "$BIN/strads-gen" --rows 450 --features 1000000 --density 0.1 \
    --nonzeros 10000 --seed 1 -o "$PAPER" >&2
  run "$SCRIPT_DIR/bench-lasso.sh" --bin-dir "$BIN" --dir "$DIR" --data "$PAPER" --name paper \
    --configs ref,emb12c,cl12c --max-seconds 15
  LAMBDA=$(lambda_of "$DIR/results-paper")
  run "$SCRIPT_DIR/measure-memory.sh" "$PAPER" "$LAMBDA" --bin-dir "$BIN" --workers 2
fi
if wants 6; then
  step "Target 6: latency injected in the transport"
  run "$SCRIPT_DIR/study-latency.sh" --bin-dir "$BIN" --dir "$DIR" --tolerance 1e-7 \
    --max-seconds 30 --latencies 0,50,250,1000
fi
