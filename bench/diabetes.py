"""The diabetes data of the Lasso benchmarks as libsvm (deploy/get-real-data.sh).

    python3 -m bench.diabetes SRC_DIR OUTPUT

SRC_DIR holds python3-sklearn's diabetes_data_raw.csv.gz (442 x 10) and diabetes_target.csv.gz.
Writes the quadratic model of Efron et al.'s "Least Angle Regression" (the lars R package's
diabetes$x2): the 10 baseline variables, the 9 squares (all but the binary sex) and the 45
pairwise interactions, 64 columns. Every raw variable is centred and scaled to unit L2 norm
before the products are formed, every one of the 64 columns again after; y is centred (the
solvers fit no intercept).
"""
import gzip
import math
import sys


def main(argv):
    src, out = argv[0], argv[1]

    def read(name):
        with gzip.open(f"{src}/{name}", "rt") as f:
            return [[float(v) for v in line.split()] for line in f if line.strip()]

    raw = read("diabetes_data_raw.csv.gz")
    y = [r[0] for r in read("diabetes_target.csv.gz")]
    n = len(raw)
    if not (n == 442 and len(y) == n and all(len(r) == 10 for r in raw)):
        sys.exit(f"bench.diabetes: {src}: unexpected diabetes shape ({n} rows)")

    def standardise(col):
        m = sum(col) / n
        c = [v - m for v in col]
        s = math.sqrt(sum(v * v for v in c))
        return [v / s for v in c]

    names = ["age", "sex", "bmi", "bp", "s1", "s2", "s3", "s4", "s5", "s6"]
    base = [standardise([r[k] for r in raw]) for k in range(10)]
    cols = list(base)
    cols += [[v * v for v in base[k]] for k in range(10) if names[k] != "sex"]
    cols += [[a * b for a, b in zip(base[i], base[j])] for i in range(10) for j in range(i + 1, 10)]
    cols = [standardise(c) for c in cols]
    assert len(cols) == 64
    ym = sum(y) / n
    with open(out, "w") as f:
        for i in range(n):
            feats = " ".join(f"{j + 1}:{cols[j][i]!r}" for j in range(64) if cols[j][i] != 0.0)
            f.write(f"{y[i] - ym!r} {feats}\n")
    print(f"wrote {out}: {n} rows x {len(cols)} features")


if __name__ == "__main__":
    main(sys.argv[1:])
