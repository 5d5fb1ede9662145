"""Handing numpy arrays and scipy sparse matrices to a job, and checking them.

For now a job reads its data from files (the members load them, as for the CLI): the arrays are
written by the C++ side (``_core.write_coordinate``, every double in its shortest exact form) into
a temporary directory that lives while the job runs. MatrixMarket keeps the column count, so a
trailing all-zero column is not lost. With ``coordinator=`` that directory must be readable by
the cluster's members: set ``TMPDIR`` (or pass ``tmp_dir=``) to a shared filesystem on a
multi-host cluster.
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


class JobFiles:
    """A temporary directory for one job's data files; removed on exit."""

    def __init__(self, tmp_dir=None):
        self._dir = tempfile.TemporaryDirectory(prefix="strads-", dir=tmp_dir)
        self.path = self._dir.name

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._dir.cleanup()

    def matrix(self, name, X, kind="mm"):
        """Writes X (dense or sparse) as MatrixMarket coordinate (kind "mm") or UCI docword
        ("docword") file `name`; returns its path."""
        coo = sp.coo_matrix(X)
        path = os.path.join(self.path, name)
        _core.write_coordinate(path, kind, coo.shape[0], coo.shape[1], coo.row, coo.col,
                               coo.data)
        return path

    def labels(self, name, y):
        path = os.path.join(self.path, name)
        _core.write_labels(path, np.asarray(y, dtype=np.float64))
        return path
