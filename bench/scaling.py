"""The scaling harness of issue 44: one problem on loopback clusters of S schedulers x P workers.

    python3 -m bench.scaling --data FILE --lambda L --fstar F [--name NAME] [--workers 1,2,4,8]
        [--schedulers 1] [--schedules dynamic,random] [--seeds 1] [--app lasso]
        [--max-seconds 60] [--max-updates 0] [--tolerance 1e-9] [--trace-every 0.00001]
        [--flags "MORE JOB FLAGS"] [--bin-dir build/bin] [--out results/scaling/NAME]
        [--lock /tmp/strads-cpu.lock]

For every S and P a fresh cluster is started (`strads cluster start`, hostfile
`127.0.0.1 coordinator scheduler=S worker=P`); on it, per schedule, one load-only job
(--max-updates 1: the workers load their shares, the first check, one round, the last check)
and then one job per seed, each submitted with --wait while this process holds the shared CPU
lock (flock(2) on --lock, the lock `flock /tmp/strads-cpu.lock` takes). Around each job the
harness reads utime + stime of every daemon from /proc/PID/stat (the pid files in the cluster's
run dir; a pid whose start time differs from its file's is refused), so each role's CPU seconds
are the job's own, and the traffic every daemon's transport counted (`strads status --json`:
each member's as of its last heartbeat, read once every member has beaten since the job ended, and
the coordinator's own; common/traffic_counter.h).

Per job it reports (bench/epsilon.py defines "within eps of F*"): updates and rounds to 1e-3 and
1e-6 of F*, and their ratio to the same schedule's P = 1 (the parallel efficiency of the
schedule, in updates: a round is synchronous, so these figures do not depend on how many cores
run the workers); summary.json's mean step length and damped rounds (rounds whose combined step
the line search shortened); CPU seconds by role (coordinator, schedulers, workers: sums over the
role's processes) of the job and of the load-only job, and CPU microseconds a round by role,
(job - load-only) / rounds; bytes and messages a round on each kind of link (coordinator-worker,
coordinator-scheduler, scheduler-worker, worker-worker: both directions, each message counted by
its sender), (job - load-only) / rounds; wall seconds to 1e-3 and 1e-6 from the first trace row.
Wall time
means something only while every process has a core: on a 2-core machine, P <= 2 (and even then
the coordinator and schedulers share the cores with the workers).

The updates to eps are those of the first trace row within eps; --trace-every 0.00001 writes a
row after about every commit, so they are exact to a round or two. Checks are paced by time
(--check-every 0) and a check resets priorities, so two runs of one seed differ (by up to about
10 % on the gene problem).

Writes OUT/scaling.csv (one line a job), OUT/table.md (the table as printed) and each job's
output directory under OUT/jobs/.
"""
import argparse
import csv
import fcntl
import json
import os
import shlex
import socket
import subprocess
import sys
import tempfile
import time
from typing import Dict, List, Optional

from bench import epsilon, markdown, stats, trace

ROLES = ("coordinator", "scheduler", "worker")
CLK_TCK = os.sysconf("SC_CLK_TCK")


def read_pids(run_dir: str) -> Dict[str, List[tuple]]:
    """{role: [(pid, start ticks)]} from the cluster's pid files (PID, then start=TICKS)."""
    pids = {r: [] for r in ROLES}
    pid_dir = os.path.join(run_dir, "pids")
    for name in sorted(os.listdir(pid_dir)):
        role = name.split("-", 1)[0]
        if role not in pids:
            continue
        with open(os.path.join(pid_dir, name)) as f:
            lines = f.read().split()
        start = next((int(w[6:]) for w in lines if w.startswith("start=")), None)
        pids[role].append((int(lines[0]), start))
    return pids


def proc_cpu(pid: int, start: Optional[int]) -> float:
    """utime + stime of a process in seconds (every thread). Raises if the pid is not the
    daemon that wrote it (a different start time) or is gone."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    # fields[0] is the state, field 3 of proc(5): utime is field 14, stime 15, starttime 22.
    if start is not None and int(fields[19]) != start:
        raise RuntimeError(f"pid {pid} is no longer the daemon of its pid file")
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def role_cpu(pids: Dict[str, List[tuple]]) -> Dict[str, float]:
    return {r: sum(proc_cpu(pid, start) for pid, start in pids[r]) for r in ROLES}


LINKS = ("coordinator-worker", "coordinator-scheduler", "scheduler-worker", "worker-worker")


def link_of(role: str, peer: str) -> Optional[str]:
    """The kind of link between a node of `role` and a peer of `peer` (None: a client's)."""
    key = "-".join(sorted((role, peer)))
    return key if key in LINKS else None


def traffic_totals(status: dict) -> Dict[str, Dict[str, int]]:
    """{link: {"bytes", "messages"}} from `strads status --json`: what every node sent over each
    kind of link so far (so each message counts once, by its sender), the coordinator's own
    (coordinator_traffic) and every member's as of its last heartbeat."""
    nodes = [("coordinator", status.get("coordinator_traffic", {}))]
    nodes += [(m["role"], m.get("traffic", {})) for m in status["members"]]
    out = {link: {"bytes": 0, "messages": 0} for link in LINKS}
    for role, traffic in nodes:
        for peer, t in traffic.items():
            link = link_of(role, peer)
            if link:
                out[link]["bytes"] += t["bytes_sent"]
                out[link]["messages"] += t["messages_sent"]
    return out


class Cluster:
    """A loopback cluster of S schedulers and P workers in a temporary run dir."""

    def __init__(self, bin_dir: str, schedulers: int, workers: int):
        self.bin_dir = bin_dir
        self.run_dir = tempfile.mkdtemp(prefix="strads-scaling.")
        with open(os.path.join(self.run_dir, "hosts"), "w") as f:
            f.write(f"127.0.0.1 coordinator scheduler={schedulers} worker={workers}\n")
        out = subprocess.run(
            [os.path.join(bin_dir, "strads"), "cluster", "start", "--hostfile",
             os.path.join(self.run_dir, "hosts"), "--run-dir", self.run_dir, "--port", "0",
             "--bin-dir", bin_dir, "--log-level", "warn"], capture_output=True, text=True)
        if out.returncode != 0:
            raise RuntimeError(f"cluster {schedulers}x{workers} did not start:\n{out.stderr}")
        self.endpoint = next(line.split("=", 1)[1] for line in out.stdout.splitlines()
                             if line.startswith("export STRADS_COORDINATOR="))
        self.pids = read_pids(self.run_dir)

    def traffic(self, since: float) -> Dict[str, Dict[str, int]]:
        """traffic_totals once every member's last heartbeat (which carries its counts) is later
        than `since` (time.monotonic()), or after 5 s."""
        env = dict(os.environ, STRADS_COORDINATOR=self.endpoint)
        deadline = time.monotonic() + 5
        while True:
            out = subprocess.run([os.path.join(self.bin_dir, "strads"), "status", "--json"],
                                 env=env, capture_output=True, text=True, check=True)
            status = json.loads(out.stdout)
            waited = time.monotonic() - since
            if (all(m["heartbeat_age_s"] < waited for m in status["members"]) or
                    time.monotonic() > deadline):
                return traffic_totals(status)
            time.sleep(0.1)

    def stop(self) -> None:
        subprocess.run([os.path.join(self.bin_dir, "strads"), "cluster", "stop", "--run-dir",
                        self.run_dir, "--bin-dir", self.bin_dir], capture_output=True)


def run_job(cluster: Cluster, args, schedule: str, seed: int, out_dir: str,
            max_updates: int) -> dict:
    """Submits one job under the CPU lock; its CPU seconds by role and the submit's exit code."""
    cmd = [os.path.join(args.bin_dir, "strads"), "submit", args.app, "--data", args.data,
           "--lambda", args.lam, "--schedule", schedule, "--seed", str(seed),
           "--tolerance", str(args.tolerance), "--trace-every", str(args.trace_every),
           "--max-seconds", str(args.max_seconds), "--max-updates", str(max_updates),
           *shlex.split(args.flags), "--wait", "--quiet", "--output", out_dir]
    env = dict(os.environ, STRADS_COORDINATOR=cluster.endpoint)
    with open(args.lock, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        sent_before = cluster.traffic(time.monotonic())
        before = role_cpu(cluster.pids)
        t = time.perf_counter()
        with open(out_dir + ".log", "w") as log:
            rc = subprocess.run(cmd, env=env, stdout=log, stderr=subprocess.STDOUT).returncode
        wall = time.perf_counter() - t
        after = role_cpu(cluster.pids)
        sent_after = cluster.traffic(time.monotonic())
    traffic = {link: {k: sent_after[link][k] - sent_before[link][k] for k in ("bytes", "messages")}
               for link in LINKS}
    return {"rc": rc, "submit_s": wall, "cpu": {r: after[r] - before[r] for r in ROLES},
            "traffic": traffic}


def job_row(d: str, fstar: float) -> dict:
    """The figures of one finished job's output directory."""
    points, summary = trace.run_dir(d)
    start = epsilon.engine_start(points)
    row = {}
    for name, eps in (("1e-3", 1e-3), ("1e-6", 1e-6)):
        hit = epsilon.time_to_eps(points, fstar, eps, start)
        row[f"updates_{name}"] = hit.updates if hit else None
        row[f"rounds_{name}"] = hit.round if hit else None
        row[f"wall_s_{name}"] = hit.seconds if hit else None
    row.update(rounds=summary["rounds"], updates=summary["updates"],
               mean_step=summary.get("mean_step_length"), damped=summary.get("damped_rounds"),
               final_gap=epsilon.relative_gap(summary["objective"], fstar),
               converged=summary["converged"], seconds=summary["seconds"],
               solve_s=summary["seconds"] - start)
    return row


def ints(text: str) -> List[int]:
    try:
        values = [int(v) for v in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a comma list of integers, got {text!r}")
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"expected positive integers, got {text!r}")
    return values


def parse_args(argv):
    ap = argparse.ArgumentParser(prog="python3 -m bench.scaling",
                                 description=__doc__.split("\n")[0])
    ap.add_argument("--data", required=True, help="the problem (libsvm)")
    ap.add_argument("--lambda", dest="lam", required=True, help="lambda of every job")
    ap.add_argument("--fstar", type=float, required=True, help="the best objective known")
    ap.add_argument("--name", help="label of the problem (default: the data file's base name)")
    ap.add_argument("--app", default="lasso")
    ap.add_argument("--workers", type=ints, default=[1, 2, 4, 8], help="P values (comma list)")
    ap.add_argument("--schedulers", type=ints, default=[1], help="S values (comma list)")
    ap.add_argument("--schedules", default="dynamic,random", help="comma list")
    ap.add_argument("--seeds", type=ints, default=[1], help="one job per seed (comma list)")
    ap.add_argument("--max-seconds", type=float, default=60, help="bound of each job")
    ap.add_argument("--max-updates", type=int, default=0, help="bound of each job (0: none)")
    ap.add_argument("--tolerance", type=float, default=1e-9)
    ap.add_argument("--trace-every", type=float, default=0.00001)
    ap.add_argument("--flags", default="", help="more flags for every job")
    ap.add_argument("--bin-dir", default="build/bin")
    ap.add_argument("--out", help="results directory (default results/scaling/NAME)")
    ap.add_argument("--lock", default="/tmp/strads-cpu.lock")
    args = ap.parse_args(argv)
    args.data = os.path.abspath(args.data)
    if not os.access(args.data, os.R_OK):
        ap.error(f"{args.data}: cannot read")
    try:
        float(args.lam)
    except ValueError:
        ap.error(f"--lambda: not a number: {args.lam!r}")
    args.schedules = args.schedules.split(",")
    for exe in ("strads", "strads-coordinator", "strads-scheduler", "strads-worker"):
        if not os.access(os.path.join(args.bin_dir, exe), os.X_OK):
            ap.error(f"{args.bin_dir}/{exe}: not found or not executable (--bin-dir)")
    args.bin_dir = os.path.abspath(args.bin_dir)
    args.name = args.name or os.path.splitext(os.path.basename(args.data))[0]
    args.out = args.out or os.path.join("results", "scaling", args.name)
    return args


COLUMNS = ["name", "schedulers", "workers", "schedule", "seed", "rc", "updates_1e-3", "rounds_1e-3",
           "updates_1e-6", "rounds_1e-6", "eff_1e-3", "eff_1e-6", "mean_step", "damped", "rounds",
           "updates", "final_gap", "converged", "wall_s_1e-3", "wall_s_1e-6", "solve_s",
           "cpu_s_coordinator", "cpu_s_scheduler", "cpu_s_worker", "load_cpu_s_coordinator",
           "load_cpu_s_scheduler", "load_cpu_s_worker", "us_round_coordinator",
           "us_round_scheduler", "us_round_worker"] + [
           f"{k}_round_{link}" for link in LINKS for k in ("bytes", "messages")]


def main(argv):
    args = parse_args(argv)
    jobs_dir = os.path.join(args.out, "jobs")
    os.makedirs(jobs_dir, exist_ok=True)
    rows = []
    for s in args.schedulers:
        for p in args.workers:
            cluster = Cluster(args.bin_dir, s, p)
            try:
                for schedule in args.schedules:
                    tag = f"s{s}-p{p}-{schedule}"
                    print(f"bench.scaling: {args.name} {tag}", file=sys.stderr)
                    load = run_job(cluster, args, schedule, 1,
                                   os.path.join(jobs_dir, tag + "-load"), 1)
                    if load["rc"] != 0:
                        raise RuntimeError(f"{tag}: the load-only job failed (its log: "
                                           f"{jobs_dir}/{tag}-load.log)")
                    for seed in args.seeds:
                        d = os.path.join(jobs_dir, f"{tag}-seed{seed}")
                        job = run_job(cluster, args, schedule, seed, d, args.max_updates)
                        row = {"name": args.name, "schedulers": s, "workers": p,
                               "schedule": schedule, "seed": seed, "rc": job["rc"]}
                        if os.path.exists(os.path.join(d, "summary.json")):
                            row.update(job_row(d, args.fstar))
                            for r in ROLES:
                                row[f"cpu_s_{r}"] = job["cpu"][r]
                                row[f"load_cpu_s_{r}"] = load["cpu"][r]
                                row[f"us_round_{r}"] = (1e6 * (job["cpu"][r] - load["cpu"][r]) /
                                                        max(1, row["rounds"]))
                            for link in LINKS:
                                for k in ("bytes", "messages"):
                                    row[f"{k}_round_{link}"] = (
                                        (job["traffic"][link][k] - load["traffic"][link][k]) /
                                        max(1, row["rounds"]))
                        rows.append(row)
            finally:
                cluster.stop()
    for row in rows:  # updates to eps over the same schedule's at P = 1 (1 = no update wasted)
        for eps in ("1e-3", "1e-6"):
            base = next((b.get(f"updates_{eps}") for b in rows if b["workers"] == 1 and
                         b["schedulers"] == row["schedulers"] and b["schedule"] == row["schedule"]
                         and b["seed"] == row["seed"]), None)
            mine = row.get(f"updates_{eps}")
            row[f"eff_{eps}"] = mine / base if mine and base else None

    with open(os.path.join(args.out, "scaling.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    text = render(args, rows)
    with open(os.path.join(args.out, "table.md"), "w") as f:
        f.write(text + "\n")
    print(text)


def render(args, rows) -> str:
    def n(spec):
        return lambda x: markdown.number(x, spec)

    def kbytes(x):
        return markdown.number(None if x is None else x / 1000, ".1f")

    def wall(row, key):
        x = row.get(key)
        return markdown.number(x, ".3f") + ("" if x is None or row["workers"] <= 2 else " †")

    header = ["S x P", "schedule", "updates to 1e-3", "x P=1", "rounds to 1e-3", "updates to 1e-6",
              "x P=1", "rounds to 1e-6", "mean step", "damped rounds", "coord. µs/round",
              "sched. µs/round", "workers µs/round", "coord.↔workers msgs/round",
              "kB/round coord.↔workers / workers↔workers", "wall s to 1e-3", "wall s to 1e-6",
              "end"]
    body = []
    for r in rows:
        if "rounds" not in r:
            body.append([f"{r['schedulers']} x {r['workers']}", r["schedule"]] +
                        ["-"] * (len(header) - 3) + [f"failed (rc {r['rc']})"])
            continue
        end = "converged" if r["converged"] else f"stopped, gap {r['final_gap']:.1e}"
        body.append([f"{r['schedulers']} x {r['workers']}", r["schedule"],
                     n(",")(r["updates_1e-3"]), n(".2f")(r["eff_1e-3"]), n(",")(r["rounds_1e-3"]),
                     n(",")(r["updates_1e-6"]), n(".2f")(r["eff_1e-6"]), n(",")(r["rounds_1e-6"]),
                     n(".3f")(r["mean_step"]), f"{r['damped']:,} of {r['rounds']:,}",
                     n(".0f")(r["us_round_coordinator"]), n(".0f")(r["us_round_scheduler"]),
                     n(".0f")(r["us_round_worker"]),
                     n(".1f")(r.get("messages_round_coordinator-worker")),
                     kbytes(r.get("bytes_round_coordinator-worker")) + " / " +
                     kbytes(r.get("bytes_round_worker-worker")), wall(r, "wall_s_1e-3"),
                     wall(r, "wall_s_1e-6"), end])
    medians = render_medians(rows)
    lines = [f"Problem `{args.name}` ({args.data}): {args.app}, lambda = {args.lam}, "
             f"F* = {args.fstar!r}; every job: --tolerance {args.tolerance} --max-seconds "
             f"{args.max_seconds:g} --max-updates {args.max_updates} --trace-every "
             f"{args.trace_every:g} {args.flags}".rstrip() + f"; host {socket.gethostname()}, "
             f"{os.cpu_count()} CPUs.", "",
             markdown.table(header, body, [str] * len(header)), ""] + medians + [
             "x P=1: updates to the target over the same schedule's at P = 1 (1.00 = no update "
             "wasted by parallelism). Updates and rounds do not depend on the machine (a round is "
             "synchronous; checks are paced by time, so repeated runs of a seed differ by up to "
             "about 10 %). µs/round: CPU (utime + stime from /proc) of the role's processes, "
             "summed, over the job minus a load-only job (--max-updates 1), per round; msgs and "
             "kB/round: what the daemons' transports counted on that kind of link, both ways, "
             "over the same difference (a kB is 1,000 bytes). † wall "
             "time with more processes than cores: not meaningful (wall time is meaningful only "
             "at P <= 2 on a 2-core machine)."]
    return "\n".join(lines)


def render_medians(rows) -> List[str]:
    """With several seeds: per configuration, medians over its jobs (and the range of updates);
    x P=1 is then the ratio of the medians."""
    groups = {}
    for r in rows:
        if "rounds" in r:
            groups.setdefault((r["schedulers"], r["workers"], r["schedule"]), []).append(r)
    if all(len(g) < 2 for g in groups.values()):
        return []

    def med(g, key):
        return stats.median([r.get(key) for r in g])

    def kb(x):
        return None if x is None else x / 1000

    def spread(g, key):
        xs = stats.present([r.get(key) for r in g])
        m = med(g, key)
        if m is None:
            return "n/r"
        missed = len(g) - len(xs)
        return (f"{m:,.0f} ({min(xs):,}-{max(xs):,})" + (f", {missed} n/r" if missed else ""))

    body = []
    for (s, p, schedule), g in groups.items():
        base = groups.get((s, 1, schedule))
        eff = [stats.ratio(med(g, f"updates_{e}"), med(base, f"updates_{e}") if base else None)
               for e in ("1e-3", "1e-6")]
        body.append([f"{s} x {p}", schedule, str(len(g)), spread(g, "updates_1e-3"),
                     markdown.number(eff[0], ".2f"), spread(g, "updates_1e-6"),
                     markdown.number(eff[1], ".2f"), markdown.number(med(g, "mean_step"), ".3f"),
                     markdown.number(med(g, "us_round_coordinator"), ".0f"),
                     markdown.number(med(g, "us_round_scheduler"), ".0f"),
                     markdown.number(med(g, "us_round_worker"), ".0f"),
                     markdown.number(med(g, "messages_round_coordinator-worker"), ".1f"),
                     markdown.number(kb(med(g, "bytes_round_coordinator-worker")), ".1f"),
                     markdown.number(kb(med(g, "bytes_round_worker-worker")), ".1f")])
    header = ["S x P", "schedule", "jobs", "updates to 1e-3: median (range)", "x P=1",
              "updates to 1e-6: median (range)", "x P=1", "mean step", "coord. µs/round",
              "sched. µs/round", "workers µs/round", "coord.↔workers msgs/round",
              "coord.↔workers kB/round", "workers↔workers kB/round"]
    return ["Medians over the seeds:", "", markdown.table(header, body), ""]


if __name__ == "__main__":
    main(sys.argv[1:])
