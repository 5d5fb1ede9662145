#!/usr/bin/env bash
# The dynamic engine on real, strongly correlated data (the diabetes data of the LARS paper, 442 x
# 64 with every pairwise interaction, deploy/get-real-data.sh): with 2 workers it must reach the
# same optimum as the sequential reference at a 1e-9 tolerance. Without the step-length floor of
# DynamicJob::CommitColumns it stalled at a relative violation of 1.5e-9 (steps of ~1e-4).
# Usage: test/real_data_test.sh BIN_DIR        (fails without python3-sklearn data)
set -euo pipefail
BIN=$1
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
if ! "$(dirname "$0")/../deploy/get-real-data.sh" --dir "$DIR" > "$DIR/get.log" 2>&1; then
  cat "$DIR/get.log" >&2
  echo "FAIL: no diabetes data (python3-sklearn; deploy/install-deps.sh installs it)" >&2
  exit 1
fi
DATA=$DIR/diabetes64.libsvm
LAMBDA=94.94352604  # 0.1 lambda_max
"$BIN/strads-lasso-reference" --data "$DATA" --lambda "$LAMBDA" --tolerance 1e-9 \
  --output "$DIR/ref" > /dev/null 2>&1
"$BIN/strads" run lasso --data "$DATA" --lambda "$LAMBDA" --workers 2 --tolerance 1e-9 \
  --max-seconds 30 --output "$DIR/run" > "$DIR/run.log" 2>&1 || { cat "$DIR/run.log" >&2; exit 1; }
python3 - "$DIR/ref/summary.json" "$DIR/run/summary.json" <<'PY'
import json, sys
ref, run = (json.load(open(p)) for p in sys.argv[1:3])
gap = abs(run["objective"] - ref["objective"]) / ref["objective"]
print("reference %.9f, engine %.9f (relative gap %.1e), converged %s, %d rounds, mean step %.3f"
      % (ref["objective"], run["objective"], gap, run["converged"], run["rounds"],
         run["mean_step_length"]))
sys.exit(0 if run["converged"] and gap < 1e-9 else 1)
PY
