"""The gene-expression Lasso of issue 44: Bioconductor's ALL data set as a p >> n libsvm problem.

    python3 -m bench.gene OUT_DIR [--fraction 0.01] [--bin-dir build/bin] [--max-seconds 600]
                                  [--no-sklearn]

Needs Debian's r-bioc-all (apt-get install r-bioc-all: R, Biobase and the ALL expression set;
a benchmark-only package, like r-cran-glmnet) and numpy (python3-numpy; the anchor needs
python3-sklearn). The RMA expression of 12,625 probes x 128 patients is exported by Rscript;
the response is the probe of highest variance, the features every other probe (12,624 columns,
dense). y and every column are centred and scaled so that ||x_j||^2 = n (the solvers fit no
intercept).

The objective is STRADS's Lasso (apps/linear/lasso_loss.h):

    F(beta) = 1/2 ||y - X beta||^2 + lambda ||beta||_1,   lambda_max = max_j |x_j^T y|,

and lambda = FRACTION x lambda_max. F* is the least exact objective seen: every trace row of
the sequential reference (strads-lasso-reference, tolerance 1e-10) and, as an independent
anchor, scikit-learn's Lasso (its objective is F / n with alpha = lambda / n) evaluated here.

Writes OUT_DIR/gene.svm, OUT_DIR/reference/ (trace.csv, summary.json) and OUT_DIR/gene.json
(n, p, the response probe, lambda_max, lambda, F* and where it came from); prints lambda and F*.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from bench import epsilon, trace

# The expression matrix, patients in rows and probes in columns, with the probe names as header.
EXPORT_R = ("suppressMessages(library(ALL)); data(ALL); "
            "write.csv(t(Biobase::exprs(ALL)), file = commandArgs(TRUE)[1], row.names = FALSE)")


def export_expression(path: str):
    """(probe names, patients x probes matrix) read from R's ALL data set."""
    try:
        subprocess.run(["Rscript", "-e", EXPORT_R, path], check=True, capture_output=True,
                       text=True)
    except FileNotFoundError:
        sys.exit("bench.gene: Rscript not found (apt-get install r-bioc-all)")
    except subprocess.CalledProcessError as e:
        sys.exit(f"bench.gene: exporting ALL failed (apt-get install r-bioc-all?):\n{e.stderr}")
    with open(path) as f:
        names = [s.strip('"') for s in f.readline().strip().split(",")]
    return names, np.loadtxt(path, delimiter=",", skiprows=1)


def standardise(a: np.ndarray) -> np.ndarray:
    """Columns centred and scaled to ||a_j||^2 = n. Raises on a constant column."""
    c = a - a.mean(axis=0)
    norms = np.sqrt((c * c).sum(axis=0) / a.shape[0])
    if np.any(norms == 0):
        raise ValueError(f"{int(np.sum(norms == 0))} constant columns cannot be scaled")
    return c / norms


def write_libsvm(path: str, x: np.ndarray, y: np.ndarray) -> None:
    with open(path, "w") as f:
        for i in range(x.shape[0]):
            feats = " ".join(f"{j + 1}:{v!r}" for j, v in enumerate(x[i].tolist()) if v != 0.0)
            f.write(f"{float(y[i])!r} {feats}\n")


def objective(x, y, beta, lam) -> float:
    r = y - x @ beta
    return 0.5 * float(r @ r) + lam * float(np.abs(beta).sum())


def main(argv):
    ap = argparse.ArgumentParser(prog="python3 -m bench.gene", description=__doc__.split("\n")[0])
    ap.add_argument("out_dir")
    ap.add_argument("--fraction", type=float, default=0.01, help="lambda / lambda_max")
    ap.add_argument("--bin-dir", default="build/bin", help="holds strads-lasso-reference")
    ap.add_argument("--max-seconds", type=float, default=600, help="the reference's time limit")
    ap.add_argument("--no-sklearn", action="store_true", help="no scikit-learn anchor")
    args = ap.parse_args(argv)
    if not 0 < args.fraction < 1:
        ap.error("--fraction must be in (0, 1)")
    ref_exe = os.path.join(args.bin_dir, "strads-lasso-reference")
    if not os.access(ref_exe, os.X_OK):
        ap.error(f"{ref_exe}: not found or not executable (--bin-dir)")
    os.makedirs(args.out_dir, exist_ok=True)

    with tempfile.TemporaryDirectory() as tmp:
        names, expr = export_expression(os.path.join(tmp, "all.csv"))
    if expr.shape != (128, 12625) or len(names) != expr.shape[1]:
        sys.exit(f"bench.gene: unexpected ALL shape {expr.shape} ({len(names)} names)")
    n = expr.shape[0]
    response = int(np.argmax(expr.var(axis=0)))
    y = standardise(expr[:, [response]])[:, 0]
    x = standardise(np.delete(expr, response, axis=1))
    lambda_max = float(np.max(np.abs(x.T @ y)))
    lam = args.fraction * lambda_max
    svm = os.path.join(args.out_dir, "gene.svm")
    write_libsvm(svm, x, y)
    print(f"wrote {svm}: {n} rows x {x.shape[1]} features; response {names[response]}")
    print(f"lambda_max = {lambda_max!r}; lambda = {args.fraction} x lambda_max = {lam!r}")

    ref_dir = os.path.join(args.out_dir, "reference")
    subprocess.run([ref_exe, "--data", svm, "--lambda", repr(lam), "--tolerance", "1e-10",
                    "--max-seconds", str(args.max_seconds), "--output", ref_dir], check=True,
                   stdout=subprocess.DEVNULL)
    points, summary = trace.run_dir(ref_dir)
    candidates = {"reference": epsilon.best_objective([p.objective for p in points] +
                                                      [summary["objective"]])}
    print(f"reference: F = {candidates['reference']!r} after {summary['seconds']:.1f} s, "
          f"converged {summary['converged']}")
    if not args.no_sklearn:
        from sklearn.linear_model import Lasso
        t = time.perf_counter()
        model = Lasso(alpha=lam / n, fit_intercept=False, tol=1e-12, max_iter=1_000_000,
                      selection="cyclic").fit(x, y)
        candidates["sklearn"] = objective(x, y, model.coef_, lam)
        print(f"sklearn: F = {candidates['sklearn']!r} after {time.perf_counter() - t:.1f} s, "
              f"{model.n_iter_} sweeps, {int(np.sum(model.coef_ != 0))} non-zeros")
    source = min(candidates, key=candidates.get)
    fstar = candidates[source]
    print(f"F* = {fstar!r} (from {source})")
    with open(os.path.join(args.out_dir, "gene.json"), "w") as f:
        json.dump({"data": svm, "rows": n, "features": x.shape[1], "response": names[response],
                   "lambda_max": lambda_max, "fraction": args.fraction, "lambda": lam,
                   "fstar": fstar, "fstar_from": source, "candidates": candidates}, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1:])
