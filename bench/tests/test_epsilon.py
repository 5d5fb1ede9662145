"""The one definition of "time to within eps of F*" (bench/epsilon.py), and the trace reader it
is fed by.

    python3 -m pytest -q bench/tests
"""
import math

import pytest

from bench import epsilon, trace
from bench.trace import Point


def engine_trace():
    # An engine trace: the first row after loading (1.5 s), at the initial point.
    return [Point(1.5, 0, 0, 200.0), Point(1.7, 10, 640, 100.2), Point(1.9, 20, 1280, 100.01),
            Point(2.3, 30, 1920, 100.00005), Point(2.8, 40, 2560, 100.0)]


def test_relative_gap_is_the_difference_over_the_magnitude_of_fstar():
    assert epsilon.relative_gap(101.0, 100.0) == pytest.approx(0.01)
    assert epsilon.relative_gap(100.0, 100.0) == 0.0
    # A negative optimum (e.g. a log-likelihood's negation): still (F - F*) / |F*|, so a worse
    # objective has a positive gap.
    assert epsilon.relative_gap(-99.0, -100.0) == pytest.approx(0.01)


def test_relative_gap_rejects_a_zero_or_non_finite_fstar():
    for fstar in (0.0, math.nan, math.inf, None):
        with pytest.raises(ValueError):
            epsilon.relative_gap(1.0, fstar)


def test_a_missing_or_nan_objective_is_never_within_eps():
    for bad in (math.nan, None, math.inf):
        assert math.isnan(epsilon.relative_gap(bad, 100.0))
        assert not epsilon.within(bad, 100.0, 1e300)


def test_within_includes_the_boundary():
    assert epsilon.within(100.0 * (1 + 1e-3), 100.0, 1e-3 * (1 + 1e-12))
    assert not epsilon.within(100.2, 100.0, 1e-3)


def test_time_to_eps_is_the_first_row_within_eps_measured_from_start():
    pts = engine_trace()
    start = epsilon.engine_start(pts)
    assert start == 1.5
    hit = epsilon.time_to_eps(pts, 100.0, 1e-3, start)
    assert hit.seconds == pytest.approx(0.4)  # the row at 1.9 s (gap 1e-4), not the one at 1.7 s
    assert (hit.updates, hit.round) == (1280, 20)
    hit = epsilon.time_to_eps(pts, 100.0, 1e-6, start)
    assert hit.seconds == pytest.approx(0.8) and hit.updates == 1920
    assert epsilon.time_to_eps(pts, 100.0, 0.0, start).seconds == pytest.approx(1.3)


def test_time_to_eps_of_a_reference_trace_counts_from_zero():
    # The sequential reference's trace has no round column and starts at the solve's start.
    pts = [Point(0.1, None, 64, 150.0), Point(0.2, None, 128, 100.05)]
    hit = epsilon.time_to_eps(pts, 100.0, 1e-3)
    assert hit == epsilon.Hit(0.2, 128, None)


def test_time_to_eps_is_none_when_no_row_is_within_eps():
    assert epsilon.time_to_eps(engine_trace(), 99.0, 1e-6, 1.5) is None
    assert epsilon.time_to_eps([], 100.0, 1e-3) is None


def test_time_to_eps_skips_nan_rows():
    pts = [Point(0.0, 0, 0, math.nan), Point(0.5, 1, 10, 100.0)]
    assert epsilon.time_to_eps(pts, 100.0, 1e-3).seconds == 0.5


def test_fstar_is_the_least_finite_objective():
    assert epsilon.best_objective([3.0, math.nan, 2.5, None, math.inf, 2.75]) == 2.5
    with pytest.raises(ValueError):
        epsilon.best_objective([math.nan, None])


def test_engine_start_of_an_empty_trace_is_zero():
    assert epsilon.engine_start([]) == 0.0


def test_trace_read_takes_engine_and_reference_traces(tmp_path):
    engine = tmp_path / "engine.csv"
    engine.write_text("seconds,round,updates,objective,schedule,epoch\n"
                      "0.5,0,0,12.5,dynamic,0\n0.75,3,192,11.0,dynamic,0\n")
    reference = tmp_path / "reference.csv"
    reference.write_text("seconds,updates,objective\n0.01,100,12.0\n")
    assert trace.read(str(engine)) == [Point(0.5, 0, 0, 12.5), Point(0.75, 3, 192, 11.0)]
    assert trace.read(str(reference)) == [Point(0.01, None, 100, 12.0)]


def test_thin_keeps_the_header_first_and_last_rows(tmp_path):
    src, dst = tmp_path / "long.csv", tmp_path / "short.csv"
    src.write_text("seconds,objective\n" + "".join(f"{i},{1000 - i}\n" for i in range(5000)))
    trace.thin(str(src), str(dst), keep=100)
    lines = dst.read_text().splitlines()
    assert lines[0] == "seconds,objective"
    assert len(lines) - 1 == 100
    assert lines[1] == "0,1000" and lines[-1] == "4999,-3999"
    short = tmp_path / "short-src.csv"
    short.write_text("seconds,objective\n1,2\n")
    trace.thin(str(short), str(dst), keep=100)
    assert dst.read_text() == "seconds,objective\n1,2\n"
