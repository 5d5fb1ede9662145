#!/usr/bin/env bash
# get-real-data.sh — writes the real data set of the Lasso benchmark (docs/performance.md) as
# libsvm, from a Debian package: the diabetes data of Efron, Hastie, Johnstone & Tibshirani,
# "Least Angle Regression" (2004), as shipped by python3-sklearn (Debian 12: 1.2.1+dfsg-1) in
#   /usr/lib/python3/dist-packages/sklearn/datasets/data/diabetes_data_raw.csv.gz  (442 x 10)
#   /usr/lib/python3/dist-packages/sklearn/datasets/data/diabetes_target.csv.gz    (442)
#
# Output: DIR/diabetes64.libsvm, 442 rows x 64 features: the quadratic model of the LARS paper
# (the lars R package's diabetes$x2): the 10 baseline variables (age, sex, bmi, bp, s1..s6), the
# 9 squares (all but sex, which is binary) and the 45 pairwise interactions. Every raw variable
# is centred and scaled to unit L2 norm before the products are formed, and every one of the 64
# columns is centred and scaled to unit L2 norm again; y (disease progression after one year) is
# centred. The solvers fit no intercept, hence the centring. Pure python3 (bench/diabetes.py).
#
# If the files are not installed, the .deb is fetched with `apt-get download python3-sklearn`
# and unpacked with dpkg-deb into a temporary directory (nothing is installed: the package's
# 17 dependencies, scipy etc., are not needed for two CSV files). With --install it runs
# `apt-get install -y --no-install-recommends python3-sklearn` instead (root).
#
# Usage: deploy/get-real-data.sh [--dir DIR] [--install]      (default DIR /tmp/strads-bench)
set -euo pipefail

REPO=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
DIR=/tmp/strads-bench
INSTALL=0
while (($#)); do
  case $1 in
    --dir) DIR=$2; shift 2 ;;
    --install) INSTALL=1; shift ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "get-real-data.sh: unknown option $1" >&2; exit 2 ;;
  esac
done

REL=usr/lib/python3/dist-packages/sklearn/datasets/data
SRC=/$REL
TMP=""
cleanup() { [[ -z $TMP ]] || rm -rf -- "$TMP"; }
trap cleanup EXIT

if [[ ! -f $SRC/diabetes_data_raw.csv.gz ]]; then
  if ((INSTALL)); then
    apt-get install -y --no-install-recommends python3-sklearn >&2
  else
    TMP=$(mktemp -d)
    echo "get-real-data.sh: apt-get download python3-sklearn (unpacked in $TMP, not installed)" >&2
    (cd "$TMP" && apt-get download python3-sklearn >&2) || {
      echo "get-real-data.sh: apt-get download failed (run 'apt-get update' first?)" >&2
      exit 1
    }
    dpkg-deb -x "$TMP"/python3-sklearn_*.deb "$TMP/root"
    SRC=$TMP/root/$REL
  fi
fi
[[ -f $SRC/diabetes_data_raw.csv.gz && -f $SRC/diabetes_target.csv.gz ]] || {
  echo "get-real-data.sh: diabetes data not found in $SRC" >&2
  exit 1
}

mkdir -p "$DIR"
PYTHONPATH="$REPO${PYTHONPATH:+:$PYTHONPATH}" python3 -m bench.diabetes "$SRC" "$DIR/diabetes64.libsvm"
