#!/usr/bin/env bash
# Makes the build tree's Python package importable by the user's python3 without installing:
# writes strads-build.pth (one line: the absolute path of build/python) into the user's
# site-packages (python3 -m site --user-site, e.g. ~/.local/lib/python3.11/site-packages).
# Debian's /usr/bin/python3 is used when it exists (the one CMake builds the module for).
# deploy/quickstart.sh and deploy/run-tests.sh call it after building; remove the .pth file to undo.
#
# Usage: deploy/link-python.sh [BUILD_DIR]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(realpath "${1:-build}")
py=/usr/bin/python3
[[ -x $py ]] || py=python3
if ! compgen -G "$build/python/strads/_core*.so" > /dev/null; then
  echo "link-python.sh: no strads module in $build/python/strads (build first)" >&2
  exit 1
fi
site=$("$py" -m site --user-site)
mkdir -p "$site"
echo "$build/python" > "$site/strads-build.pth"
echo "python3 imports strads from $build/python ($site/strads-build.pth)"
