#!/usr/bin/env bash
# measure-memory.sh — peak memory and loading time of a loopback daemon cluster on one job
# (docs/performance.md: the paper's shape; issue 9, target 5).
#
# Starts `127.0.0.1 coordinator scheduler=S worker=P` with deploy/strads-cluster, submits a Lasso
# job on DATA at LAMBDA for a few seconds, then prints each daemon's peak resident memory (VmHWM of
# /proc/PID/status), their sum, and the job's first trace row time (loading + the first check).
#
# Usage: deploy/measure-memory.sh DATA LAMBDA [--bin-dir DIR] [--schedulers S] [--workers P]
#                                 [--seconds T]
set -euo pipefail
SCRIPT_DIR=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
BIN=$SCRIPT_DIR/../build/bin
S=1 P=2 T=5
(($# >= 2)) || { sed -n '2,11p' "$0" >&2; exit 2; }
DATA=$(readlink -f -- "$1") LAMBDA=$2
shift 2
while (($#)); do
  case $1 in
    --bin-dir) BIN=$2; shift 2 ;;
    --schedulers) S=$2; shift 2 ;;
    --workers) P=$2; shift 2 ;;
    --seconds) T=$2; shift 2 ;;
    *) echo "measure-memory.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
RUN=$(mktemp -d /tmp/strads-memory.XXXXXX)
trap '"$SCRIPT_DIR/strads-cluster" stop --run-dir "$RUN" >/dev/null 2>&1 || true; rm -rf -- "$RUN"' EXIT
printf '127.0.0.1 coordinator scheduler=%s worker=%s\n' "$S" "$P" >"$RUN/hosts"
exports=$("$SCRIPT_DIR/strads-cluster" start --hostfile "$RUN/hosts" --run-dir "$RUN" --port 0 \
  --bin-dir "$BIN" --log-level warn)
eval "$(grep '^export STRADS_COORDINATOR=' <<<"$exports")"
"$BIN/strads" submit lasso --data "$DATA" --lambda "$LAMBDA" --tolerance 1e-9 --max-seconds "$T" \
  --wait --quiet --output "$RUN/out" >/dev/null 2>&1 || true
total=0
for f in "$RUN"/pids/*.pid; do
  pid=$(head -n 1 "$f")
  kb=$(awk '/^VmHWM/ { print $2 }' "/proc/$pid/status")
  total=$((total + kb))
  echo "$(basename "$f" .pid): peak $((kb / 1024)) MB"
done
echo "all daemons: $((total / 1024)) MB; loading + first check: $(sed -n 2p "$RUN/out/trace.csv" | cut -d, -f1) s"
