#!/usr/bin/python3
"""Re-runs docs/reliability.md: every row of its tables that names a test, by that test.

    deploy/reliability-matrix.py [--build build] [--docs docs/reliability.md] [--check]

A table counts when its last column is "test". A row's tests are the backticked names in that
column that are a test binary of BUILD/test (with an optional Catch filter: `coordinator_test
"[limits]"`, or a second span `[hostile]`; a filter ending in "..." matches by prefix) or a CTest
test of BUILD (`cluster_full_disk_keeps_finished_job`); other spans (an errno, a command) are
prose. "same" / "the same" repeats the row above's tests; a row with none ("by hand", "—") is
listed as such. Each distinct test runs once.

Prints the matrix as a markdown table (case, tests, result, seconds) and exits 1 if a test
failed or a row names a test that does not exist. With --check nothing runs: every named test
must exist and every Catch filter must select at least one test case (CTest runs this, so the
document cannot name a test that was renamed or removed).
"""
import argparse
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split(" | ")]


def table_rows(text):
    """(case, test column) of each row of the tables whose last column is "test"."""
    rows, in_table = [], False
    for line in text.splitlines():
        if not line.startswith("|"):
            in_table = False
            continue
        columns = cells(line)
        if columns[0] == "case":
            in_table = columns[-1] == "test"
            continue
        if in_table and not set(line) <= set("|-: "):
            rows.append((columns[0], columns[-1]))
    return rows


class Tests:
    def __init__(self, build):
        self.build = build
        listed = subprocess.run(["ctest", "--test-dir", build, "-N"], capture_output=True,
                                text=True, check=True).stdout
        self.ctest_names = set(re.findall(r"Test +#\d+: (\S+)", listed))

    def binary(self, name):
        path = os.path.join(self.build, "test", name)
        return path if os.access(path, os.X_OK) else None

    def parse(self, column):
        """The tests a test column names: ("catch", binary, filter) or ("ctest", name)."""
        found = []
        for span in re.findall(r"`([^`]+)`", column):
            tag = re.fullmatch(r"\[[^\]]+\]", span)
            if tag and found and found[-1][0] == "catch" and not found[-1][2]:
                found[-1] = ("catch", found[-1][1], span)
                continue
            match = re.fullmatch(r'([A-Za-z0-9_]+)(?: "(.+)")?', span)
            if not match:
                continue
            name, spec = match.group(1), match.group(2) or ""
            if spec.endswith("..."):
                spec = spec[:-3].rstrip() + "*"
            if self.binary(name):
                found.append(("catch", name, spec))
            elif name in self.ctest_names:
                found.append(("ctest", name))
        return found

    def selects(self, test):
        """An error text if the test does not exist or its filter selects nothing, else None."""
        if test[0] == "ctest":
            return None
        listed = subprocess.run([self.binary(test[1]), "--list-test-names-only"] +
                                ([test[2]] if test[2] else []),
                                capture_output=True, text=True).stdout
        if not [line for line in listed.splitlines() if line.strip()]:
            return f"{test[1]}: the filter {test[2]!r} selects no test case"
        return None

    def run(self, test):
        if test[0] == "ctest":
            cmd = ["ctest", "--test-dir", self.build, "-R", f"^{re.escape(test[1])}$",
                   "--output-on-failure"]
        else:
            cmd = [self.binary(test[1])] + ([test[2]] if test[2] else [])
        start = time.monotonic()
        done = subprocess.run(cmd, capture_output=True, text=True)
        seconds = time.monotonic() - start
        ok = done.returncode == 0
        if test[0] == "ctest" and "No tests were found" in done.stdout + done.stderr:
            ok = False
        if not ok:
            sys.stderr.write(f"--- {' '.join(cmd)} failed:\n{done.stdout[-3000:]}"
                             f"{done.stderr[-3000:]}\n")
        return ok, seconds


def label(test):
    if test[0] == "ctest":
        return f"`{test[1]}`"
    return f"`{test[1]} \"{test[2]}\"`" if test[2] else f"`{test[1]}`"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--docs", default=os.path.join(ROOT, "docs", "reliability.md"))
    parser.add_argument("--check", action="store_true",
                        help="only check that every named test exists")
    args = parser.parse_args(argv)
    with open(args.docs) as f:
        rows = table_rows(f.read())
    if not rows:
        print(f"{args.docs}: no table whose last column is 'test'", file=sys.stderr)
        return 1
    tests = Tests(args.build)
    previous, matrix, problems = [], [], []
    for case, column in rows:
        named = tests.parse(column)
        if not named and re.match(r"(the )?same\b", column):
            named = previous
        matrix.append((case, named))
        previous = named
    distinct = sorted({t for _, named in matrix for t in named})
    for test in distinct:
        problem = tests.selects(test)
        if problem:
            problems.append(problem)
    if args.check:
        for problem in problems:
            print(problem, file=sys.stderr)
        print(f"{len(matrix)} rows, {sum(1 for _, n in matrix if n)} with tests, "
              f"{len(distinct)} distinct tests, {len(problems)} problems")
        return 1 if problems else 0
    results = {}
    for test in distinct:
        results[test] = tests.run(test)
        print(f"{label(test)}: {'ok' if results[test][0] else 'FAILED'} "
              f"({results[test][1]:.1f} s)", file=sys.stderr, flush=True)
    print("| case | tests | result | seconds |\n|---|---|---|---|")
    failed = 0
    for case, named in matrix:
        short = case if len(case) <= 90 else case[:87] + "..."
        if not named:
            print(f"| {short} | — | not a test (by hand or measured) | — |")
            continue
        ok = all(results[t][0] for t in named)
        failed += not ok
        print(f"| {short} | {', '.join(label(t) for t in named)} | "
              f"{'ok' if ok else '**FAILED**'} | {sum(results[t][1] for t in named):.1f} |")
    print(f"\n{len(matrix)} rows: {sum(1 for _, n in matrix if n) - failed} ok, {failed} failed, "
          f"{sum(1 for _, n in matrix if not n)} without a test")
    return 1 if failed or problems else 0


if __name__ == "__main__":
    sys.exit(main())
