"""Medians that skip missing values, and ratios."""
import math
import statistics
from typing import Iterable, Optional


def present(xs: Iterable) -> list:
    """The values that are neither None nor NaN."""
    return [x for x in xs if x is not None and not (isinstance(x, float) and math.isnan(x))]


def median(xs: Iterable, empty=None):
    """The median of the present values, or `empty` when there is none."""
    xs = present(xs)
    return statistics.median(xs) if xs else empty


def ratio(x: Optional[float], base: Optional[float]) -> Optional[float]:
    """x / base, or None when either is missing or base is zero."""
    if x is None or not base:
        return None
    return x / base
