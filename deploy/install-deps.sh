#!/usr/bin/env bash
# Install every Debian 12 (bookworm) package needed to build, test and benchmark STRADS.
# Safe to re-run: apt-get skips packages that are already installed.
#
# Usage: deploy/install-deps.sh [--no-update]
set -euo pipefail

PACKAGES=(
  build-essential
  cmake
  pkg-config
  libzmq3-dev
  cppzmq-dev
  libprotobuf-dev
  protobuf-compiler
  libboost-program-options-dev
  libeigen3-dev
  libspdlog-dev
  nlohmann-json3-dev
  libcpp-httplib-dev
  catch2
  clang-format
  shellcheck
  help2man
  gnuplot-nox
  chromium
  python3
  python3-dev
  pybind11-dev
  python3-numpy
  python3-scipy
  python3-pytest
  python3-sklearn
  openssh-client
  procps
  util-linux
)

do_update=1
for arg in "$@"; do
  case "$arg" in
    --no-update) do_update=0 ;;
    -h|--help)
      sed -n '2,5p' "$0" | sed 's/^# \{0,1\}//'
      echo "Packages: ${PACKAGES[*]}"
      exit 0 ;;
    *) echo "install-deps.sh: unknown argument: $arg" >&2; exit 2 ;;
  esac
done

SUDO=()
if [[ "$(id -u)" -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo)
  else
    echo "install-deps.sh: not root and sudo is not available; run as root" >&2
    exit 1
  fi
fi

export DEBIAN_FRONTEND=noninteractive

if [[ "$do_update" -eq 1 ]]; then
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
fi
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y --no-install-recommends "${PACKAGES[@]}"

echo "install-deps.sh: all ${#PACKAGES[@]} packages installed"
