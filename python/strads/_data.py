"""Handing numpy arrays and scipy sparse matrices to a job, and checking them.

On the embedded cluster (no ``coordinator=``) the members read the arrays where they are: each
matrix goes to ``_core.run`` as views of its buffers (``memory_matrix``), named by ``--data
memory:NAME`` (common/memory_matrix.h), and each worker keeps only its columns, without text or a
temporary file; a C- or Fortran-ordered float64 array, and a CSR or CSC matrix with float64
values, are read without a copy. A cluster's members (``coordinator=``) read files instead: the
arrays are written by the C++ side (``_core.write_coordinate``, every double in its shortest
exact form) into a temporary directory that lives while the job runs, which they must be able to
read: set ``TMPDIR`` (or pass ``tmp_dir=``) to a shared filesystem on a multi-host cluster.
MatrixMarket keeps the column count, so a trailing all-zero column is not lost.
"""
import os
import tempfile

import numpy as np
import scipy.sparse as sp

from . import _core

try:
    from sklearn.utils.multiclass import check_classification_targets as _sk_check_targets
    from sklearn.utils.validation import check_array as _sk_check_array
    from sklearn.utils.validation import column_or_1d as _sk_column_or_1d
except ImportError:  # scikit-learn is optional
    _sk_check_array = _sk_check_targets = _sk_column_or_1d = None


def check_X(X, *, accept_sparse=True, dtype=np.float64, estimator=None):
    """X as a 2-D float64 array or CSR matrix, finite, with at least one row and column;
    ValueError otherwise (scikit-learn's messages when it is installed)."""
    if _sk_check_array is not None:
        return _sk_check_array(X, accept_sparse=["csr", "csc", "coo"] if accept_sparse else False,
                               dtype=dtype, estimator=estimator)
    if sp.issparse(X):
        if not accept_sparse:
            raise TypeError("a dense array is required; use X.toarray()")
        X = X.astype(dtype)
        values = X.data
    else:
        X = np.asarray(X, dtype=dtype)
        if X.ndim != 2:
            raise ValueError(f"Expected 2D array, got {X.ndim}D array instead")
        values = X
    if not np.all(np.isfinite(values)):
        raise ValueError("Input contains NaN or infinity")
    if X.shape[0] < 1 or X.shape[1] < 1:
        raise ValueError(f"Found array with shape {X.shape}; a minimum of 1 is required.")
    return X


def check_y(y, n_samples, classifier=False):
    """y as a 1-D array of n_samples finite values (a column vector is accepted with scikit-
    learn's DataConversionWarning); for a classifier, discrete labels."""
    if _sk_column_or_1d is not None:
        y = _sk_column_or_1d(y, warn=True)
        if classifier:
            _sk_check_targets(y)
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y.ravel()
    if y.ndim != 1:
        raise ValueError(f"y should be a 1d array, got an array of shape {y.shape} instead.")
    if y.dtype.kind in "fc" and not np.all(np.isfinite(y)):
        raise ValueError("Input y contains NaN or infinity.")
    if y.shape[0] != n_samples:
        raise ValueError(f"Found input variables with inconsistent numbers of samples: "
                         f"[{n_samples}, {y.shape[0]}]")
    return y


def memory_matrix(X, y):
    """X (2-D array or scipy sparse) and its labels y as ``_core.run``'s matrices take them:
    (layout, rows, cols, values, starts, indices, labels), views where the layout allows."""
    labels = np.ascontiguousarray(y, dtype=np.float64)
    if sp.issparse(X):
        X = X if sp.isspmatrix_csr(X) or sp.isspmatrix_csc(X) else X.tocsr()
        if X.dtype != np.float64:
            X = X.astype(np.float64)
        if not X.has_canonical_format:  # the members take sorted indices without repeats
            X = X.copy()
            X.sum_duplicates()
        layout = "csr" if sp.isspmatrix_csr(X) else "csc"
        return (layout, X.shape[0], X.shape[1], X.data, X.indptr, X.indices, labels)
    X = np.asarray(X, dtype=np.float64)
    if X.flags.f_contiguous and not X.flags.c_contiguous:
        return ("dense_f", X.shape[0], X.shape[1], X.ravel(order="F"), None, None, labels)
    X = np.ascontiguousarray(X)
    return ("dense_c", X.shape[0], X.shape[1], X.reshape(-1), None, None, labels)


def check_sample_weight(sample_weight, n_samples):
    """sample_weight as n_samples finite float64 weights >= 0, not all 0 (scalars broadcast);
    ValueError otherwise (scikit-learn's messages where it has them)."""
    weights = np.asarray(sample_weight, dtype=np.float64)
    if weights.ndim == 0:
        weights = np.full(n_samples, float(weights))
    if weights.ndim != 1:
        raise ValueError("Sample weights must be 1D array or scalar")
    if weights.shape != (n_samples,):
        raise ValueError(f"sample_weight.shape == {weights.shape}, expected ({n_samples},)!")
    if not np.all(np.isfinite(weights)):
        raise ValueError("Input sample_weight contains NaN or infinity.")
    if np.any(weights < 0):
        raise ValueError("Negative values in data passed to `sample_weight`")
    if not weights.sum() > 0:
        raise ValueError("The sample weights are all zero: nothing to fit")
    return weights


class JobData:
    """The data of one estimator's jobs, for as long as they run: in memory on the embedded
    cluster, else as files in a temporary directory (removed on exit)."""

    def __init__(self, coordinator=None, tmp_dir=None):
        self._in_memory = coordinator is None
        self._tmp_dir = tmp_dir
        self._dir = None  # made by the first file

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self._dir is not None:
            self._dir.cleanup()

    def dataset(self, name, X, y):
        """The job options that hand the job X with labels y (``data``, ``labels``, and on the
        embedded cluster ``matrices`` for ``run``)."""
        if self._in_memory:
            return {"data": "memory:" + name, "matrices": {name: memory_matrix(X, y)}}
        return {"data": self.matrix(name + ".mtx", X), "labels": self.labels(name + ".y", y)}

    def matrix(self, name, X, kind="mm"):
        """Writes X (dense or sparse) as MatrixMarket coordinate (kind "mm") or UCI docword
        ("docword") file `name`; returns its path."""
        coo = sp.coo_matrix(X)
        path = self._path(name)
        _core.write_coordinate(path, kind, coo.shape[0], coo.shape[1], coo.row, coo.col,
                               coo.data)
        return path

    def labels(self, name, y):
        path = self._path(name)
        _core.write_labels(path, np.asarray(y, dtype=np.float64))
        return path

    def _path(self, name):
        if self._dir is None:
            self._dir = tempfile.TemporaryDirectory(prefix="strads-", dir=self._tmp_dir)
        return os.path.join(self._dir.name, name)
