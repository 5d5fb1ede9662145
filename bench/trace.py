"""Reading what a job wrote: trace.csv and summary.json.

The dynamic engine's trace.csv has `seconds,round,updates,objective,schedule,epoch`; the
sequential Lasso reference's `seconds,updates,objective` (one row a sweep). `read` keeps the
columns every benchmark uses as a Point; `read_rows` gives every column as text.
"""
import csv
import json
import os
from typing import List, NamedTuple, Optional


class Point(NamedTuple):
    """One trace row: seconds since the trace's origin, round (None in a reference's trace),
    updates and objective."""

    seconds: float
    round: Optional[int]
    updates: Optional[int]
    objective: float


def read_rows(path: str) -> List[dict]:
    """Every row of a CSV file as a dict of strings."""
    with open(path) as f:
        return list(csv.DictReader(f))


def read(path: str) -> List[Point]:
    """A trace.csv as Points, in file order."""

    def int_or_none(v):
        return None if v in (None, "") else int(v)

    return [Point(float(r["seconds"]), int_or_none(r.get("round")), int_or_none(r.get("updates")),
                  float(r["objective"])) for r in read_rows(path)]


def read_summary(path: str) -> dict:
    with open(path) as f:
        return json.load(f)


def run_dir(path: str):
    """(points, summary) of an output directory holding trace.csv and summary.json."""
    return read(os.path.join(path, "trace.csv")), read_summary(os.path.join(path, "summary.json"))


def thin(src: str, dst: str, keep: int = 2000) -> None:
    """Copies a CSV file keeping its header and at most `keep` rows: the first, the last and
    evenly spaced ones between."""
    with open(src) as f:
        lines = f.read().splitlines()
    head, rows = lines[0], lines[1:]
    if len(rows) > keep:
        step = len(rows) / (keep - 1)
        chosen = sorted({min(len(rows) - 1, round(i * step)) for i in range(keep)})
        rows = [rows[i] for i in chosen]
    with open(dst, "w") as f:
        f.write("\n".join([head] + rows) + "\n")
