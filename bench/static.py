"""The static engine's benchmark report (deploy/bench-static.sh): tables, CSVs, plots, document.

    python3 -m bench.static

Run by deploy/bench-static.sh after its runs, with its settings in the environment: WORK (the run
outputs), DOC_DIR (where static-benchmarks.md and static/ go), MACHINE, COMMIT, DIRTY, QUICK,
LDA_ITERS, LDA_EVAL, MF_ITERS, F5_MF_ITERS, F5_LDA_ITERS, F5_P, DOCWORD, TRAIN, CMDS, REPO.
Writes DOC_DIR/static-benchmarks.md and DOC_DIR/static/*.csv, *.png (gnuplot). A script, not a
library: importing it runs the report.

Time origins: the references count from the start of the solve; the engine's trace.csv from job
start, its first row (iteration 0) written after loading, so its solve time is measured from
that row, as bench.epsilon's engine_start.
"""
import csv
import json
import os
import statistics
import subprocess
from collections import defaultdict

from bench import markdown, trace

W = os.environ["WORK"]; DOC = os.environ["DOC_DIR"]; OUT = os.path.join(DOC, "static")
P5 = [int(p) for p in os.environ["F5_P"].split()]
QUICK = os.environ["QUICK"] == "1"


def rows(path):
    return [{k: (float(v) if v not in ("", None) else None) for k, v in r.items()}
            for r in trace.read_rows(path)]


def write_csv(name, header, data):
    with open(os.path.join(OUT, name), "w") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(data)


def fmt(x, spec=",.0f"):
    return markdown.number(x, spec)


def engine(d):
    tr = rows(os.path.join(d, "trace.csv"))
    with open(os.path.join(d, "summary.json")) as f:
        sm = json.load(f)
    t0 = tr[0]["seconds"]
    for r in tr:  # solve time: from the iteration-0 row (after loading), as bench.epsilon.engine_start
        r["solve"] = r["seconds"] - t0
    return tr, sm, t0


def imbalance(d):
    """(work imbalance, time imbalance) from subrounds.csv: sum of per-sub-round maxima over the
    sum of per-sub-round means, over sub-rounds with any work."""
    g = defaultdict(list)
    for r in trace.read_rows(os.path.join(d, "subrounds.csv")):
        g[(r["iteration"], r["pass"], r["sub_round"])].append(
            (float(r["work"]), float(r["seconds"])))
    mw = sw = mt = st = 0.0
    for v in g.values():
        works = [x[0] for x in v]
        if sum(works) <= 0:
            continue
        secs = [x[1] for x in v]
        mw += max(works); sw += statistics.mean(works)
        mt += max(secs); st += statistics.mean(secs)
    return (mw / sw if sw else None, mt / st if st else None)


def first_reaching(trace, key, target, tkey, better=max):
    for r in trace:
        v = r[key]
        if v is not None and (v >= target if better is max else v <= target):
            return r[tkey]
    return None


def gnuplot(script):
    subprocess.run(["gnuplot"], input=script, text=True, check=True, cwd=OUT)


TERM = "set terminal pngcairo size 900,560 noenhanced font ',10'\n"
md = []

# ---------------- LDA ----------------
lda_tables = {}
for K in (100, 1000):
    base = os.path.join(W, "lda", f"k{K}")
    runs = {}
    for s in ("dense", "sparse"):
        tr = rows(os.path.join(base, f"{s}.trace.csv"))
        for r in tr:
            r["solve"] = r["seconds"]
        runs[f"reference {s}"] = dict(trace=tr, workers=1, start=0.0,
                                      wall_tps=tr[-1]["tokens"] / tr[-1]["seconds"],
                                      compute_tps=tr[-1]["tokens"] / tr[-1]["seconds"])
    for P in (1, 2):
        tr, sm, t0 = engine(os.path.join(base, f"engine-p{P}"))
        sampled = tr[-1]["tokens"] - tr[0]["tokens"]
        runs[f"engine P={P}"] = dict(trace=tr, workers=P, start=t0,
                                     wall_tps=sampled / tr[-1]["solve"] if tr[-1]["solve"] else 0,
                                     compute_tps=sm["work_per_compute_second"],
                                     summary_wps=sm["work_per_second"])
    target = runs["reference dense"]["trace"][-1]["loglik_per_token"]
    t_dense = first_reaching(runs["reference dense"]["trace"], "loglik_per_token", target, "solve")
    table = []
    for name, r in runs.items():
        tr = r["trace"]
        t = first_reaching(tr, "loglik_per_token", target, "solve")
        table.append([name, r["workers"], int(tr[-1]["iteration"]), r["start"], tr[-1]["solve"],
                      r["wall_tps"], r["wall_tps"] / r["workers"], r["compute_tps"],
                      tr[-1]["loglik_per_token"], t, (t_dense / t) if t else None])
        write_csv(f"lda_k{K}_{name.replace(' ', '_').replace('=', '')}.csv",
                  ["solve_seconds", "iteration", "tokens", "loglik_per_token"],
                  [[f"{x['solve']:.6f}", int(x["iteration"]), int(x["tokens"]),
                    f"{x['loglik_per_token']:.10g}"] for x in tr])
    write_csv(f"lda_k{K}_summary.csv",
              ["config", "workers", "iterations", "start_s", "solve_s", "tokens_per_s",
               "tokens_per_s_per_worker", "compute_tokens_per_s_per_worker", "final_loglik",
               "s_to_dense_final", "x_sooner_than_dense"],
              [[c if not isinstance(c, float) else f"{c:.6g}" for c in row] for row in table])
    lda_tables[K] = (table, target)
    plots = ", ".join(
        f"'lda_k{K}_{n.replace(' ', '_').replace('=', '')}.csv' using 1:4 with linespoints "
        f"title '{n}'" for n in runs)
    gnuplot(TERM + f"""set output 'lda_k{K}.png'
set datafile separator ','
set key bottom right
set grid
set title 'LDA, Debian descriptions corpus, K = {K}: log-likelihood per token vs solve time'
set xlabel 'solve seconds (references: sampling only; engine: from iteration 0, evaluations included)'
set ylabel 'log-likelihood per token'
plot {plots}, {target} with lines dashtype 2 title 'dense final'
""")

# ---------------- MF ----------------
mf_tables = {}
for A in ("ccd", "sgd"):
    base = os.path.join(W, "mf", A)
    runs = {}
    tr = rows(os.path.join(base, "ref.trace.csv"))
    for r in tr:
        r["solve"] = r["seconds"]
    runs["reference"] = (tr, 0.0)
    for P in (1, 2):
        etr, sm, t0 = engine(os.path.join(base, f"engine-p{P}"))
        runs[f"engine P={P}"] = (etr, t0)
    table = []
    for name, (tr, t0) in runs.items():
        it = int(tr[-1]["iteration"])
        table.append([name, it, t0, tr[-1]["solve"] / it if it else None, tr[-1]["objective"],
                      tr[-1]["train_rmse"], tr[-1]["test_rmse"]])
        write_csv(f"mf_{A}_{name.replace(' ', '_').replace('=', '')}.csv",
                  ["solve_seconds", "iteration", "objective", "train_rmse", "test_rmse"],
                  [[f"{x['solve']:.6f}", int(x["iteration"]), f"{x['objective']:.10g}",
                    f"{x['train_rmse']:.8g}", "" if x["test_rmse"] is None else
                    f"{x['test_rmse']:.8g}"] for x in tr])
    write_csv(f"mf_{A}_summary.csv",
              ["config", "iterations", "start_s", "s_per_iteration", "objective", "train_rmse",
               "test_rmse"],
              [[c if not isinstance(c, float) else f"{c:.6g}" for c in row] for row in table])
    mf_tables[A] = table
    files = [(n, f"mf_{A}_{n.replace(' ', '_').replace('=', '')}.csv") for n in runs]
    plots = ", ".join([f"'{f}' using 1:4 with linespoints title '{n} train'" for n, f in files] +
                      [f"'{f}' using 1:5 with linespoints dashtype 2 title '{n} test'"
                       for n, f in files])
    gnuplot(TERM + f"""set output 'mf_{A}.png'
set datafile separator ','
set key top right
set grid
set title 'MF {A}, power-law ratings: RMSE vs solve time'
set xlabel 'solve seconds (engine: from iteration 0)'
set ylabel 'RMSE'
plot {plots}
""")

# ---------------- Fig. 5 ----------------
f5 = []
for app, iters in (("mf", int(os.environ["F5_MF_ITERS"])), ("lda", int(os.environ["F5_LDA_ITERS"]))):
    for B in ("work", "uniform"):
        for P in P5:
            d = os.path.join(W, "fig5", app, f"{B}-p{P}")
            tr, sm, t0 = engine(d)
            wi, ti = imbalance(d)
            f5.append([app, B, P, tr[-1]["solve"] / iters, wi, ti, sm["imbalance"]])
write_csv("fig5.csv", ["app", "balance", "workers", "s_per_iteration", "work_imbalance",
                       "time_imbalance", "summary_imbalance"],
          [[c if not isinstance(c, float) else f"{c:.6g}" for c in row] for row in f5])
for app in ("mf", "lda"):
    for B in ("work", "uniform"):
        write_csv(f"fig5_{app}_{B}.csv", ["workers", "s_per_iteration", "work_imbalance"],
                  [[r[2], f"{r[3]:.6g}", f"{r[4]:.6g}"] for r in f5 if r[0] == app and r[1] == B])
    gnuplot(TERM.replace("900,560", "1100,480") + f"""set output 'fig5_{app}.png'
set datafile separator ','
set multiplot layout 1,2 title '{app}: --balance work vs uniform (2-core machine: P = 4, 8 oversubscribed)'
set grid
set key top left
set logscale x 2
set xtics (1, 2, 4, 8)
set xrange [0.8:10]
set xlabel 'workers P'
set ylabel 'work imbalance (sum max / sum mean)'
set yrange [0.9:*]
plot 'fig5_{app}_work.csv' using 1:3 with linespoints title 'work', 'fig5_{app}_uniform.csv' using 1:3 with linespoints title 'uniform'
set ylabel 'seconds per iteration (wall)'
set yrange [0:*]
plot 'fig5_{app}_work.csv' using 1:2 with linespoints title 'work', 'fig5_{app}_uniform.csv' using 1:2 with linespoints title 'uniform'
unset multiplot
""")

# ---------------- document ----------------
with open(os.environ["CMDS"]) as f:
    commands = f.read()
with open(os.environ["DOCWORD"]) as f:
    D, Wv, NNZ = (int(f.readline()) for _ in range(3))
tokens = int(rows(os.path.join(W, "lda", "k100", "dense.trace.csv"))[1]["tokens"])
with open(os.environ["TRAIN"]) as f:
    f.readline()
    rr, cc, nn = f.readline().split()


table_md = markdown.table


S = str
F0 = lambda x: fmt(x, ",.0f")
F2 = lambda x: fmt(x, ".2f")
F3 = lambda x: fmt(x, ".3f")
F4 = lambda x: fmt(x, ".4f")
X = lambda x: "n/r" if x is None else f"{x:.2f}x"

md.append(f"""# Static engine benchmarks: LDA, matrix factorisation, load balancing

Generated by `deploy/bench-static.sh`{' --quick (smoke sizes, not figures)' if QUICK else ''}.

## Machine and conditions

- {os.environ['MACHINE']}.
- Release build of commit {os.environ['COMMIT']}{' (working tree with ' + os.environ['DIRTY'] + ' modified tracked files of other engineers mid-change)' if os.environ['DIRTY'] != '0' else ''}.
- Every timed run held `/tmp/strads-cpu.lock` (`flock`), so benchmark runs did not overlap each
  other; builds by other engineers may have run at the same time.
- **The machine has 2 cores.** Runs with P = 4 and 8 workers are oversubscribed (plus the
  scheduler and coordinator threads): their wall times are not speedups. P = 2 already shares
  its 2 cores with the scheduler and coordinator threads.

## Data

- LDA: the Debian package descriptions corpus (`deploy/debian-descriptions-corpus.py`: the
  Translation-en long descriptions, one document per distinct description, stopwords and words in
  fewer than 5 or more than 10% of the documents dropped): D = {D:,} documents, W = {Wv:,} words,
  {NNZ:,} (doc, word) entries, {tokens:,} tokens.
- MF: `strads-gen ratings` (tools/synthetic_ratings.h): {int(rr):,} x {int(cc):,}, {int(nn):,} training
  ratings, Zipf 1.0 popularity of rows and columns (ids in popularity order), planted rank 10 +
  noise 0.1, 10% of the non-covering cells held out as the test set.

## Commands

```
{commands}```

Time origins. References (`strads-lda-reference`, `strads-mf-reference`) count from the start
of the solve (loading excluded); the LDA reference also excludes its log-likelihood evaluation.
The engine's `trace.csv` counts from job start; its first row (iteration 0) is written after
every worker loaded its shard and evaluated the initial state, so "solve" time is
`seconds - seconds of the iteration-0 row` ("start s" = that first row's time). The engine's
solve time includes its evaluation passes (every {os.environ['LDA_EVAL']} iterations for LDA, every
iteration for MF).
""")

for K, (table, target) in lda_tables.items():
    md.append(f"""## LDA, K = {K}

alpha 0.1, beta 0.01, {os.environ['LDA_ITERS']} sweeps, seed 1, engine with --blocks-per-worker 4
(with 1, the K = 1000 P = 1 run fails: its single worker computes a sub-round for more than 5 s
without a heartbeat and the coordinator drops it). Target = the dense (O(K)) sampler's
final log-likelihood per token, {target:.4f}. "x sooner" = the dense sampler's time to the
target / this configuration's. tokens/s = tokens sampled / solve seconds; per worker = that / P;
"compute tokens/s/worker" = summary.json `work_per_compute_second` (tokens over the workers'
summed compute seconds; references: tokens over sampling seconds).

{table_md(['config', 'P', 'iterations', 'start s', 'solve s', 'tokens/s', 'tokens/s/worker', 'compute tokens/s/worker', 'final loglik/token', 's to target', 'x sooner than dense'], table, [S, S, S, F2, F2, F0, F0, F0, F4, F2, X])}

![loglik vs time, K = {K}](static/lda_k{K}.png)
""")

goal = lda_tables[1000][0]
best_tps = max(r[7] for r in goal if r[0].startswith("engine"))
md.append(f"""### The issue's LDA goals, honestly

- ≥ 10 M tokens/s per core at K = 1000: the engine's best is {best_tps:,.0f} tokens per
  compute-second per worker: **{'met' if best_tps >= 1e7 else 'not met'}**.
- Reaching the reference's final log-likelihood ≥ 10x sooner than an O(K) sampler (K = 1000;
  judged on the engine rows):
  """ + "; ".join(f"{r[0]} {X(r[10])}" for r in goal if r[0] != "reference dense") +
          f""": **{'met' if any((r[10] or 0) >= 10 for r in goal if r[0].startswith('engine')) else 'not met'}**.
""")

for A, table in mf_tables.items():
    md.append(f"""## MF, {A}

rank 10, lambda 0.5, {os.environ['MF_ITERS']} iterations, seed 1{', learning rate 0.05, decay 0.1' if A == 'sgd' else ''}.
Seconds per iteration = final solve seconds / iterations (engine: evaluations included).

{table_md(['config', 'iterations', 'start s', 's/iteration', 'objective', 'train RMSE', 'test RMSE'], table, [S, S, F2, F3, lambda x: fmt(x, '.6g'), F4, F4])}

![RMSE vs time, {A}](static/mf_{A}.png)
""")

md.append(f"""## Fig. 5: --balance work vs uniform

The STRADS paper's Fig. 5: on power-law data, blocks of equal *size* (uniform) leave some
workers with much more work than others in every sub-round, and the sub-round waits for the
slowest; blocks of equal *work* (ratings, tokens) do not. mf: CCD++, {os.environ['F5_MF_ITERS']} iterations on the
power-law matrix; lda: K = 100, {os.environ['F5_LDA_ITERS']} sweeps on the corpus; --blocks-per-worker 1,
one evaluation (the last iteration).

- work imbalance = Σ over sub-rounds of max over workers of work, / Σ over sub-rounds of the
  mean work (from subrounds.csv, sub-rounds with any work). 1 = perfect. It counts work units
  (ratings, tokens), so it does not depend on the 2-core oversubscription.
- time imbalance = the same with the workers' compute seconds: at P > 2 it mixes in the
  oversubscription (a worker waiting for a core looks slow).
- summary imbalance = summary.json `imbalance` (the engine's own figure, last iteration).
- s/iteration = solve seconds / iterations, wall. **2 cores: P = 4, 8 are oversubscribed; these
  wall times are not speedups.**

{table_md(['app', 'balance', 'P', 's/iteration', 'work imbalance', 'time imbalance', 'summary imbalance'], f5, [S, S, S, F3, F3, F3, F3])}

![Fig. 5, mf](static/fig5_mf.png)
![Fig. 5, lda](static/fig5_lda.png)
""")

with open(os.path.join(DOC, "static-benchmarks.md"), "w") as f:
    f.write("\n".join(md))
