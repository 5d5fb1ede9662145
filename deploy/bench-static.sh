#!/usr/bin/env bash
# bench-static.sh — the static engine's benchmark (its figures: docs/performance.md).
#
# Builds the data, runs, and writes RESULTS/static-benchmarks.md with its tables, and
# RESULTS/static/*.csv and *.png (gnuplot; python3 -m bench.static):
#   data   the Debian package descriptions corpus (deploy/debian-descriptions-corpus.py, into
#          DATA_DIR/debian-descriptions/, built once) and a power-law ratings matrix
#          (strads-gen ratings: Zipf 1.0 rows and columns, planted rank 10, into DATA_DIR/ratings/)
#   LDA    for K = 100 and 1000: strads-lda-reference --sampler dense (O(K) per token) and sparse
#          (SparseLDA), and `strads run lda` with P = 1 and 2 workers, each for the same number of
#          sweeps; log-likelihood per token against time, tokens/s, and the time each needs to
#          reach the dense sampler's final log-likelihood
#   MF     ccd and sgd: strads-mf-reference and `strads run mf` at P = 1 and 2; seconds per
#          iteration, train/test RMSE against time
#   Fig. 5 --balance work vs uniform at P = 1, 2, 4, 8 (mf ccd on the ratings, lda K = 100 on the
#          corpus): seconds per iteration and the work imbalance from subrounds.csv,
#          sum over sub-rounds of max_worker work / sum over sub-rounds of mean work (1 = perfect;
#          it does not depend on how many cores the machine has)
# Every timed run is under `flock /tmp/strads-cpu.lock` (runs of other engineers wait).
#
# Usage: deploy/bench-static.sh [--bin-dir DIR] [--quick] [--work-dir DIR] [--data-dir DIR]
#                               [--results-dir DIR]
#   --bin-dir DIR   strads, strads-gen, strads-lda-reference, strads-mf-reference (default
#                   build/bin beside deploy/)
#   --quick         small sizes (a 2,000-document slice of the corpus, a 2,000 x 500 matrix, few
#                   iterations): a smoke run of the whole script in about a minute; the document
#                   then goes to WORK_DIR/doc unless --results-dir is given
#   --work-dir DIR  run outputs (default /tmp/strads-bench-static)
#   --data-dir DIR  data (default data/ beside deploy/)
#   --results-dir DIR  where static-benchmarks.md and static/ go (default results/ beside
#                   deploy/, which git ignores; --doc-dir is its old name)
#   --resume        skip the runs that already succeeded in WORK_DIR (marked NAME.ok)
set -euo pipefail

SCRIPT_DIR=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd -- "$SCRIPT_DIR/.." && pwd)
BIN=$REPO/build/bin
QUICK=0
RESUME=0
WORK=/tmp/strads-bench-static
DATA_DIR=$REPO/data
DOC_DIR=""
LOCK=/tmp/strads-cpu.lock

while (($#)); do
  case $1 in
    --bin-dir) BIN=$2; shift 2 ;;
    --quick) QUICK=1; shift ;;
    --resume) RESUME=1; shift ;;
    --work-dir) WORK=$2; shift 2 ;;
    --data-dir) DATA_DIR=$2; shift 2 ;;
    --results-dir | --doc-dir) DOC_DIR=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-static.sh: unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
done
BIN=$(cd -- "$BIN" && pwd)
for exe in strads strads-gen strads-lda-reference strads-mf-reference; do
  [[ -x $BIN/$exe ]] || { echo "bench-static.sh: $BIN/$exe is missing (build it first)" >&2; exit 1; }
done
command -v gnuplot >/dev/null || { echo "bench-static.sh: gnuplot is missing (apt-get install gnuplot-nox)" >&2; exit 1; }

# --- sizes ---
ALPHA=0.1 BETA=0.01 SEED=1
RANK=10 LAMBDA=0.5 LR=0.05 DECAY=0.1
# With one block per worker, a K = 1000 sub-round over the whole corpus at P = 1 computes for
# more than 5 s without a heartbeat and the coordinator drops the worker; 4 blocks per worker
# keep every sub-round short (LDA section only; Fig. 5 uses the default 1).
LDA_BPW=4
if ((QUICK)); then
  [[ -n $DOC_DIR ]] || DOC_DIR=$WORK/doc
  LDA_DOCS=2000 LDA_ITERS=4 LDA_EVAL=2
  R_ROWS=2000 R_COLS=500 R_RATINGS=40000
  MF_ITERS=4 MF_EVAL=1
  F5_MF_ITERS=2 F5_LDA_ITERS=2 F5_P="1 2 4 8"
else
  [[ -n $DOC_DIR ]] || DOC_DIR=$REPO/results
  LDA_DOCS=0 LDA_ITERS=20 LDA_EVAL=2
  R_ROWS=20000 R_COLS=5000 R_RATINGS=1000000
  MF_ITERS=15 MF_EVAL=1
  F5_MF_ITERS=5 F5_LDA_ITERS=3 F5_P="1 2 4 8"
fi
mkdir -p "$WORK" "$DOC_DIR/static" "$DATA_DIR"
WORK=$(cd -- "$WORK" && pwd)
CMDS=$WORK/commands.txt
: >"$CMDS"

log() { printf '[bench-static] %s\n' "$*" >&2; }
# run NAME CMD...: CMD under the CPU lock, its output in $WORK/NAME.log, the command recorded.
run() {
  local name=$1; shift
  printf '%s\n' "$*" | sed "s|$BIN/||g; s|$REPO/||g" >>"$CMDS"
  if ((RESUME)) && [[ -e $WORK/$name.ok ]]; then
    log "$name: done before (--resume)"
    return 0
  fi
  log "$name: $*"
  mkdir -p "$(dirname "$WORK/$name.log")"
  rm -f "$WORK/$name.ok"
  if ! flock "$LOCK" "$@" >"$WORK/$name.log" 2>&1; then
    echo "bench-static.sh: $name failed; the end of $WORK/$name.log:" >&2
    tail -20 "$WORK/$name.log" >&2
    return 1
  fi
  touch "$WORK/$name.ok"
}

# --- data ---
CORPUS=$DATA_DIR/debian-descriptions
if [[ ! -s $CORPUS/docword.txt ]]; then
  log "building the corpus into $CORPUS"
  "$SCRIPT_DIR/debian-descriptions-corpus.py" --output-dir "$CORPUS" | tee "$WORK/corpus.log"
fi
echo "deploy/debian-descriptions-corpus.py --output-dir ${CORPUS#"$REPO"/}" >>"$CMDS"
DOCWORD=$CORPUS/docword.txt
VOCAB=$CORPUS/vocab.txt
if ((LDA_DOCS)); then
  # The first LDA_DOCS documents, same vocabulary (words without tokens are allowed).
  mkdir -p "$WORK/corpus"
  awk -v n="$LDA_DOCS" 'NR == 1 { print n; next } NR <= 3 { h[NR] = $0; next }
    $1 <= n { body[++k] = $0 } END { print h[2]; print k; for (i = 1; i <= k; ++i) print body[i] }' \
    "$DOCWORD" >"$WORK/corpus/docword.txt"
  cp "$VOCAB" "$WORK/corpus/vocab.txt"
  DOCWORD=$WORK/corpus/docword.txt VOCAB=$WORK/corpus/vocab.txt
fi
RATINGS=$DATA_DIR/ratings
((QUICK)) && RATINGS=$WORK/ratings
mkdir -p "$RATINGS"
TRAIN=$RATINGS/powerlaw-${R_ROWS}x${R_COLS}-train.mtx
TEST=$RATINGS/powerlaw-${R_ROWS}x${R_COLS}-test.mtx
GEN=("$BIN/strads-gen" ratings --rows "$R_ROWS" --cols "$R_COLS" --ratings "$R_RATINGS" --rank 10
  --zipf 1.0 --test-fraction 0.1 --noise 0.1 --seed 1 --output "$TRAIN" --test-output "$TEST")
if [[ ! -s $TRAIN || ! -s $TEST ]]; then
  run gen-ratings "${GEN[@]}"
else
  printf '%s\n' "${GEN[*]}" | sed "s|$BIN/||g; s|$REPO/||g" >>"$CMDS"
fi

# --- LDA ---
for K in 100 1000; do
  for s in dense sparse; do
    run "lda/k$K/$s" "$BIN/strads-lda-reference" --data "$DOCWORD" --vocab "$VOCAB" --topics "$K" \
      --alpha $ALPHA --beta $BETA --iterations "$LDA_ITERS" --seed $SEED --sampler $s \
      --trace "$WORK/lda/k$K/$s.trace.csv"
  done
  for P in 1 2; do
    run "lda/k$K/engine-p$P" "$BIN/strads" run lda --data "$DOCWORD" --vocab "$VOCAB" --topics "$K" \
      --alpha $ALPHA --beta $BETA --iterations "$LDA_ITERS" --seed $SEED --workers "$P" \
      --balance work --blocks-per-worker $LDA_BPW --eval-every "$LDA_EVAL" \
      --output "$WORK/lda/k$K/engine-p$P"
  done
done

# --- MF ---
for A in ccd sgd; do
  run "mf/$A/ref" "$BIN/strads-mf-reference" --data "$TRAIN" --test "$TEST" --algorithm $A \
    --rank $RANK --lambda $LAMBDA --iterations "$MF_ITERS" --learning-rate $LR --decay $DECAY \
    --seed $SEED --trace "$WORK/mf/$A/ref.trace.csv"
  for P in 1 2; do
    run "mf/$A/engine-p$P" "$BIN/strads" run mf --algorithm $A --data "$TRAIN" --test "$TEST" \
      --rank $RANK --lambda $LAMBDA --iterations "$MF_ITERS" --learning-rate $LR --decay $DECAY \
      --seed $SEED --workers "$P" --balance work --eval-every "$MF_EVAL" \
      --output "$WORK/mf/$A/engine-p$P"
  done
done

# --- Fig. 5: balancing ---
for B in work uniform; do
  for P in $F5_P; do
    run "fig5/mf/$B-p$P" "$BIN/strads" run mf --algorithm ccd --data "$TRAIN" --test "$TEST" \
      --rank $RANK --lambda $LAMBDA --iterations "$F5_MF_ITERS" --seed $SEED --workers "$P" \
      --balance "$B" --eval-every "$F5_MF_ITERS" --output "$WORK/fig5/mf/$B-p$P"
    run "fig5/lda/$B-p$P" "$BIN/strads" run lda --data "$DOCWORD" --vocab "$VOCAB" --topics 100 \
      --alpha $ALPHA --beta $BETA --iterations "$F5_LDA_ITERS" --seed $SEED --workers "$P" \
      --balance "$B" --eval-every "$F5_LDA_ITERS" --output "$WORK/fig5/lda/$B-p$P"
  done
done

# --- tables, CSVs, plots, document ---
MACHINE="nproc $(nproc); $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'); $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo); $(sed -n 's/^PRETTY_NAME="\(.*\)"/\1/p' /etc/os-release)"
COMMIT=$(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo unknown)
DIRTY=$(git -C "$REPO" status --porcelain --untracked-files=no 2>/dev/null | wc -l)
export WORK DOC_DIR MACHINE COMMIT DIRTY QUICK LDA_ITERS LDA_EVAL MF_ITERS F5_MF_ITERS F5_LDA_ITERS \
  F5_P DOCWORD TRAIN CMDS REPO
PYTHONPATH="$REPO${PYTHONPATH:+:$PYTHONPATH}" python3 -m bench.static
log "wrote $DOC_DIR/static-benchmarks.md"
