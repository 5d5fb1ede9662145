#!/usr/bin/env bash
# Tests the Debian package: builds it with CPack, unpacks it into an empty temporary root and runs
# STRADS from the unpacked paths only, never from the build tree.
#
#   deploy/test-deb.sh [--build-dir DIR] [--deb FILE]
#
# --build-dir   a configured and built tree (default: build); the package is made with cpack
#               from it into a temporary directory
# --deb FILE    test this package instead of building one
#
# The root is made with `dpkg-deb -x` (no root privileges, no Debian mirror), not a debootstrap
# chroot: that would download and unpack a base system and then the dependencies, minutes and a
# network connection per run. What the chroot would prove is checked instead:
#   1. every executable's libraries resolve (ldd: no "not found"), and no executable carries an
#      RPATH/RUNPATH (so nothing points into the build tree);
#   2. every library an executable links directly (NEEDED) belongs to a Debian package named in
#      the .deb's Depends, or providing a name there (its own dependencies pull in the rest);
#   3. with PATH = ROOT/usr/bin:/usr/bin:/bin and a working directory outside the repository,
#      strads-gen writes a small Lasso problem, `strads run lasso` solves it (embedded), and the
#      unpacked strads-cluster starts a loopback cluster (1 scheduler, 1 worker: daemons from
#      ROOT/usr/bin), `strads submit --wait` solves it there, and the cluster stops.
# Every ELF file and every package of the host must match the target (Debian 12, same arch).
# Exit 0 = pass, 1 = fail, also when a tool it runs is not installed (never a skip, so that CI
# catches a package deploy/install-deps.sh lacks). CTest runs it as test `package_deb` (label
# `package`).
set -euo pipefail

REPO=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd -P)
build_dir="$REPO/build"
deb=""
while (($#)); do
  case $1 in
    --build-dir) build_dir=${2:?--build-dir needs a value}; shift 2 ;;
    --deb) deb=${2:?--deb needs a value}; shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "test-deb.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
done

TMP=$(mktemp -d "${TMPDIR:-/tmp}/strads-test-deb.XXXXXX")
ROOT="$TMP/root"
RUN="$TMP/run"
cleanup() {
  local rc=$?
  if [[ -d $RUN/pids ]]; then
    env -i PATH="$ROOT/usr/bin:/usr/bin:/bin" HOME="$TMP/home" \
      "$ROOT/usr/bin/strads-cluster" stop --run-dir "$RUN" >/dev/null 2>&1 || true
  fi
  rm -rf -- "$TMP"
  exit "$rc"
}
trap cleanup EXIT
fail() { echo "test-deb.sh: FAIL: $*" >&2; exit 1; }
step() { echo "test-deb.sh: $*"; }

# Every tool this test runs, with its Debian package: a missing one fails the test (it is never
# skipped), so that a machine without it, and an install-deps.sh that forgets it, are caught.
tools=(dpkg-deb:dpkg dpkg-query:dpkg readelf:binutils ldd:libc-bin)
# cpack's DEB generator runs file (to find the ELF files), strip and dpkg-shlibdeps.
[[ -n $deb ]] || tools+=(cpack:cmake file:file strip:binutils dpkg-shlibdeps:dpkg-dev)
for t in "${tools[@]}"; do
  command -v "${t%%:*}" >/dev/null 2>&1 ||
    fail "${t%%:*} is not installed (Debian package ${t#*:}; deploy/install-deps.sh installs it)"
done

if [[ -z $deb ]]; then
  [[ -f $build_dir/CPackConfig.cmake ]] || fail "$build_dir is not a configured build tree"
  step "cpack from $build_dir"
  (cd "$TMP" && cpack --config "$build_dir/CPackConfig.cmake" -B "$TMP/pkg" >"$TMP/cpack.log" 2>&1) ||
    { cat "$TMP/cpack.log" >&2; fail "cpack failed"; }
  deb=$(find "$TMP/pkg" -maxdepth 1 -name '*.deb' -print -quit)
  [[ -n $deb ]] || fail "cpack made no .deb"
fi
[[ -f $deb ]] || fail "no package at $deb"
step "unpacking $(basename -- "$deb") into an empty root"
mkdir -p "$ROOT" "$TMP/home" "$TMP/work"
dpkg-deb -x "$deb" "$ROOT"
depends=$(dpkg-deb -f "$deb" Depends)
step "Depends: $depends"

# 1 and 2: libraries.
declare -A depended=()
IFS=',' read -r -a dep_list <<<"$depends"
for d in "${dep_list[@]}"; do
  d=${d#"${d%%[! ]*}"}
  depended[${d%% *}]=1
done
elves=0
for f in "$ROOT"/usr/bin/*; do
  head -c 4 -- "$f" | grep -q 'ELF' || continue
  elves=$((elves + 1))
  name=${f##*/}
  if readelf -d "$f" | grep -Eq '\((RPATH|RUNPATH)\)'; then
    fail "$name has an RPATH/RUNPATH: $(readelf -d "$f" | grep -E 'R(UN)?PATH')"
  fi
  libs=$(ldd "$f") || fail "ldd $name failed"
  if grep -q 'not found' <<<"$libs"; then fail "$name: $(grep 'not found' <<<"$libs")"; fi
  while IFS= read -r lib; do
    # "lib => path", or for the dynamic loader (NEEDED when position-independent code uses TLS,
    # as with -DSTRADS_PYTHON=ON) "/lib64/ld-linux-x86-64.so.2 (0x...)".
    path=$(awk -v l="$lib" '$1 == l && $2 == "=>" {print $3} $1 ~ ("/" l "$") {print $1}' <<<"$libs")
    [[ -n $path ]] || fail "$name: $lib is not resolved by ldd"
    owner=$(dpkg -S "$(readlink -f -- "$path")" 2>/dev/null || dpkg -S "$path" 2>/dev/null) ||
      fail "$name: $path belongs to no Debian package"
    pkg=${owner%%:*}
    ok=0
    # The package itself or a virtual package it provides (libspdlog1.10: libspdlog1.10-fmt9).
    provides=$(dpkg-query -W -f '${Provides}' "$pkg" 2>/dev/null || true)
    IFS=',' read -r -a names <<<"$pkg,$provides"
    for n in "${names[@]}"; do
      n=${n#"${n%%[! ]*}"}
      [[ -z ${depended[${n%% *}]:-} ]] || ok=1
    done
    ((ok)) || fail "$name needs $lib from $pkg, which Depends does not name"
  done < <(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
done
((elves >= 8)) || fail "expected the 8 executables in usr/bin, found $elves ELF files"
step "$elves executables: every library resolves and comes from a package in Depends"

# 3: run from the unpacked paths, in a directory outside the repository.
cd "$TMP/work"
run() { env -i PATH="$ROOT/usr/bin:/usr/bin:/bin" HOME="$TMP/home" "$@"; }
for p in strads strads-gen strads-cluster strads-coordinator strads-worker; do
  [[ $(run bash -c "command -v $p") == "$ROOT/usr/bin/$p" ]] || fail "$p is not taken from the root"
done
run strads-gen --rows 200 --features 400 --group-size 4 --nonzeros 10 --seed 3 \
  --output problem.svm >gen.log 2>&1 || { cat gen.log >&2; fail "strads-gen failed"; }
run strads run lasso --data problem.svm --lambda 5 --output out-run >run.log 2>&1 ||
  { cat run.log >&2; fail "strads run lasso failed"; }
grep -q '"converged": true' out-run/summary.json || fail "strads run lasso did not converge"
step "strads run lasso (embedded): converged; $(grep -c . out-run/coefficients.tsv) nonzeros"

echo "127.0.0.1 coordinator scheduler worker" >hosts.txt
run strads-cluster start --hostfile hosts.txt --run-dir "$RUN" --port 0 >start.out 2>start.err ||
  { cat start.err >&2; fail "strads-cluster start failed"; }
ep=$(sed -n 's/^export STRADS_COORDINATOR=//p' start.out)
[[ -n $ep ]] || fail "strads-cluster start printed no endpoint"
for f in "$RUN"/pids/*.pid; do
  pid=$(head -n 1 -- "$f")
  exe=$(readlink -f "/proc/$pid/exe") || fail "daemon of $f is not running"
  [[ $exe == "$ROOT/usr/bin/"* ]] || fail "daemon $pid runs $exe, not the unpacked one"
done
run strads --coordinator "$ep" submit lasso --data "$PWD/problem.svm" --lambda 5 --wait \
  --output out-submit >submit.log 2>&1 || { cat submit.log >&2; fail "strads submit failed"; }
grep -q '"converged": true' out-submit/summary.json || fail "submitted lasso did not converge"
run strads-cluster stop --run-dir "$RUN" >/dev/null || fail "strads-cluster stop failed"
step "strads-cluster start, strads submit lasso --wait, stop: the daemons ran from the root"
step "PASS"
