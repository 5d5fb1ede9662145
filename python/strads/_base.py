"""What every estimator shares: scikit-learn's BaseEstimator when it is installed (so clone,
get_params/set_params, repr and its checks work as for its own estimators), else a small
equivalent; the parameters that say where and how a job runs; and the warning for a fit that a
limit stopped."""
import inspect
import warnings

try:
    from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, TransformerMixin
except ImportError:  # scikit-learn is optional

    class BaseEstimator:
        """get_params/set_params as scikit-learn's: the constructor's parameters."""

        @classmethod
        def _get_param_names(cls):
            signature = inspect.signature(cls.__init__)
            return sorted(p.name for p in signature.parameters.values()
                          if p.name != "self" and p.kind != p.VAR_KEYWORD)

        def get_params(self, deep=True):
            return {name: getattr(self, name) for name in self._get_param_names()}

        def set_params(self, **params):
            valid = self._get_param_names()
            for name, value in params.items():
                if name not in valid:
                    raise ValueError(f"Invalid parameter {name!r} for estimator {self}. "
                                     f"Valid parameters are: {valid!r}.")
                setattr(self, name, value)
            return self

        def __repr__(self):
            args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
            return f"{type(self).__name__}({args})"

    class RegressorMixin:
        _estimator_type = "regressor"

    class ClassifierMixin:
        _estimator_type = "classifier"

    class TransformerMixin:
        def fit_transform(self, X, y=None, **fit_params):
            return self.fit(X, y, **fit_params).transform(X)


try:
    from sklearn.exceptions import ConvergenceWarning
except ImportError:

    class ConvergenceWarning(UserWarning):
        """A fit stopped by a limit (max_iter, max_seconds) before it met its tolerance."""


def warn_unless_converged(estimator, info, n_features, detail=""):
    """ConvergenceWarning when the job of ``info`` stopped before it met ``estimator.tol``: which
    limit stopped it, the violation it reached, and what to change. ``detail`` is appended."""
    if info["converged"] or info["state"] != "SUCCEEDED":
        return
    max_seconds = float(getattr(estimator, "max_seconds", 0) or 0)
    if max_seconds > 0 and info["seconds"] >= max_seconds:
        limit = f"max_seconds={max_seconds:g}"
    else:
        limit = f"max_iter={estimator.max_iter} ({info['updates']} updates over {n_features} " \
                f"features)"
    warnings.warn(f"{type(estimator).__name__} did not converge: stopped by {limit} at the "
                  f"optimality violation {info['violation']:.3g}, above tol={estimator.tol:g} "
                  f"(both relative to lambda_max){detail}. Increase max_iter or max_seconds, or "
                  f"tol.", ConvergenceWarning, stacklevel=3)


def check_is_fitted(estimator, attribute):
    if not hasattr(estimator, attribute):
        try:
            from sklearn.exceptions import NotFittedError
        except ImportError:
            NotFittedError = AttributeError
        raise NotFittedError(f"This {type(estimator).__name__} instance is not fitted yet. Call "
                             f"'fit' with appropriate arguments before using this estimator.")


# Docstring text of the parameters every estimator has (appended to each class's docstring).
RUN_PARAMETERS = """
    n_workers, n_schedulers : int, default 2 and 1
        Size of the embedded cluster the job runs on (in this process, one thread per member;
        its members read X where it is, in memory, without a copy for a float64 array in C or
        Fortran order or a CSR/CSC matrix, and keep their columns of it).
    coordinator : str or None, default None
        "tcp://HOST:PORT": run the job on that cluster instead. The data goes to the members as
        files in a temporary directory (``tmp_dir``), which they must be able to read.
    max_seconds : float, default 0
        Stop the job after this long (0: no limit), as ``--max-seconds``.
    verbose : bool, default True
        Show progress while ``fit`` runs (a tqdm bar when tqdm is installed, else one line on
        stderr) and one line at the end.
    tmp_dir : str or None, default None
        With ``coordinator``: where the job's data files are written (default: the system's
        temporary directory).
"""


class JobParamsMixin:
    """The keyword arguments of ``strads.run`` that every estimator passes on."""

    def _run_kwargs(self):
        return dict(n_workers=self.n_workers, n_schedulers=self.n_schedulers,
                    coordinator=self.coordinator, verbose=self.verbose,
                    max_seconds=float(self.max_seconds))
