"""Benchmark harnesses of STRADS: what deploy/*.sh run after their jobs, as one package.

The shell scripts in deploy/ start clusters and jobs; this package reads what the jobs wrote
(trace.csv, summary.json) and prints the tables. Run a module with the repository on the path:

    PYTHONPATH=/path/to/strads python3 -m bench.<module> ...

Shared pieces:
  bench.epsilon   the one definition of "time (and updates) to within eps of F*"
  bench.trace     reading trace.csv and summary.json, thinning long traces
  bench.stats     medians that skip missing values, ratios
  bench.markdown  markdown tables

Standard library only, except bench.compare, which uses numpy and scipy when they are there.
"""
