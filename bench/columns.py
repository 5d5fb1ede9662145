"""One row of deploy/study-columns.sh's table.

    python3 -m bench.columns OUT POLICY B FSTAR

OUT is a run's output directory (trace.csv, summary.json). Prints the markdown row: B, policy,
seconds to 1e-3 of F* (bench.epsilon; n/r: not reached), the updates then, and the rounds, mean
step length and damped rounds of the whole run.
"""
import os
import sys

from bench import epsilon, trace


def main(argv):
    out, policy, b, fstar = argv[0], argv[1], argv[2], float(argv[3])
    points, summary = trace.run_dir(out)
    hit = epsilon.time_to_eps(points, fstar, 1e-3, epsilon.engine_start(points))
    print("| %s | %s | %s | %s | %s | %.4f | %s |" % (
        b, policy, "%.3f" % hit.seconds if hit else "n/r",
        hit.updates if hit else "-", summary.get("rounds"),
        summary.get("mean_step_length", 1.0), summary.get("damped_rounds")))


if __name__ == "__main__":
    main(sys.argv[1:])
