"""Checks the round-time model (docs/performance.md, "The cost model") against the runs of a
latency study.

    python3 -m bench.check_model [--dir /tmp/bl] [--name synthetic]
        [--latencies 0,50,250,1000] [--configs cl11c,cl12c,cl22c]

Reads the runs deploy/study-latency.sh (or deploy/bench-targets.sh --targets 6) left in
DIR/results-NAME-latL/CONFIG/ (trace.csv, summary.json). A round's time at one-way latency L is
measured as the solve time (the last trace row less the first) over the rounds, checks included,
as study-latency.sh prints it. The model:

    T(L) = T(0) + L * (3 + k / r)

A round of the column layout crosses three hops on its critical path (commit with the next
chord's request to the scheduler, chord to the workers, shares to the coordinator); a round that
follows a check crosses four (the check's request to the workers, their gradients to the
schedulers, the chord, the shares), so each check adds one hop. k / r is the run's checks per
round at that latency (the pacer spaces checks by time, so it changes with L). T(0) is measured.
Prints, per configuration and latency, the model, the measurement, their difference, and the hops
per round the measurement implies, (T(L) - T(0)) / L.
"""
import argparse
import json
import os

p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
p.add_argument("--dir", default="/tmp/bl")
p.add_argument("--name", default="synthetic")
p.add_argument("--latencies", default="0,50,250,1000")
p.add_argument("--configs", default="cl11c,cl12c,cl22c")
a = p.parse_args()


def run(latency, config):
    d = os.path.join(a.dir, f"results-{a.name}-lat{latency}", config)
    with open(os.path.join(d, "summary.json")) as f:
        s = json.load(f)
    with open(os.path.join(d, "trace.csv")) as f:
        rows = [line.split(",") for line in f.read().split("\n")[1:] if line]
    solve = float(rows[-1][0]) - float(rows[0][0])
    return solve / s["rounds"] * 1e6, s["engine"]["checks"] / s["rounds"], s["rounds"]


latencies = [int(x) for x in a.latencies.split(",")]
print("| config | one-way latency | checks per round | model µs/round | measured µs/round "
      "| model − measured | hops per round measured |")
print("|---|---|---|---|---|---|---|")
for config in a.configs.split(","):
    t0, _, _ = run(0, config)
    for latency in latencies:
        t, checks, _ = run(latency, config)
        model = t0 + latency * (3 + checks)
        hops = f"{(t - t0) / latency:.2f}" if latency else "-"
        print(f"| {config} | {latency} µs | {checks:.3f} | {model:,.0f} | {t:,.0f} | "
              f"{100 * (model - t) / t:+.0f} % | {hops} |")
