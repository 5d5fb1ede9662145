#!/usr/bin/env bash
# One command from a fresh Debian 12 machine to a finished STRADS job: installs the Debian
# packages it needs (deploy/install-deps.sh --quickstart), builds the two executables it runs
# (`strads` and `strads-gen`; the tests and the Python package are deploy/run-tests.sh's),
# generates the default correlated Lasso problem (1000 samples x 20000 features in groups of 10
# correlated features, 50 true nonzeros) and solves it with `strads run lasso` on an embedded
# cluster (1 scheduler, 2 workers in this process).
# Results land in out/quickstart/ (coefficients.tsv, trace.csv, summary.json, trace.png).
# Pass --no-install to skip the package installation.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ "${1:-}" != "--no-install" ]]; then deploy/install-deps.sh --quickstart; fi
# The same build/ as deploy/run-tests.sh: the objects are the same (CMakeLists.txt), so either
# script reuses what the other compiled.
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF -DSTRADS_PYTHON=OFF
cmake --build build -j"$(nproc)" --target strads strads-gen

mkdir -p data out
data=data/synthetic-1000x20000.svm
if [[ ! -s "$data" ]]; then
  build/bin/strads-gen --rows 1000 --features 20000 --group-size 10 --correlation 0.9 \
    --density 0.05 --nonzeros 50 --seed 1 --output "$data"
fi
# lambda = 20 is about 0.13 * lambda_max of this problem: ~110 nonzero coefficients.
build/bin/strads run lasso --data "$data" --lambda 20 --output out/quickstart

if command -v gnuplot > /dev/null; then
  # Convergence: the relative gap to the best objective, log axis, against seconds and updates.
  gnuplot -e "trace='out/quickstart/trace.csv'; output='out/quickstart/trace.png'" \
    deploy/plot-trace.gp 2> /dev/null || echo "(gnuplot could not draw out/quickstart/trace.png)"
fi
echo
echo "summary (out/quickstart/summary.json):"
cat out/quickstart/summary.json
echo "true nonzeros: ${data}.truth.tsv; estimated: out/quickstart/coefficients.tsv"
