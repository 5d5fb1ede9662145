#!/usr/bin/env bash
# Checks that every tracked C++ file (*.cc, *.h) is formatted as .clang-format says:
# `clang-format --dry-run -Werror` on each. Prints the files that are not and exits 1; exit 0
# when all are. Run by CTest as the test `format_check`.
#
# Usage: deploy/check-format.sh [--fix]
#   --fix   rewrite the files that are not formatted (clang-format -i), then check again
# Needs clang-format (Debian package clang-format, installed by deploy/install-deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

fix=0
for arg in "$@"; do
  case "$arg" in
    --fix) fix=1 ;;
    -h|--help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "check-format.sh: unknown argument: $arg" >&2; exit 2 ;;
  esac
done

if ! command -v clang-format >/dev/null 2>&1; then
  echo "check-format.sh: clang-format not found (apt-get install clang-format, or" \
    "deploy/install-deps.sh)" >&2
  exit 2
fi

# The C++ files: those git tracks, or, outside a git checkout, every one below the source folders.
files=()
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  while IFS= read -r -d '' f; do files+=("$f"); done < <(git ls-files -z -- '*.cc' '*.h')
else
  while IFS= read -r -d '' f; do files+=("$f"); done < <(find . \( -path './build*' -o -path \
    './.git' \) -prune -o -type f \( -name '*.cc' -o -name '*.h' \) -print0)
fi
if [[ ${#files[@]} -eq 0 ]]; then
  echo "check-format.sh: no C++ files found" >&2
  exit 2
fi

# The files clang-format would change, one per line.
unformatted() {
  # shellcheck disable=SC2016  # $f belongs to the inner sh
  printf '%s\0' "${files[@]}" | xargs -0 -n 16 -P 2 sh -c '
    for f; do [ -f "$f" ] || continue; clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || echo "$f"; done' sh | sort
}

bad="$(unformatted)"
if [[ -n "$bad" && "$fix" -eq 1 ]]; then
  echo "$bad" | tr '\n' '\0' | xargs -0 clang-format -i
  bad="$(unformatted)"
fi
if [[ -n "$bad" ]]; then
  count="$(echo "$bad" | wc -l)"
  echo "check-format.sh: $count of ${#files[@]} C++ files are not formatted as .clang-format says:"
  while IFS= read -r f; do echo "  $f"; done <<<"$bad"
  echo "fix with: clang-format -i FILE (or deploy/check-format.sh --fix)"
  exit 1
fi
echo "check-format.sh: all ${#files[@]} C++ files are formatted"
