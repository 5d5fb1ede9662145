"""The figures of deploy/bench-checkpoint.sh.

    python3 -m bench.checkpoint figure JOB SUMMARY_JSON
        lda: the solve seconds; lasso: the updates per second
    python3 -m bench.checkpoint overhead JOB "FIGURES WITHOUT" "FIGURES WITH"
        the ratio of the medians of the runs without checkpoints and with them every 30 s
"""
import statistics
import sys

from bench import trace


def figure(job: str, summary_path: str) -> None:
    s = trace.read_summary(summary_path)
    print("%.2f" % (s["seconds"] if job == "lda" else s["updates"] / s["seconds"]))


def overhead(job: str, without: str, with_: str) -> None:
    off = [float(x) for x in without.split()]
    on = [float(x) for x in with_.split()]
    m0, m30 = statistics.median(off), statistics.median(on)
    # Overhead: extra time (lda), or lost throughput (lasso: fewer updates per second).
    cost = m30 / m0 - 1 if job == "lda" else m0 / m30 - 1
    unit = "s" if job == "lda" else "updates/s"
    print(f"# {job}: median {m30:.2f} {unit} with checkpoints every 30 s against {m0:.2f} without: "
          f"overhead {100 * cost:+.1f} % (runs: {off} / {on})")


def main(argv):
    if argv[:1] == ["figure"] and len(argv) == 3:
        figure(argv[1], argv[2])
    elif argv[:1] == ["overhead"] and len(argv) == 4:
        overhead(argv[1], argv[2], argv[3])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
