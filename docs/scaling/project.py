#!/usr/bin/env python3
"""The cost-model projection of docs/scaling.md: the column layout's round time, updates/s and
time to 1e-3 for P machines, from the constants measured by deploy/study-latency.sh.

    python3 docs/scaling/project.py [--coordinator-us 200 --scheduler-us 244 --worker-us 189
        --measured-chord 1024 --measured-nnz 20 --hops 3.6 --latency-us 50 --rows 450
        --features 1000000 --nnz 45 --updates-per-feature 1.34 --per-worker 64 --gbps 10]

The *-us arguments are CPU µs per round of a 1 x 1 cluster at the measured chord size (the cost
table of deploy/study-latency.sh); per-parameter costs are those divided by the chord size, the
worker's also by the non-zeros per column.
"""
import argparse

p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
for name, default in [("coordinator-us", 200), ("scheduler-us", 244), ("worker-us", 189),
                      ("measured-chord", 1024), ("measured-nnz", 20), ("hops", 3.6),
                      ("latency-us", 50), ("rows", 450), ("features", 1_000_000), ("nnz", 45),
                      ("updates-per-feature", 1.34), ("per-worker", 64), ("gbps", 10)]:
    p.add_argument("--" + name, type=float, default=default)
p.add_argument("--machines", default="1,16,64,256")
a = p.parse_args()

c_c = a.coordinator_us / a.measured_chord
c_s = a.scheduler_us / a.measured_chord
c_w = a.worker_us / a.measured_chord / a.measured_nnz  # per non-zero of an updated column
bytes_per_us = a.gbps * 1e9 / 8 / 1e6
updates = a.updates_per_feature * a.features

print("| P | B | worker µs | coordinator µs | scheduler µs | coordinator egress µs "
      "| chord egress µs (as built / shares only) | round µs (as built / shares only) "
      "| updates/s (as built / shares only) | s to 1e-3 (as built / shares only) |")
print("|---|---|---|---|---|---|---|---|---|---|")
for P in (int(x) for x in a.machines.split(",")):
    B = int(a.measured_chord) if P == 1 else max(int(a.measured_chord), int(a.per_worker) * P)
    worker = c_w * a.nnz * B / P
    coordinator = c_c * B + 0.001 * P * a.rows  # bookkeeping + summing P dense changes, 1 ns/add
    scheduler = c_s * B
    coord_egress = (8 * a.rows * P + 24 * B) / bytes_per_us  # shared update to each, commit
    chord_all = 24 * B * P / bytes_per_us  # id, value, squared norm to every worker
    chord_share = 24 * B / bytes_per_us
    path = max(scheduler, worker + coordinator) + a.hops * a.latency_us + coord_egress
    t_all, t_share = path + chord_all, path + chord_share
    u_all, u_share = B / t_all * 1e6, B / t_share * 1e6
    print(f"| {P} | {B:,} | {worker:,.0f} | {coordinator:,.0f} | {scheduler:,.0f} | {coord_egress:,.0f} "
          f"| {chord_all:,.0f} / {chord_share:,.0f} | {t_all:,.0f} / {t_share:,.0f} "
          f"| {u_all / 1e6:.2g} M / {u_share / 1e6:.2g} M | {updates / u_all:.2g} / {updates / u_share:.2g} |")
