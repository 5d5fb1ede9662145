"""The table of deploy/ab-jobs.sh: per build, medians over its jobs.

    python3 -m bench.ab_jobs DIR FSTAR

DIR holds one output directory per job, SIDE-CLUSTER-JOB (side base or new), each with trace.csv
and summary.json. Prints, per side, the medians of: seconds to 1e-3 / 1e-6 / 1e-9 of F*
(bench.epsilon; nan: not reached), rounds, checks, wall µs a round between round 2 and the last
row before the final check, the coordinator's wait for chords a round (summary.json's waits), and
each job's time to 1e-3.
"""
import glob
import math
import os
import sys

from bench import epsilon, stats, trace


def job_figures(d: str, fstar: float) -> list:
    points, summary = trace.run_dir(d)
    start = epsilon.engine_start(points)
    to = []
    for eps in (1e-3, 1e-6, 1e-9):
        hit = epsilon.time_to_eps(points, fstar, eps, start)
        to.append(hit.seconds if hit else math.nan)
    later = [p for p in points if p.round >= 2]
    us_round = math.nan
    if len(later) >= 3 and later[-2].round > later[0].round:
        us_round = 1e6 * (later[-2].seconds - later[0].seconds) / (later[-2].round - later[0].round)
    rounds = max(1, summary["rounds"])
    waits = summary.get("waits") or {}
    chord_us = 1e6 * waits.get("chord_s", math.nan) / rounds
    return to + [summary["rounds"], summary["engine"]["checks"], us_round, chord_us]


def main(argv):
    out, fstar = argv[0], float(argv[1])
    sides = {}
    for d in sorted(glob.glob(os.path.join(out, "*-*-*"))):
        if not os.path.isdir(d) or not os.path.exists(os.path.join(d, "trace.csv")):
            continue
        sides.setdefault(os.path.basename(d).split("-")[0], []).append(job_figures(d, fstar))

    def med(xs):
        return stats.median(xs, empty=math.nan)

    for side in ("base", "new"):
        v = sides.get(side, [])
        if not v:
            print(f"{side}: no job finished")
            continue
        c = list(zip(*v))
        print(f"{side}: {len(v)} jobs; median s to 1e-3 / 1e-6 / 1e-9: {med(c[0]):.4f} / {med(c[1]):.4f}"
              f" / {med(c[2]):.4f}; rounds {med(c[3]):.0f}, checks {med(c[4]):.0f}; µs a round"
              f" {med(c[5]):.0f}; chord wait µs a round {med(c[6]):.0f}; s to 1e-3 each: "
              + " ".join(f"{x:.3f}" for x in sorted(c[0])))


if __name__ == "__main__":
    main(sys.argv[1:])
