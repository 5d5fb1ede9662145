"""pytest configuration for scikit-learn's tests copied by run_sklearn_tests.py.

scikit-learn's own fixtures (global_dtype, global_random_seed, ...) come from its conftest.
Tests that name our classes only in their parametrisation keep only the instances whose
parameters hold one of them (the others test scikit-learn's own estimators). Every test listed
in expectations.py (patterns where only * is a wildcard) is marked there: an expected failure is
strict (it fails the run if it passes) and names the exceptions it fails with, so a test that
then fails on a number (AssertionError) still fails the run; in a run of every test, a list entry
that matches no test is an error too.
"""
import re

import pytest

from expectations import EXPECTED, REFUSED
from strads import Lasso, LinearSVC, LogisticRegression

pytest_plugins = ["sklearn.conftest"]

OURS = (Lasso, LogisticRegression, LinearSVC)


def _holds_ours(value):
    if isinstance(value, type):
        return issubclass(value, OURS)
    if isinstance(value, OURS):
        return True
    if isinstance(value, (list, tuple)):
        return any(_holds_ours(v) for v in value)
    return False


def _matches(pattern, nodeid):
    """``*`` matches any text; everything else, brackets included, only itself."""
    return re.fullmatch(".*".join(map(re.escape, pattern.split("*"))), nodeid) is not None


def pytest_configure(config):
    config.addinivalue_line("markers", "strads_params: names strads' classes only in its "
                            "parametrisation")


def pytest_collection_modifyitems(config, items):
    kept, deselected = [], []
    for item in items:
        if item.get_closest_marker("strads_params") is not None:
            params = getattr(getattr(item, "callspec", None), "params", {})
            if not any(_holds_ours(v) for v in params.values()):
                deselected.append(item)
                continue
        kept.append(item)
    if deselected:
        config.hook.pytest_deselected(items=deselected)
    items[:] = kept
    used = set()
    for item in items:
        for pattern, (kind, reason, *raises) in EXPECTED.items():
            if not _matches(pattern, item.nodeid):
                continue
            used.add(pattern)
            if kind == "skip":
                item.add_marker(pytest.mark.skip(reason=reason))
            else:
                item.add_marker(pytest.mark.xfail(strict=True, reason=reason,
                                                  raises=raises[0] if raises else REFUSED))
            break
    stale = sorted(set(EXPECTED) - used)
    whole_run = not config.option.keyword and all("::" not in arg for arg in config.args)
    if stale and whole_run:
        raise pytest.UsageError("expectations.py lists tests that were not collected: " +
                                ", ".join(stale))
