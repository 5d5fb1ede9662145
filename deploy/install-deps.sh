#!/usr/bin/env bash
# Installs the Debian 12 (bookworm) packages STRADS needs. Safe to re-run: apt-get skips packages
# that are already installed.
#
# Usage: deploy/install-deps.sh [--quickstart] [--no-update] [--list]
#   (default)     everything: build every target, run every test and benchmark (deploy/run-tests.sh)
#   --quickstart  only what deploy/quickstart.sh needs: the compiler and libraries of the `strads`
#                 CLI and `strads-gen`, and gnuplot for its plot
#   --no-update   skip `apt-get update`
#   --list        print the chosen packages, one a line, and install nothing
set -euo pipefail

# The one package list, in two parts. The quickstart's part builds the C++ executables (the
# libraries every target links) and draws out/quickstart/trace.png.
QUICKSTART_PACKAGES=(
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
  gnuplot-nox
)
# The rest: what the tests, the Python package, the man pages, the .deb and the benchmarks use.
FULL_PACKAGES=(
  catch2               # the C++ tests
  clang-format         # format_check
  shellcheck           # launcher_scripts_are_shellcheck_clean
  help2man             # man pages (cmake --install, the .deb)
  file                 # cpack's DEB generator (package_deb, the README's cpack command)
  chromium             # cluster_dashboard_in_browser
  python3              # the test scripts, the Python package
  python3-dev
  pybind11-dev
  python3-numpy
  python3-scipy
  python3-pytest
  python3-sklearn      # the Python tests' reference and its own tests (CTest python_sklearn_upstream_tests); the real data of real_data_test.sh
  openssh-client       # strads-cluster on remote hosts
  procps               # pgrep: the benchmark scripts
  util-linux           # setsid: strads-cluster (its daemons lead their own sessions)
)

profile=full
do_update=1
list_only=0
for arg in "$@"; do
  case "$arg" in
    --quickstart) profile=quickstart ;;
    --no-update) do_update=0 ;;
    --list) list_only=1 ;;
    -h|--help)
      sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
      exit 0 ;;
    *) echo "install-deps.sh: unknown argument: $arg (see --help)" >&2; exit 2 ;;
  esac
done

PACKAGES=("${QUICKSTART_PACKAGES[@]}")
if [[ $profile == full ]]; then PACKAGES+=("${FULL_PACKAGES[@]}"); fi
if ((list_only)); then
  printf '%s\n' "${PACKAGES[@]}"
  exit 0
fi

SUDO=()
if [[ "$(id -u)" -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo)
  else
    echo "install-deps.sh: not root and sudo is not available; run as root" >&2
    exit 1
  fi
fi

if [[ "$do_update" -eq 1 ]]; then
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
fi
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y --no-install-recommends "${PACKAGES[@]}"

echo "install-deps.sh: ${#PACKAGES[@]} packages installed ($profile)"
