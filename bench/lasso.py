"""The table of deploy/bench-lasso.sh.

    python3 -m bench.lasso OUT NAME LAMBDA FRACTION

OUT holds one output directory per configuration (ref, emb11c, cl22c, ...), each with trace.csv
and summary.json. F* is the least of the reference's trace rows (exact after every sweep) and
every run's final objective. Prints, per configuration: the start (the engine's first trace
row: loading and the first check), seconds and updates to 1e-3, 1e-6 and 1e-9 of F*
(bench.epsilon), their ratios to the reference's, the final gap, rounds and updates per second,
and the share of the solve the job waited on its schedulers. Writes OUT/table.json (read by
bench.latency).
"""
import json
import os
import sys

from bench import epsilon, markdown, trace

CONFIGS = [("ref", "(a) reference, sequential"),
           ("emb11c", "(b) embedded 1x1"),
           ("emb12c", "(b) embedded 1x2"),
           ("cl11c", "(c) loopback cluster 1x1"),
           ("cl12c", "(c) loopback cluster 1x2"),
           ("cl22c", "(c) loopback cluster 2x2")]


def fmt_s(x):
    return markdown.number(x, ".3f")


def fmt_u(x):
    return markdown.number(x, ",")


def main(argv):
    out, name, lam, frac = argv[0], argv[1], float(argv[2]), argv[3]
    runs = {}
    for key, label in CONFIGS:
        d = os.path.join(out, key)
        if not os.path.exists(os.path.join(d, "trace.csv")):
            continue
        points, summary = trace.run_dir(d)
        if key == "ref":
            start = 0.0  # the reference's trace counts from the start of the solve
            exact = [p.objective for p in points]
        else:
            start = epsilon.engine_start(points)  # first row: after loading, at the first check
            exact = []
        runs[key] = (label, points, summary, start, exact)

    fstar = epsilon.best_objective(
        [summary["objective"] for _, _, summary, _, _ in runs.values()] +
        [f for *_, exact in runs.values() for f in exact])

    def first(points, start, eps):
        hit = epsilon.time_to_eps(points, fstar, eps, start)
        return (hit.seconds, hit.updates) if hit else (None, None)

    ref = runs.get("ref")
    ref_t = {}
    if ref:
        for eps in (1e-3, 1e-6, 1e-9):
            ref_t[eps] = first(ref[1], ref[3], eps)[0]

    print(f"Problem `{name}`: lambda = {frac} x lambda_max = {lam:.10g}; F* = {fstar:.12g}")
    print()
    print("| config | start s | s to 1e-3 | updates to 1e-3 | s to 1e-6 | updates to 1e-6 | "
          "s to 1e-9 | time ratio 1e-3 | time ratio 1e-6 | time ratio 1e-9 | final gap | rounds/s | "
          "updates/s | schedulers' share | converged |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    table = {"fstar": fstar, "configs": {}}
    for key, _ in CONFIGS:
        if key not in runs:
            continue
        label, points, summary, start, _ = runs[key]
        t3, u3 = first(points, start, 1e-3)
        t6, u6 = first(points, start, 1e-6)
        t9, _ = first(points, start, 1e-9)

        def ratio(t, eps):
            r = ref_t.get(eps)
            return "n/r" if t is None or not r else f"{t / r:.1f}x"

        solve = summary["seconds"] - start
        rounds = summary.get("rounds")
        rps = f"{rounds / solve:,.0f}" if rounds and solve > 0 else "-"
        ups = f"{summary['updates'] / solve:,.0f}" if solve > 0 else "-"
        gap = epsilon.relative_gap(summary["objective"], fstar)
        # The part of the solve the job waited on its schedulers (a chord, or a check's
        # evaluation): summary.json's waits (coordinator/wait_ledger.h); engine runs only.
        waits = summary.get("waits")
        share = f"{100 * waits['schedulers_share']:.0f} %" if waits else "-"
        table["configs"][key] = {"label": label, "start_s": start, "s_to_1e-3": t3,
                                 "updates_to_1e-3": u3, "s_to_1e-6": t6, "updates_to_1e-6": u6,
                                 "s_to_1e-9": t9,
                                 "solve_s": solve, "rounds": rounds, "updates": summary["updates"],
                                 "final_gap": gap, "converged": summary["converged"],
                                 "waits": waits}
        print(f"| {label} | {start:.3f} | {fmt_s(t3)} | {fmt_u(u3)} | {fmt_s(t6)} | {fmt_u(u6)} | "
              f"{fmt_s(t9)} | {ratio(t3, 1e-3)} | {ratio(t6, 1e-6)} | {ratio(t9, 1e-9)} | {gap:.1e} | "
              f"{rps} | {ups} | {share} | "
              f"{'yes' if summary['converged'] else 'no'} |")
    with open(os.path.join(out, "table.json"), "w") as f:
        json.dump(table, f, indent=1)
    print()
    print("start = engine job time before its first trace row (shard loading + first check at beta=0);"
          " the reference's load time is excluded and not shown here (see its summary.json"
          " load_seconds). s = solve seconds, from the first trace row. n/r = not reached."
          " rounds/s and updates/s over the whole solve. schedulers' share: of the whole solve, the"
          " time the job waited on a scheduler's chord or a check's evaluation (summary.json waits).")


if __name__ == "__main__":
    main(sys.argv[1:])
