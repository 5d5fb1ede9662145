"""A finished job's results, loaded from its result files into numpy and scipy."""
import csv
import io
import json

import numpy as np


class JobResult:
    """The result of a finished job: ``info`` (the job's state, objective, rounds, seconds...),
    ``files`` (name -> bytes, as ``strads result`` writes them) and loaders for them."""

    def __init__(self, info, files):
        self.info = dict(info)
        self.files = dict(files)

    def __repr__(self):
        return f"JobResult({self.info['description']!r}, files={sorted(self.files)})"

    def text(self, name):
        if name not in self.files:
            raise KeyError(f"job {self.info['job_id']} ({self.info['app']}) has no {name}; "
                           f"it has {', '.join(sorted(self.files))}")
        return self.files[name].decode()

    def summary(self):
        """summary.json as a dict."""
        return json.loads(self.text("summary.json"))

    def coefficients(self, n_features=None):
        """coefficients.tsv (1-based feature id, value: the nonzeros) as a dense float64 array
        of ``n_features`` entries (default: up to the largest id)."""
        ids, values = [], []
        for line in self.text("coefficients.tsv").splitlines():
            fields = line.split("\t")
            if len(fields) >= 2 and fields[0].strip().isdigit():
                ids.append(int(fields[0]) - 1)
                values.append(float(fields[1]))
        ids = np.asarray(ids, dtype=np.int64)
        size = n_features if n_features is not None else (int(ids.max()) + 1 if ids.size else 0)
        coef = np.zeros(size)
        coef[ids] = values
        return coef

    def matrix(self, name):
        """A MatrixMarket result file (W.mtx, H.mtx: dense arrays; doc_topic.mtx, word_topic.mtx:
        scipy sparse COO) as scipy.io.mmread reads it."""
        import scipy.io

        return scipy.io.mmread(io.BytesIO(self.files[name] if name in self.files else
                                          self.text(name).encode()))

    def trace(self):
        """trace.csv: a pandas DataFrame when pandas is installed, else a dict of column name ->
        list (numbers as floats, text as str)."""
        return _table(self.text("trace.csv"))


def _table(text):
    try:
        import pandas as pd
    except ImportError:
        pd = None
    if pd is not None:
        return pd.read_csv(io.StringIO(text))
    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        return {}
    columns = {name: [] for name in rows[0]}
    for row in rows[1:]:
        for name, cell in zip(rows[0], row):
            try:
                columns[name].append(float(cell) if cell != "" else float("nan"))
            except ValueError:
                columns[name].append(cell)
    return columns
