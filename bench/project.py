"""The cost-model projection (docs/performance.md, "Projection to 16–256 machines"): a round's
time, check time, updates/s and time to 1e-3 for P machines (one worker each) and S schedulers.

    python3 -m bench.project [--machines 1,16,64,256 --schedulers 1 ...]

Defaults: the constants measured on the paper's shape (450 x 1,000,000, 45 non-zeros a column)
with a 1 x 2 loopback cluster (docs/performance.md, "The cost model"; the scheduler's was since
measured at 0.41, pass --scheduler-us-per-param 0.41). Every constant is an option:

  --coordinator-us-per-param  coordinator CPU per chord parameter a round (commit, line search)
  --scheduler-us-per-param    scheduler CPU per chord parameter a round (draw, commits, send)
  --worker-us-per-update      worker CPU per updated parameter (its share, inner passes included)
  --hops --latency-us         one-way hops on a round's path, and the network's one-way latency
  --check-ns-per-nonzero      a worker's check: its gradient, per non-zero it holds
  --check-ns-per-param        a scheduler's check: slices summed, violations, priorities, per
                              parameter it owns
  --updates-per-feature       updates to 1e-3 (measured with 2 workers and paced checks)
  --per-worker --min-chord    the chord: B = max(min-chord, per-worker * P)

The time to 1e-3 follows the check pacer (coordinator/check_pacer.h): the rounds between two
checks take as long as a check, so the checks take as long as the rounds, and at least one check
is paid: T = R * T_round + max(R * T_round, T_check), R = updates / B. A row where one check
costs more than all the rounds is marked: there the pacer would check less often than in the
measurement the updates come from, and the updates to 1e-3 are not known.
"""
import argparse

p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
for name, default in [("coordinator-us-per-param", 0.146), ("scheduler-us-per-param", 0.45),
                      ("worker-us-per-update", 0.217), ("hops", 3.6), ("latency-us", 50),
                      ("check-ns-per-nonzero", 0.9), ("check-ns-per-param", 5.6),
                      ("rows", 450), ("features", 1_000_000), ("nnz", 45),
                      ("updates-per-feature", 0.217), ("per-worker", 64), ("min-chord", 2048),
                      ("gbps", 10)]:
    p.add_argument("--" + name, type=float, default=default)
p.add_argument("--machines", default="1,16,64,256")
p.add_argument("--schedulers", default="1", help="S, or a list the same length as --machines")
a = p.parse_args()

machines = [int(x) for x in a.machines.split(",")]
schedulers = [int(x) for x in a.schedulers.split(",")]
if len(schedulers) == 1:
    schedulers *= len(machines)
if len(schedulers) != len(machines):
    p.error("--schedulers: one value, or one per machine count")

bytes_per_us = a.gbps * 1e9 / 8 / 1e6
updates = a.updates_per_feature * a.features
nonzeros = a.nnz * a.features

print("| P | S | B | worker µs | coordinator µs | scheduler µs (per chord / per round) "
      "| round µs | check ms (workers / schedulers / all) | rounds to 1e-3 | updates/s in rounds "
      "| s to 1e-3 |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for P, S in zip(machines, schedulers):
    B = max(int(a.min_chord), int(a.per_worker) * P)
    worker = a.worker_us_per_update * B / P
    # bookkeeping, and summing P dense changes of the shared vector at 1 ns an add
    coordinator = a.coordinator_us_per_param * B + 0.001 * P * a.rows
    chord = a.scheduler_us_per_param * B  # one scheduler's chord; S take turns
    egress = (8 * a.rows * P + 24 * B) / bytes_per_us + 24 * B / bytes_per_us  # updates, commit, shares
    t_round = max(chord / S, worker + coordinator) + a.hops * a.latency_us + egress
    check_workers = a.check_ns_per_nonzero * nonzeros / P / 1e3
    owned = a.features / S
    check_schedulers = a.check_ns_per_param * owned / 1e3 + 8 * owned / bytes_per_us
    t_check = check_workers + check_schedulers + 3 * a.latency_us
    rounds = updates / B
    in_rounds = rounds * t_round
    total = in_rounds + max(in_rounds, t_check)
    mark = " (one check > all rounds)" if t_check > in_rounds else ""
    print(f"| {P} | {S} | {B:,} | {worker:,.0f} | {coordinator:,.0f} | {chord:,.0f} / {chord / S:,.0f} "
          f"| {t_round:,.0f} | {check_workers / 1e3:.1f} / {check_schedulers / 1e3:.1f} / "
          f"{t_check / 1e3:.1f} | {rounds:,.0f} | {B / t_round:.2g} M | {total / 1e6:.2g}{mark} |")
