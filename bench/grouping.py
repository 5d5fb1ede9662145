"""The table of deploy/bench-grouping.sh.

    python3 -m bench.grouping RESULTS NAME APP LAMBDA

RESULTS holds ORDER-gG-rR/ (order plain or shuffled, G the --group-rho, R the repeat), each with
trace.csv and summary.json. F* is the least objective of any row of any run (both orders have the
same optimum). Prints, per order and --group-rho, the medians over the repeats of: the load (the
first trace row), seconds to 1e-3 and 1e-6 of F* and rounds to 1e-6 (bench.epsilon), and the mean
step length of the line search.
"""
import glob
import os
import sys

from bench import epsilon, markdown, stats, trace


def main(argv):
    res, name, app, lam = argv[:4]
    runs = {}
    for d in sorted(glob.glob(os.path.join(res, "*-r*"))):
        if not os.path.isdir(d):
            continue
        key = os.path.basename(d).rsplit("-r", 1)[0]
        runs.setdefault(key, []).append(trace.run_dir(d))
    fstar = epsilon.best_objective(p.objective for v in runs.values() for points, _ in v
                                   for p in points)

    def at(points, eps):
        hit = epsilon.time_to_eps(points, fstar, eps, epsilon.engine_start(points))
        return (hit.seconds, hit.round) if hit else (None, None)

    def fmt(x, spec):
        return markdown.number(x, spec, missing="—")

    print(f"\n### {name}: {app}, lambda = {lam}, F* = {fstar:.12g}\n")
    print("| columns | --group-rho | load s | s to 1e-3 | s to 1e-6 | rounds to 1e-6 | mean step | runs |")
    print("|---|---|---|---|---|---|---|---|")
    for order in ("plain", "shuffled"):
        for g in ("0.5", "1"):
            v = runs.get(f"{order}-g{g}", [])
            if not v:
                continue
            load = stats.median([points[0].seconds for points, _ in v])
            t3 = stats.median([at(points, 1e-3)[0] for points, _ in v])
            t6 = stats.median([at(points, 1e-6)[0] for points, _ in v])
            r6 = stats.median([at(points, 1e-6)[1] for points, _ in v])
            step = stats.median([s.get("mean_step_length") for _, s in v])
            label = "side by side" if order == "plain" else "shuffled"
            print(f"| {label} | {g} | {fmt(load, '.3f')} | {fmt(t3, '.3f')} | {fmt(t6, '.3f')} | "
                  f"{fmt(r6, '.0f')} | {fmt(step, '.3f')} | {len(v)} |")


if __name__ == "__main__":
    main(sys.argv[1:])
