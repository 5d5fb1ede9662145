#!/usr/bin/env bash
# bench-checkpoint.sh — what checkpoints at the default interval cost a long job (issue 10's
# target: under 5 % of the run time), on a loopback cluster `127.0.0.1 coordinator scheduler=1
# worker=2` started with deploy/strads-cluster.
#
# Two long jobs, each run with --checkpoint-every 0 (none) and 30 (the default), alternating,
# REPEAT times each (timed runs hold `flock /tmp/strads-cpu.lock`):
#   lda:   the Debian package descriptions corpus (deploy/debian-descriptions-corpus.py; ~2 M
#          tokens), K = 100, LDA_ITERATIONS sweeps (default 1000: about 2.5 minutes here);
#   lasso: strads-gen --rows 4000 --features 100000 --group-size 10 --correlation 0.9
#          --density 0.02 --nonzeros 200 --seed 5, lambda LASSO_LAMBDA (default 40),
#          LASSO_UPDATES coordinate updates (default 200 M; --tolerance 1e-14, below what it
#          reaches, so every run does the same work).
# Prints per run the solve seconds (summary.json "seconds"), the checkpoints taken and their
# write times (the coordinator's log), then per job the median ratio of "30" to "0".
#
# Usage: deploy/bench-checkpoint.sh [--bin-dir DIR] [--repeat N] [--only lda|lasso]
#                                   [--lda-iterations N] [--lasso-updates N] [--corpus DIR]
set -euo pipefail
SCRIPT_DIR=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
BIN=$SCRIPT_DIR/../build/bin
REPEAT=2 ONLY="" LDA_ITERATIONS=1000 LASSO_UPDATES=200000000 LASSO_LAMBDA=40
CORPUS=$SCRIPT_DIR/../data/debian-descriptions
while (($#)); do
  case $1 in
    --bin-dir) BIN=$2; shift 2 ;;
    --repeat) REPEAT=$2; shift 2 ;;
    --only) ONLY=$2; shift 2 ;;
    --lda-iterations) LDA_ITERATIONS=$2; shift 2 ;;
    --lasso-updates) LASSO_UPDATES=$2; shift 2 ;;
    --corpus) CORPUS=$2; shift 2 ;;
    *) sed -n '2,20p' "$0" >&2; exit 2 ;;
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
    lasso) echo lasso --data "$RUN/lasso.svm" --lambda "$LASSO_LAMBDA" --tolerance 1e-14 \
      --max-updates "$LASSO_UPDATES" ;;
  esac
}
field() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d[sys.argv[2]])' "$@"; }

echo "# $(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
echo "# solve seconds (summary.json) per --checkpoint-every; writes: min/median/max ms"
printf '%-6s %-4s %-9s %-10s %-12s %s\n' job run interval seconds checkpoints writes
declare -A SECS
for job in "${JOBS[@]}"; do
  read -r -a job_args <<<"$(args "$job")"
  for ((r = 1; r <= REPEAT; r++)); do
    for every in 0 30; do
      out=$RUN/out-$job-$r-$every
      lines=$(wc -l <"$CLOG")
      flock /tmp/strads-cpu.lock "$BIN/strads" submit "${job_args[@]}" --workers 2 \
        --checkpoint-every "$every" --output "$out" --wait --quiet >/dev/null
      writes=$(tail -n "+$((lines + 1))" "$CLOG" | sed -n 's/.*checkpoint at .* written in \([0-9.]*\) ms/\1/p' |
        sort -n | awk '{ a[NR] = $1 } END { if (NR) printf "%s/%s/%s", a[1], a[int((NR + 1) / 2)], a[NR]; else printf "-" }')
      cps=$(tail -n "+$((lines + 1))" "$CLOG" | grep -c "checkpoint at .* written in" || true)
      secs=$(field "$out/summary.json" seconds)
      SECS[$job,$every]+="$secs "
      printf '%-6s %-4s %-9s %-10.2f %-12s %s\n' "$job" "$r" "$every" "$secs" "$cps" "$writes"
    done
  done
done
for job in "${JOBS[@]}"; do
  python3 - "$job" "${SECS[$job,0]}" "${SECS[$job,30]}" <<'EOF'
import statistics, sys
job, off, on = sys.argv[1], [float(x) for x in sys.argv[2].split()], [float(x) for x in sys.argv[3].split()]
m0, m30 = statistics.median(off), statistics.median(on)
print(f"# {job}: median {m30:.2f} s with checkpoints every 30 s against {m0:.2f} s without: "
      f"{100 * (m30 / m0 - 1):+.1f} % (runs: {off} / {on})")
EOF
done
