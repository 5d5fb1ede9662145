"""STRADS from Python: scikit-learn-style estimators over the C++ core, and a client for a cluster.

Estimators (each runs its job on an embedded cluster in this process by default, with
``n_workers`` workers and ``n_schedulers`` schedulers, or on a running cluster with
``coordinator="tcp://HOST:PORT"``):

- :class:`Lasso`, :class:`LogisticRegression`, :class:`LinearSVC` (the dynamic SAP engine);
- :class:`LDA` (topic model, collapsed Gibbs) and :class:`MF` (matrix factorisation) (the static
  engine).

:class:`Client` speaks the CLI's verbs (submit, status, jobs, cancel, result) to a coordinator.
:func:`run` runs any app with the CLI's job options given as keyword arguments.

Errors carry the CLI's messages: ``ValueError`` for bad options or data (the CLI's exit code 2),
:class:`JobFailed` for a job that failed or was cancelled, ``ConnectionError`` for a coordinator
that does not answer. Ctrl-C while a job runs cancels it and raises ``KeyboardInterrupt``.
"""
from ._base import ConvergenceWarning
from ._core import JobFailed, apps
from ._jobs import run
from ._results import JobResult
from .client import Client
from .decomposition import LDA, MF
from .linear_model import Lasso, LinearSVC, LogisticRegression

__all__ = ["Lasso", "LogisticRegression", "LinearSVC", "LDA", "MF", "Client", "JobFailed",
           "JobResult", "ConvergenceWarning", "run", "apps"]
__version__ = "0.1.0"
