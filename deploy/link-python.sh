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
# Another python3 first on the PATH (pyenv, a virtualenv) has neither Debian's numpy nor this .pth.
on_path=$(command -v python3 || true)
if [[ -n $on_path && $(realpath "$on_path") != $(realpath "$py") ]] &&
  ! "$on_path" -c 'import numpy, strads' 2>/dev/null; then
  echo "link-python.sh: note: 'python3' on your PATH is $on_path, which cannot import numpy and" \
    "strads; run $py, or install numpy and scipy into that Python and set" \
    "PYTHONPATH=$build/python" >&2
fi
