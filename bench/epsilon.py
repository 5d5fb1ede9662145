"""The one definition of "time to within eps of F*" used by every benchmark of the repository.

Relative gap. For a run's objective F (minimised) and the best objective known F*,

    gap(F) = (F - F*) / |F*|

F* is the smallest exact objective seen for the problem: the sequential reference's trace (exact
after every sweep), every run's final objective (summary.json: exact, computed at the last full
check) and, where a table compares other tools, the objective of every tool's returned weights.
F* must not be zero (then the relative gap is undefined); a missing or NaN objective is never
within eps.

Time to eps. The first row of a trace whose gap is <= eps; its time is measured from `start`:

  - the sequential references (strads-lasso-reference, ...) count from the start of the solve,
    loading excluded: start = 0;
  - the engine's trace.csv counts from job start, which includes every worker loading its share;
    its first row is written at the first check (at the initial point, right after loading), so
    start = the first row's seconds, and the time is the solve time.

Updates (and rounds, where the trace has them) are those of that row. A trace row between checks
is exact in the column layout (the coordinator's replica), so a trace written every 2 ms
(--trace-every 0.002) does not round the time up to the next check.
"""
import math
from typing import Iterable, NamedTuple, Optional, Sequence


class Hit(NamedTuple):
    """The first trace row within eps of F*: its time from the start, updates and round."""

    seconds: float
    updates: Optional[int]
    round: Optional[int]


def relative_gap(objective: float, fstar: float) -> float:
    """(F - F*) / |F*|; NaN for a missing (None), NaN or infinite objective. Raises ValueError
    for F* = 0 or a non-finite F*."""
    if fstar is None or fstar == 0 or not math.isfinite(fstar):
        raise ValueError(f"F* must be finite and non-zero, got {fstar!r}")
    if objective is None or not math.isfinite(objective):
        return math.nan
    return (objective - fstar) / abs(fstar)


def within(objective: float, fstar: float, eps: float) -> bool:
    """True when the objective's relative gap to F* is at most eps (never for NaN)."""
    return relative_gap(objective, fstar) <= eps


def time_to_eps(points: Iterable, fstar: float, eps: float, start: float = 0.0) -> Optional[Hit]:
    """The first point within eps of F*, or None if no point is.

    points: trace rows in time order with .seconds and .objective (bench.trace.Point), and
    optionally .updates and .round. start: the time origin (see the module's note).
    """
    for p in points:
        if within(p.objective, fstar, eps):
            return Hit(p.seconds - start, getattr(p, "updates", None), getattr(p, "round", None))
    return None


def best_objective(objectives: Iterable[float]) -> float:
    """F*: the least finite objective. Raises ValueError when there is none."""
    finite = [f for f in objectives if f is not None and math.isfinite(f)]
    if not finite:
        raise ValueError("no finite objective to take F* from")
    return min(finite)


def engine_start(points: Sequence) -> float:
    """The time origin of an engine trace: its first row's seconds (0 for an empty trace)."""
    return points[0].seconds if points else 0.0
