"""The scheduling-policy study's tables and plot inputs (deploy/study-schedules.sh).

    python3 -m bench.schedules thin-trace SRC DST
        copies a trace.csv keeping at most 2000 rows (bench.trace.thin)
    python3 -m bench.schedules meta OUT DATASET DATA FRACTION LAMBDA_MAX LAMBDA MAX_S MAX_UPDATES
        writes a data set's meta.json
    python3 -m bench.schedules analyze STUDY_DIR
        the tables and plot inputs below; then gnuplot bench/schedules.gp in STUDY_DIR draws them

Reads, per data set DIR/<ds>/: meta.json, reference.summary.json, <policy>-B<size>.{csv,
summary.json,rc}; and DIR/throughput/. Writes DIR/table.md, DIR/params.gp (F* and each run's
start time, for bench/schedules.gp) and DIR/<ds>/to-1e-3.dat, to-1e-6.dat (Fig. 4 data).

  F*         = min(reference objective at tolerance 1e-9, every run's final objective).
  gap        = (F - F*) / |F*| (bench.epsilon), F from trace.csv rows.
  solve time = seconds - seconds of the first trace row (loading + first check at beta = 0).
  diverged   = the run failed (exit code != 0 or no summary), or its final objective is NaN/inf,
               or above F(0) = the objective of the first trace row (beta = 0).
"""
import json
import math
import os
import sys

from bench import epsilon, markdown, trace

POLICIES = ["dynamic", "random", "cyclic", "static"]
SIZES = [1, 8, 32, 128, 256]
EPS = [1e-3, 1e-6]


def load_run(d, name):
    run = {"name": name}
    rc_file = os.path.join(d, name + ".rc")
    run["rc"] = int(open(rc_file).read().strip()) if os.path.exists(rc_file) else None
    s = os.path.join(d, name + ".summary.json")
    run["summary"] = json.load(open(s)) if os.path.exists(s) else None
    c = os.path.join(d, name + ".csv")
    run["rows"] = trace.read(c) if os.path.exists(c) else []
    return run


def finite(x):
    return x is not None and math.isfinite(x)


def analyse_dataset(d):
    meta = json.load(open(os.path.join(d, "meta.json")))
    ref = json.load(open(os.path.join(d, "reference.summary.json")))
    runs = {}
    for p in POLICIES:
        for b in SIZES:
            name = f"{p}-B{b}"
            if os.path.exists(os.path.join(d, name + ".rc")):
                runs[(p, b)] = load_run(d, name)
    cands = [ref["objective"]]
    for r in runs.values():
        if r["summary"] and finite(r["summary"].get("objective")):
            cands.append(r["summary"]["objective"])
    fstar = epsilon.best_objective(cands)
    for r in runs.values():
        rows = r["rows"]
        r["t0"] = epsilon.engine_start(rows)
        r["f0"] = rows[0].objective if rows else float("nan")
        s = r["summary"]
        final = s["objective"] if s else (rows[-1].objective if rows else float("nan"))
        r["final"] = final
        r["gap"] = epsilon.relative_gap(final, fstar)
        r["peak"] = max((x.objective for x in rows), default=float("nan"))
        r["cross"] = {}
        for eps in EPS:
            hit = epsilon.time_to_eps(rows, fstar, eps, r["t0"])
            r["cross"][eps] = (hit.updates, hit.seconds) if hit else None
        reasons = []
        if r["rc"] not in (0, None):
            reasons.append(f"exit {r['rc']}")
        if s is None:
            reasons.append("no summary")
        if not finite(final):
            reasons.append("objective not finite")
        elif finite(r["f0"]) and final > r["f0"]:
            reasons.append("final > F(0)")
        r["diverged"] = reasons
        r["solve"] = (s["seconds"] - r["t0"]) if s else float("nan")
    return meta, ref, fstar, runs


def fmt_u(x):
    return markdown.number(x, ",", missing="—")


def fmt_s(x):
    return markdown.number(x, ".2f", missing="—")


def analyze(top):
    out = []
    params = []
    for ds in ["synthetic", "debian"]:
        d = os.path.join(top, ds)
        if not os.path.exists(os.path.join(d, "meta.json")):
            continue
        meta, ref, fstar, runs = analyse_dataset(d)
        params.append(f'F_{ds} = {fstar!r}')
        for (p, b), r in runs.items():
            params.append(f"t0_{ds}_{p}_B{b} = {r['t0']!r}")
        first = next(iter(runs.values()), None)
        out.append(f"### {ds}\n")
        out.append(
            f"{first['summary']['rows'] if first and first['summary'] else '?'} rows x "
            f"{first['summary']['features'] if first and first['summary'] else '?'} features; "
            f"lambda = {meta['lambda_fraction']} x lambda_max = {meta['lambda_fraction']} x "
            f"{meta['lambda_max']:.6g} = {meta['lambda']:.6g}; F* = {fstar:.12g} "
            f"(reference: {ref['objective']:.12g}, {ref.get('nonzeros', '?')} nonzeros, "
            f"converged {ref.get('converged')}); F(0) = {first['f0'] if first else float('nan'):.6g}. "
            f"Budget per run: {meta['max_seconds']:g} s"
            + (f", {meta['max_updates']:,} updates" if meta["max_updates"] else "")
            + ".\n")
        out.append("| policy | B | updates to 1e-3 | s to 1e-3 | updates to 1e-6 | s to 1e-6 | "
                   "final gap | updates | rounds | updates/round | rounds/s | diverged? |")
        out.append("|---|---|---|---|---|---|---|---|---|---|---|---|")
        for p in POLICIES:
            for b in SIZES:
                r = runs.get((p, b))
                if r is None:
                    out.append(f"| {p} | {b} | not run | | | | | | | | | |")
                    continue
                s = r["summary"] or {}
                c3, c6 = r["cross"][1e-3], r["cross"][1e-6]
                upd, rounds = s.get("updates"), s.get("rounds")
                upr = f"{upd / rounds:.1f}" if upd and rounds else "—"
                rps = f"{rounds / r['solve']:,.0f}" if rounds and r["solve"] > 0 else "—"
                div = "**yes**: " + ", ".join(r["diverged"]) if r["diverged"] else "no"
                if not r["diverged"] and finite(r["peak"]) and r["peak"] > r["f0"] * (1 + 1e-12):
                    div += f" (peak {r['peak'] / r['f0']:.3g} x F(0))"
                gap = f"{r['gap']:.1e}" if finite(r["gap"]) else "NaN"
                out.append(f"| {p} | {b} | {fmt_u(c3 and c3[0])} | {fmt_s(c3 and c3[1])} | "
                           f"{fmt_u(c6 and c6[0])} | {fmt_s(c6 and c6[1])} | {gap} | "
                           f"{fmt_u(upd)} | {fmt_u(rounds)} | {upr} | {rps} | {div} |")
        out.append("")
        # Fig. 4 data and a compact matrix.
        for eps, tag in ((1e-3, "1e-3"), (1e-6, "1e-6")):
            with open(os.path.join(d, f"to-{tag}.dat"), "w") as f:
                f.write("# B " + " ".join(f"{p}_updates {p}_seconds" for p in POLICIES) + "\n")
                for b in SIZES:
                    cols = []
                    for p in POLICIES:
                        r = runs.get((p, b))
                        c = r["cross"][eps] if r else None
                        cols += ["NaN", "NaN"] if c is None else [str(c[0]), f"{c[1]:.4f}"]
                    f.write(f"{b} " + " ".join(cols) + "\n")
        out.append(f"Updates to 1e-3 (and to 1e-6) by chord size, {ds}:\n")
        out.append("| policy | " + " | ".join(f"B={b}" for b in SIZES) + " |")
        out.append("|---|" + "---|" * len(SIZES))
        for p in POLICIES:
            cells = []
            for b in SIZES:
                r = runs.get((p, b))
                if r is None:
                    cells.append("not run")
                    continue
                c3, c6 = r["cross"][1e-3], r["cross"][1e-6]
                cell = f"{fmt_u(c3 and c3[0])} ({fmt_u(c6 and c6[0])})"
                if r["diverged"]:
                    cell += " **diverged**"
                cells.append(cell)
            out.append(f"| {p} | " + " | ".join(cells) + " |")
        out.append("")

    tp = os.path.join(top, "throughput")
    if os.path.isdir(tp):
        out.append("### Scheduler throughput (synthetic, B = 256, 2 workers)\n")
        out.append("| policy | schedulers | pipeline depth | rounds/s | updates/s | updates/round | "
                   "process CPU | final gap | exit |")
        out.append("|---|---|---|---|---|---|---|---|---|")
        fstar = float("nan")
        for line in params:
            if line.startswith("F_synthetic"):
                fstar = float(line.split("=")[1])
        for p in ["dynamic", "cyclic", "random"]:
            for s in [1, 2]:
                for dd in [1, 2]:
                    name = f"{p}-S{s}-D{dd}"
                    if not os.path.exists(os.path.join(tp, name + ".rc")):
                        continue
                    r = load_run(tp, name)
                    sm = r["summary"] or {}
                    t0 = epsilon.engine_start(r["rows"])
                    solve = sm.get("seconds", float("nan")) - t0
                    rounds, upd = sm.get("rounds"), sm.get("updates")
                    cpu = "?"
                    tf = os.path.join(tp, name + ".time")
                    if os.path.exists(tf):
                        for line in open(tf):
                            if line.startswith("time:"):
                                cpu = line.split("cpu")[1].strip()
                    gap = ((sm["objective"] - fstar) / abs(fstar)
                           if sm and finite(sm.get("objective")) else float("nan"))
                    out.append(
                        f"| {p} | {s} | {dd} | "
                        f"{rounds / solve:,.0f} | {upd / solve:,.0f} | {upd / rounds:.1f} | {cpu} | "
                        f"{gap:.1e} | {r['rc']} |" if rounds and solve > 0 else
                        f"| {p} | {s} | {dd} | — | — | — | {cpu} | — | {r['rc']} |")
        out.append("")
        out.append("rounds/s and updates/s over the solve (from the first trace row to the end); "
                   "process CPU from /usr/bin/time over the whole command (loading included; "
                   "200% = both cores).\n")

    open(os.path.join(top, "table.md"), "w").write("\n".join(out) + "\n")
    open(os.path.join(top, "params.gp"), "w").write("\n".join(params) + "\n")
    print("\n".join(out))


def meta(out, ds, data, frac, lmax, lam, max_seconds, max_updates):
    with open(out, "w") as f:
        json.dump({"dataset": ds, "data": data, "lambda_fraction": float(frac),
                   "lambda_max": float(lmax), "lambda": float(lam),
                   "max_seconds": float(max_seconds), "max_updates": int(max_updates)},
                  f, indent=1)


def main(argv):
    if argv[:1] == ["thin-trace"] and len(argv) == 3:
        trace.thin(argv[1], argv[2])
    elif argv[:1] == ["meta"] and len(argv) == 9:
        meta(*argv[1:])
    elif argv[:1] == ["analyze"] and len(argv) == 2:
        analyze(argv[1])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
