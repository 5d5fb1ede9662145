"""The figures of deploy/bench-recovery.sh.

    python3 -m bench.recovery field SUMMARY_JSON KEY
        one field of a summary.json
    python3 -m bench.recovery busy-worker < `strads status --json`
        "PID SECONDS": a worker busy in a job, and the running job's time
    python3 -m bench.recovery report KILLED_SUMMARY REFERENCE_SUMMARY KILLED_AT
        the recovery of a job whose worker was killed KILLED_AT seconds into it, against an
        uninterrupted run of the same job
"""
import json
import sys

from bench import trace


def field(path: str, key: str) -> None:
    print(trace.read_summary(path)[key])


def busy_worker() -> None:
    d = json.load(sys.stdin)
    pid = next(m["pid"] for m in d["members"] if m["role"] == "worker" and m["busy"])
    print(pid, next(j["seconds"] for j in d["jobs"] if j["state"] == "RUNNING"))


def report(killed_path: str, ref_path: str, killed_at: str) -> None:
    d, ref = trace.read_summary(killed_path), trace.read_summary(ref_path)
    killed = float(killed_at)
    print(f"killed at {killed:.2f} s (job time)")
    for r in d["recoveries"]:
        print(f"cause: {r['cause']}")
        print(f"detected {r['at_seconds'] - killed:.2f} s after the kill")
        print(f"lost at {r['at_seconds']:.2f} s (job time), restarted at {r['restarted_at_seconds']:.2f} s: "
              f"{r['restarted_at_seconds'] - r['at_seconds']:.2f} s to restart; resumed from update "
              f"{r['resumed_from']}, work redone {r['work_redone']} updates")
    print(f"total {d['seconds']:.2f} s against {ref['seconds']:.2f} s uninterrupted (run 1, no checkpoints); objective "
          f"{d['objective']!r} against {ref['objective']!r} (relative difference "
          f"{abs(d['objective'] - ref['objective']) / abs(ref['objective']):.1e}); state {d['state']}, "
          f"{d['workers']} workers at the end")


def main(argv):
    if argv[:1] == ["field"] and len(argv) == 3:
        field(argv[1], argv[2])
    elif argv == ["busy-worker"]:
        busy_worker()
    elif argv[:1] == ["report"] and len(argv) == 4:
        report(*argv[1:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
