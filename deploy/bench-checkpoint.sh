#!/usr/bin/env bash
# bench-checkpoint.sh — what checkpoints at the default interval cost a long job (issue 10's
# target: under 5 % of the run time), on a loopback cluster `127.0.0.1 coordinator scheduler=1
# worker=2` started with deploy/strads-cluster.
#
# Two long jobs, each run with --checkpoint-every 0 (none) and 30 (the default), alternating,
# REPEAT times each (timed runs hold `flock /tmp/strads-cpu.lock`):
#   lda:   the Debian package descriptions corpus (deploy/debian-descriptions-corpus.py; ~2 M
#          tokens), K = 100, LDA_ITERATIONS sweeps (default 1000: about 2.5 minutes here); the
#          figure is the solve time (summary.json "seconds").
#   lasso: strads-gen --rows 4000 --features 100000 --group-size 10 --correlation 0.9
#          --density 0.02 --nonzeros 200 --seed 5, lambda LASSO_LAMBDA (default 40), run for
#          LASSO_SECONDS (default 150) with a tolerance it never reaches (1e-300): this problem
#          converges in under a minute, so the figure is the updates per second over a fixed time.
# Prints per run the figure, the checkpoints written and their write times and (lda) the pause to
# collect the members' state (the coordinator's log), then per job the ratio of the medians.
#
# Usage: deploy/bench-checkpoint.sh [--bin-dir DIR] [--repeat N] [--only lda|lasso]
#                                   [--lda-iterations N] [--lasso-seconds S] [--lasso-lambda L]
#                                   [--corpus DIR]
set -euo pipefail
SCRIPT_DIR=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd -- "$SCRIPT_DIR/.." && pwd)
# The Python harnesses (bench/ at the repository's root).
pybench() { PYTHONPATH="$REPO${PYTHONPATH:+:$PYTHONPATH}" python3 -m "bench.$1" "${@:2}"; }
BIN=$SCRIPT_DIR/../build/bin
REPEAT=2 ONLY="" LDA_ITERATIONS=1000 LASSO_SECONDS=150 LASSO_LAMBDA=40
CORPUS=$SCRIPT_DIR/../data/debian-descriptions
while (($#)); do
  case $1 in
    --bin-dir) BIN=$2; shift 2 ;;
    --repeat) REPEAT=$2; shift 2 ;;
    --only) ONLY=$2; shift 2 ;;
    --lda-iterations) LDA_ITERATIONS=$2; shift 2 ;;
    --lasso-seconds) LASSO_SECONDS=$2; shift 2 ;;
    --lasso-lambda) LASSO_LAMBDA=$2; shift 2 ;;
    --corpus) CORPUS=$2; shift 2 ;;
    *) sed -n '2,21p' "$0" >&2; exit 2 ;;
  esac
done
BIN=$(readlink -f -- "$BIN")
RUN=$(mktemp -d /tmp/strads-checkpoint.XXXXXX)
trap '"$SCRIPT_DIR/strads-cluster" stop --run-dir "$RUN" --bin-dir "$BIN" >/dev/null 2>&1 || true' EXIT

JOBS=()
if [[ -z $ONLY || $ONLY == lda ]]; then
  if [[ ! -f $CORPUS/docword.txt ]]; then
    python3 "$SCRIPT_DIR/debian-descriptions-corpus.py" --output-dir "$CORPUS" >&2
  fi
  CORPUS=$(readlink -f -- "$CORPUS")
  JOBS+=(lda)
fi
if [[ -z $ONLY || $ONLY == lasso ]]; then
  "$BIN/strads-gen" --rows 4000 --features 100000 --group-size 10 --correlation 0.9 \
    --density 0.02 --nonzeros 200 --seed 5 --output "$RUN/lasso.svm" 2>/dev/null
  JOBS+=(lasso)
fi

printf '127.0.0.1 coordinator scheduler=1 worker=2\n' >"$RUN/hosts"
exports=$("$SCRIPT_DIR/strads-cluster" start --hostfile "$RUN/hosts" --run-dir "$RUN" --port 0 \
  --bin-dir "$BIN" --log-level info)
eval "$(grep '^export STRADS_COORDINATOR=' <<<"$exports")"
CLOG=$(ls "$RUN"/logs/coordinator*.log)

args() {  # args JOB: the job's submit arguments
  case $1 in
    lda) echo lda --data "$CORPUS/docword.txt" --topics 100 --alpha 0.1 --beta 0.01 \
      --iterations "$LDA_ITERATIONS" --seed 1 --blocks-per-worker 4 --eval-every 10 ;;
    lasso) echo lasso --data "$RUN/lasso.svm" --lambda "$LASSO_LAMBDA" --tolerance 1e-300 \
      --max-seconds "$LASSO_SECONDS" ;;
  esac
}
# figure JOB SUMMARY: lda, the solve seconds; lasso, the updates per second.
figure() {
  pybench checkpoint figure "$@"
}
# stats PATTERN: min/median/max of the ms figures the coordinator's new log lines hold.
stats() {
  tail -n "+$((LOG_AT + 1))" "$CLOG" | sed -n "s/$1/\\1/p" | sort -n |
    awk '{ a[NR] = $1 } END { if (NR) printf "%s/%s/%s", a[1], a[int((NR + 1) / 2)], a[NR]; else printf "-" }'
}

echo "# $(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
echo "# figure: lda solve seconds, lasso updates/s; writes (to disk) and collect (lda: asking the"
echo "# members for their state): min/median/max ms"
printf '%-6s %-4s %-9s %-14s %-12s %-20s %s\n' job run interval figure checkpoints writes collect
declare -A FIG
for job in "${JOBS[@]}"; do
  read -r -a job_args <<<"$(args "$job")"
  for ((r = 1; r <= REPEAT; r++)); do
    for every in 0 30; do
      out=$RUN/out-$job-$r-$every
      LOG_AT=$(wc -l <"$CLOG")
      flock /tmp/strads-cpu.lock "$BIN/strads" submit "${job_args[@]}" --workers 2 \
        --checkpoint-every "$every" --output "$out" --wait --quiet >/dev/null
      cps=$(tail -n "+$((LOG_AT + 1))" "$CLOG" | grep -c "checkpoint at .* written in" || true)
      fig=$(figure "$job" "$out/summary.json")
      FIG[$job,$every]+="$fig "
      printf '%-6s %-4s %-9s %-14s %-12s %-20s %s\n' "$job" "$r" "$every" "$fig" "$cps" \
        "$(stats '.*checkpoint at .* written in \([0-9.]*\) ms')" \
        "$(stats '.* collected in \([0-9.]*\) ms')"
    done
  done
done
for job in "${JOBS[@]}"; do
  pybench checkpoint overhead "$job" "${FIG[$job,0]}" "${FIG[$job,30]}"
done
