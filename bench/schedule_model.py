"""An offline model of the dynamic engine's schedule on a Lasso problem, to try schedules in minutes.

    /usr/bin/python3 -m bench.schedule_model --npz DATA.npz --lambda L --fstar F [--P 2] [--B 256]
        [--passes 4] [--target 1e-3] [--combine line|worker] [--rho 1] [--sigma 1]
        [--cluster] [--active-worker] [--rotate-active] [--seed 1]

It is not the engine: one process, numpy, no messages, no pipeline (depth 1). It keeps what decides
how many updates a schedule needs: each round draws 2B candidates with probability proportional to
their priorities and keeps the B highest (optionally filtered: no pair above --rho across workers);
each of P workers owns a contiguous block of the columns and makes up to --passes exact
coordinate-descent passes over its share against the residual as the round began (a pass stops
when nothing moved); the shares' sum is combined by the exact line search on [0, 1] of
engine/step_length.h (--combine worker: one step length per worker, by coordinate search); a
commit sets the priority to |delta| + 1e-6, and every 20 rounds a check sets every priority to the
predicted step |KKT violation| / ||x_j||^2 + 1e-6. Updates are counted as the engine counts them:
chord parameters a round.

Variants: --sigma S multiplies each worker's curvature (CoCoA+'s sigma'); --cluster assigns the
columns to P balanced groups by sign-invariant spherical k-means instead of blocks;
--active-worker sends every non-zero chord parameter to worker 0 (the engine's --active-worker);
--rotate-active admits a non-zero parameter to a chord only on its owner's turn (round mod P).

DATA.npz holds X (n x J, dense) and y; for the gene problem of bench/gene.py:
    /usr/bin/python3 -m bench.schedule_model --from-svm data/gene/gene.svm --npz /tmp/gene.npz
Prints the updates and rounds to the target relative gap (F - F*) / F*.
"""
import argparse
import sys

import numpy as np
from scipy.optimize import minimize_scalar


def load_svm(path, npz):
    rows = [line.split() for line in open(path) if line.strip()]
    cols = max(int(t.split(":")[0]) for r in rows for t in r[1:])
    x = np.zeros((len(rows), cols))
    y = np.zeros(len(rows))
    for i, r in enumerate(rows):
        y[i] = float(r[0])
        for t in r[1:]:
            j, v = t.split(":")
            x[i, int(j) - 1] = float(v)
    np.savez(npz, X=x, y=y)


def soft(z, t):
    return np.sign(z) * np.maximum(np.abs(z) - t, 0.0)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--npz", required=True)
    ap.add_argument("--from-svm")
    ap.add_argument("--lambda", dest="lam", type=float)
    ap.add_argument("--fstar", type=float)
    ap.add_argument("--P", type=int, default=2)
    ap.add_argument("--B", type=int, default=256)
    ap.add_argument("--passes", type=int, default=4)
    ap.add_argument("--combine", default="line", choices=["line", "worker"])
    ap.add_argument("--rounds", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--target", type=float, default=1e-3)
    ap.add_argument("--rho", type=float, default=1.0)
    ap.add_argument("--sigma", type=float, default=1.0)
    ap.add_argument("--cluster", action="store_true")
    ap.add_argument("--active-worker", action="store_true")
    ap.add_argument("--rotate-active", action="store_true")
    a = ap.parse_args()
    if a.from_svm:
        load_svm(a.from_svm, a.npz)
        return 0
    if a.lam is None or a.fstar is None:
        ap.error("--lambda and --fstar are needed")
    d = np.load(a.npz)
    X, y, lam, fstar = d["X"], d["y"], a.lam, a.fstar
    n, J = X.shape
    sq = (X * X).sum(0)
    sq[sq == 0] = 1.0
    Xn = X / np.sqrt(sq)
    rng = np.random.default_rng(a.seed)
    beta = np.zeros(J)
    r = y.copy()
    owner = (np.arange(J) * a.P) // J
    if a.cluster and a.P > 1:
        C = Xn[:, rng.choice(J, a.P, replace=False)]
        for _ in range(10):
            S = np.abs(C.T @ Xn)
            order = np.argsort(-(S.max(0) - np.sort(S, 0)[-2]))
            cap = int(np.ceil(J / a.P))
            count = np.zeros(a.P, int)
            for j in order:
                for q in np.argsort(-S[:, j]):
                    if count[q] < cap:
                        owner[j] = q
                        count[q] += 1
                        break
            for q in range(a.P):
                M = Xn[:, owner == q]
                C[:, q] = (M * np.sign(C[:, q] @ M)).mean(1)
                C[:, q] /= np.linalg.norm(C[:, q])

    def objective(b, res):
        return 0.5 * res @ res + lam * np.abs(b).sum()

    g = X.T @ r
    prio = np.maximum(np.abs(g) - lam, 0) / sq + 1e-6
    updates = 0
    for t in range(a.rounds):
        k = min(2 * a.B, int((prio > 0).sum()))
        cand = rng.choice(J, size=k, replace=False, p=prio / prio.sum())
        if a.rotate_active and a.P > 1:
            cand = cand[(beta[cand] == 0) | (owner[cand] == t % a.P)]
        cand = cand[np.argsort(-prio[cand], kind="stable")]
        own = owner.copy()
        if a.active_worker and a.P > 1:
            own[beta != 0] = 0
        if a.rho < 1 and a.P > 1:
            kept, rows, who = [], np.zeros((0, n)), np.zeros(0, int)
            for c in cand:
                if len(kept) >= a.B:
                    break
                if len(kept) and ((np.abs(rows @ Xn[:, c]) > a.rho) & (who != own[c])).any():
                    continue
                kept.append(c)
                rows = np.vstack([rows, Xn[:, c]])
                who = np.append(who, own[c])
            chord = np.array(kept, dtype=int)
        else:
            chord = cand[: a.B]
        shares = []
        for w in range(a.P):
            ids = np.sort(chord[own[chord] == w])
            if len(ids) == 0:
                continue
            b = beta[ids].copy()
            res = r.copy()
            for _ in range(a.passes):
                moved = 0.0
                for i, j in enumerate(ids):
                    z = b[i] + X[:, j] @ res / (a.sigma * sq[j])
                    nb = soft(z, lam / (a.sigma * sq[j]))
                    if nb != b[i]:
                        res -= X[:, j] * (nb - b[i])
                        moved = max(moved, abs(nb - b[i]))
                        b[i] = nb
                if moved == 0:
                    break
            updates += len(ids)
            shares.append((ids, b - beta[ids], r - res))

        def at(alphas):
            res, b = r.copy(), beta.copy()
            for (ids, dd, u), s in zip(shares, alphas):
                res -= s * u
                b[ids] += s * dd
            return objective(b, res)

        P = len(shares)
        if a.combine == "line" or P == 1:
            best = minimize_scalar(lambda s: at([s] * P), bounds=(0, 1), method="bounded",
                                   options={"xatol": 1e-9})
            alphas = [1.0] * P if at([1.0] * P) <= best.fun else [best.x] * P
        else:
            alphas = [1.0] * P if at([1.0] * P) <= at([1.0 / P] * P) else [1.0 / P] * P
            for _ in range(5):
                for q in range(P):
                    def along(s, q=q):
                        trial = list(alphas)
                        trial[q] = s
                        return at(trial)
                    best = minimize_scalar(along, bounds=(0, 1), method="bounded",
                                           options={"xatol": 1e-9})
                    alphas[q] = min([(along(0.0), 0.0), (along(1.0), 1.0), (best.fun, best.x),
                                     (along(alphas[q]), alphas[q])])[1]
        for (ids, dd, u), s in zip(shares, alphas):
            r -= s * u
            beta[ids] += s * dd
            prio[ids] = np.abs(s * dd) + 1e-6
        gap = (objective(beta, r) - fstar) / fstar
        if t % 20 == 19:
            g = X.T @ r
            viol = np.where(beta != 0, np.abs(g - lam * np.sign(beta)), np.maximum(np.abs(g) - lam, 0))
            prio = viol / sq + 1e-6
        if gap < a.target:
            print(f"P={a.P} B={a.B} updates={updates} rounds={t + 1} gap={gap:.2e}")
            return 0
    print(f"P={a.P} B={a.B} not reached after {a.rounds} rounds: updates={updates} gap={gap:.2e}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
