"""Whole fit() calls of the Python estimators against scikit-learn's (issue 43).

    PYTHONPATH=build/python /usr/bin/python3 -m bench.sklearn_fit [--cases a,b] [--repeats 3]

Each case times ``fit`` (median of ``--repeats``) of ours at ``--tol`` (default 1e-6, our
default) and of scikit-learn's estimator at ``--sk-tol`` (default 1e-4, its default), and prints
each one's objective relative to the optimum F* (scikit-learn's fit at tol 1e-12, not timed):
compare times where both gaps are within 1e-6. Cases:

  tiny          Lasso on 20 x 5 (the fixed cost of a fit)
  dense         Lasso on dense 5000 x 2000, alpha 0.1
  sparse        Lasso on sparse 20,000 x 50,000 (density 1e-3), no intercept, alpha 1e-3
  sparse_icpt   the same with fit_intercept=True
  logistic      L1 logistic regression on make_classification(20000, 500), C = 1

Hold /tmp/strads-cpu.lock while it runs (flock /tmp/strads-cpu.lock python3 -m ...).
"""
import argparse
import statistics
import time
import warnings

import numpy as np
import scipy.sparse as sp


def lasso_objective(X, y, coef, intercept, alpha):
    r = y - (X @ coef) - intercept
    return 0.5 * float(r @ r) / X.shape[0] + alpha * float(np.abs(coef).sum())


def logistic_objective(X, y, coef, intercept, C):
    s = np.where(y == 1, 1.0, -1.0) * (np.asarray(X @ coef.ravel()).ravel() + intercept[0])
    return C * float(np.logaddexp(0, -s).sum()) + float(np.abs(coef).sum()) + abs(intercept[0])


def make_case(name):
    rng = np.random.default_rng(0)
    if name == "tiny":
        X = rng.standard_normal((20, 5))
        return X, X @ np.array([1.0, 0, -2, 0, 0.5]) + 0.1 * rng.standard_normal(20), 0.05
    if name == "dense":
        X = rng.standard_normal((5000, 2000))
        w = np.zeros(2000)
        w[:50] = rng.standard_normal(50)
        return X, X @ w + rng.standard_normal(5000), 0.1
    if name in ("sparse", "sparse_icpt"):
        X = sp.random(20000, 50000, density=1e-3, format="csr", random_state=1,
                      data_rvs=rng.standard_normal)
        w = np.zeros(50000)
        w[rng.choice(50000, 200, replace=False)] = 5 * rng.standard_normal(200)
        return X, X @ w + 0.5 * rng.standard_normal(20000) + 2.0, 1e-3
    if name == "logistic":
        from sklearn.datasets import make_classification

        X, y = make_classification(20000, 500, random_state=0)
        return X, y, 1.0
    raise SystemExit(f"unknown case {name}")


def timed(fit, repeats):
    seconds, model = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        model = fit()
        seconds.append(time.perf_counter() - start)
    return statistics.median(seconds), model


def run_case(name, repeats, tol, sk_tol):
    import strads
    from sklearn import linear_model

    X, y, reg = make_case(name)
    intercept = name != "sparse"
    if name == "logistic":
        ours = lambda: strads.LogisticRegression(C=reg, tol=tol, verbose=False).fit(X, y)
        theirs = lambda tol=sk_tol: linear_model.LogisticRegression(
            penalty="l1", C=reg, solver="liblinear", tol=tol, max_iter=100000).fit(X, y)
        objective = lambda m: logistic_objective(X, y, m.coef_, m.intercept_, reg)
    else:
        ours = lambda: strads.Lasso(alpha=reg, fit_intercept=intercept, tol=tol,
                                    verbose=False).fit(X, y)
        theirs = lambda tol=sk_tol: linear_model.Lasso(alpha=reg, fit_intercept=intercept,
                                                       tol=tol, max_iter=100000).fit(X, y)
        objective = lambda m: lasso_objective(X, y, m.coef_, m.intercept_, reg)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t_ours, m_ours = timed(ours, repeats)
        t_theirs, m_theirs = timed(theirs, repeats)
        best = objective(theirs(tol=1e-12))
    gap = lambda m: (objective(m) - best) / best
    print(f"{name:12s} ours {t_ours:8.4f} s (gap {gap(m_ours):+.1e})  scikit-learn "
          f"{t_theirs:8.4f} s (gap {gap(m_theirs):+.1e})  ratio {t_ours / t_theirs:6.2f}x",
          flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", default="tiny,dense,sparse,sparse_icpt")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--tol", type=float, default=1e-6)
    parser.add_argument("--sk-tol", type=float, default=1e-4)
    args = parser.parse_args()
    for name in args.cases.split(","):
        run_case(name, args.repeats, args.tol, args.sk_tol)


if __name__ == "__main__":
    main()
