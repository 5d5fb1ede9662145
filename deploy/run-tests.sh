#!/usr/bin/env bash
# One command from a fresh Debian 12 machine to the test suite's verdict: installs every Debian
# package the tests need (deploy/install-deps.sh), builds every target (Release: the executables,
# the tests, the Python package, the man pages) and runs every test under CTest.
# Pass --no-install to skip the package installation.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ "${1:-}" != "--no-install" ]]; then deploy/install-deps.sh; fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON -DSTRADS_PYTHON=ON
cmake --build build -j"$(nproc)"
deploy/link-python.sh  # python3 -c "import strads" works from here on
ctest --test-dir build --output-on-failure -j2 --timeout 300
