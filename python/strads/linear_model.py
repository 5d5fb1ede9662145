"""Linear models on the dynamic (SAP) engine: Lasso, L1 logistic regression, linear SVM."""
import math
import numbers
import warnings

import numpy as np
import scipy.sparse as sp

from ._base import (RUN_PARAMETERS, BaseEstimator, ClassifierMixin, JobParamsMixin,
                    RegressorMixin, check_is_fitted, warn_unless_converged)
from ._data import JobData, check_sample_weight, check_X, check_y
from ._jobs import run


def _max_updates(max_iter, n_features):
    """max_iter passes over the features as the engine's --max-updates (0: no limit)."""
    return 0 if not max_iter else int(max_iter) * n_features


def _check_every(random_state, n_features):
    """The job's --check-every: with a random_state a check every n_features updates, so that the
    fit is reproducible; without, the engine's default (0), whose checks come sooner on large data
    at points that depend on timing (coordinator/check_pacer.h)."""
    return 0 if random_state is None else n_features


def lasso_dual_gap(X, y, coef, alpha, fit_intercept, positive=False):
    """The duality gap of Lasso at ``coef`` as scikit-learn's ``dual_gap_`` gives it: of its
    objective ``1/(2n) ||y - Xw - b||^2 + alpha ||w||_1`` (X and y centred for an intercept;
    over w >= 0 when ``positive``), from the residual scaled into the dual feasible set."""
    n = X.shape[0]
    if fit_intercept:
        X_offset = np.asarray(X.mean(axis=0)).ravel()
        y = y - y.mean()
        r = y - (np.asarray(X @ coef).ravel() - X_offset @ coef)
        Xtr = np.asarray(X.T @ r).ravel() - X_offset * r.sum()
    else:
        r = y - np.asarray(X @ coef).ravel()
        Xtr = np.asarray(X.T @ r).ravel()
    lam = n * alpha
    dual_norm = (np.max(Xtr) if positive else np.max(np.abs(Xtr))) if Xtr.size else 0.0
    r2 = float(r @ r)
    const = lam / dual_norm if dual_norm > lam else 1.0
    gap = 0.5 * r2 * (1 + const ** 2) if dual_norm > lam else r2
    gap += lam * float(np.abs(coef).sum()) - const * float(r @ y)
    return gap / n


def _n_passes(info, n_features):
    """Updates made, in passes over the features (scikit-learn's n_iter_ counts epochs)."""
    return int(math.ceil(info["updates"] / max(n_features, 1)))


class Lasso(JobParamsMixin, RegressorMixin, BaseEstimator):
    __doc__ = """Linear regression with an L1 penalty, solved by STRADS (``strads run lasso``).

    Minimises ``1/2 ||y - X w - b||^2 + lambda ||w||_1``. scikit-learn's Lasso minimises
    ``1/(2 n) ||y - X w - b||^2 + alpha ||w||_1`` over n samples: the same minimiser when
    ``lambda = n * alpha``, which is what ``fit`` passes (so ``alpha`` means what it means in
    scikit-learn, and both reach the same coefficients).

    Parameters
    ----------
    alpha : float, default 1.0
        L1 strength as in scikit-learn (the job's ``--lambda`` is ``n_samples * alpha``).
    fit_intercept : bool, default True
        As scikit-learn does it: the coefficients are those of X and y centred (their column
        means subtracted) and ``intercept_ = mean(y) - mean(X) @ coef_``, so the intercept is not
        penalised. The job (``--intercept``) centres implicitly: X is passed as it is, and a
        sparse X stays sparse.
    max_iter : int, default 1000
        At most this many passes over the features (``--max-updates max_iter * n_features``);
        0 or None: no limit. A fit that it (or ``max_seconds``) stops before ``tol`` is met warns
        with a ``ConvergenceWarning`` (scikit-learn's), saying the violation reached.
    tol : float, default 1e-6
        The job's ``--tolerance``: converged when every coefficient's optimality (KKT) violation
        is at most ``tol * lambda_max`` (scikit-learn's tol bounds the duality gap instead).
    random_state : int or None, default None
        The job's ``--seed`` (None: 1). Given, the job also checks every ``n_features`` updates
        (``--check-every``), so two fits give the same coefficients; None: the engine's default
        checks, sooner on large data at points that depend on timing, so two fits may end at
        different points that each meet ``tol`` (with correlated features, different
        coefficients of the same objective).
    schedule : str or None
        The engine's ``--schedule`` (dynamic | random | cyclic | static); None: the CLI's
        default.
    positive : bool, default False
        Constrain the coefficients to be >= 0 (the job's ``--positive``), as scikit-learn's.
    precompute : bool or "auto", default False
        Accepted for scikit-learn's signature, with no effect: the engine's coordinate steps work
        on X's columns, never on a Gram matrix (a precomputed Gram array is refused).
""" + RUN_PARAMETERS + """
    ``fit(X, y, sample_weight=None)``: with weights, as scikit-learn, the loss is
    ``1/(2n) sum_i s_i (y_i - x_i w - b)^2`` with the weights rescaled to sum to n_samples; X's
    rows are scaled by ``sqrt(s_i)`` for the job, and with an intercept X and y are centred on
    their weighted means first (which densifies a sparse X: the job's implicit centring is
    unweighted).

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
    intercept_ : float
    n_iter_ : int
        Updates made, in passes over the features.
    dual_gap_ : float
        The duality gap of the coefficients, in scikit-learn's scale (its objective, divided by
        n_samples as its ``dual_gap_``).
    n_features_in_ : int
    job_ : strads.JobResult
        The job's info (objective, rounds, seconds, converged) and result files.
    """

    def __init__(self, alpha=1.0, *, fit_intercept=True, max_iter=1000, tol=1e-6,
                 random_state=None, schedule=None, positive=False, precompute=False, n_workers=2,
                 n_schedulers=1, coordinator=None, max_seconds=0.0, verbose=True, tmp_dir=None):
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.positive = positive
        self.precompute = precompute
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.schedule = schedule
        self.n_workers = n_workers
        self.n_schedulers = n_schedulers
        self.coordinator = coordinator
        self.max_seconds = max_seconds
        self.verbose = verbose
        self.tmp_dir = tmp_dir

    def fit(self, X, y, sample_weight=None):
        if not (isinstance(self.alpha, numbers.Real) and 0 <= self.alpha < math.inf):
            raise ValueError(f"The 'alpha' parameter of Lasso must be a float in the range "
                             f"[0, inf). Got {self.alpha!r} instead.")
        if self.alpha == 0:
            warnings.warn("With alpha=0, this algorithm does not converge well. You are advised "
                          "to use the LinearRegression estimator", UserWarning, stacklevel=2)
        X = check_X(X, estimator=self)
        y = check_y(y, X.shape[0]).astype(np.float64)
        n_samples, n_features = X.shape
        if not isinstance(self.precompute, (bool, str)):
            raise ValueError("precompute: a Gram matrix is not used by STRADS (its coordinate "
                             "steps work on X's columns); pass X and leave precompute=False")
        # The job's data: X and y as given, the intercept by the job's implicit centring; with
        # sample weights, rows scaled by their square roots, centred here on weighted means.
        X_job, y_job, intercept = X, y, bool(self.fit_intercept)
        X_offset, y_offset = None, None
        if sample_weight is not None:
            weights = check_sample_weight(sample_weight, n_samples)
            weights = weights * (n_samples / weights.sum())
            if intercept:
                X_offset = np.asarray(weights @ X).ravel() / n_samples
                y_offset = float(weights @ y) / n_samples
                X_job = (X.toarray() if sp.issparse(X) else X) - X_offset
                y_job = y - y_offset
                intercept = False
            scale = np.sqrt(weights)
            X_job = (sp.csr_matrix(X_job.multiply(scale[:, None])) if sp.issparse(X_job)
                     else X_job * scale[:, None])
            y_job = y_job * scale
        with JobData(self.coordinator, self.tmp_dir) as data:
            job = run("lasso", **data.dataset("X", X_job, y_job), intercept=intercept,
                      positive=bool(self.positive), lambda_=float(n_samples * self.alpha),
                      tolerance=float(self.tol),
                      max_updates=_max_updates(self.max_iter, n_features),
                      check_every=_check_every(self.random_state, n_features),
                      seed=self.random_state, schedule=self.schedule,
                      **self._run_kwargs())
        self.coef_ = job.coefficients(n_features)
        self.dual_gap_ = lasso_dual_gap(X_job, y_job, self.coef_, float(self.alpha), intercept,
                                        bool(self.positive))
        warn_unless_converged(self, job.info, n_features,
                              f"; duality gap {self.dual_gap_:.3g} (scikit-learn's scale)")
        if not self.fit_intercept:
            self.intercept_ = 0.0
        else:
            if X_offset is None:
                X_offset, y_offset = np.asarray(X.mean(axis=0)).ravel(), y.mean()
            self.intercept_ = float(y_offset - X_offset @ self.coef_)
        self.n_iter_ = _n_passes(job.info, n_features)
        self.n_features_in_ = n_features
        self.job_ = job
        return self

    def predict(self, X):
        check_is_fitted(self, "coef_")
        X = check_X(X, estimator=self)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but {type(self).__name__} is "
                             f"expecting {self.n_features_in_} features as input.")
        return np.asarray(X @ self.coef_).ravel() + self.intercept_


class _SparseCoefMixin:
    """sparsify() and densify() as scikit-learn's: coef_ as a scipy.sparse CSR matrix and back
    (prediction works either way)."""

    def sparsify(self):
        check_is_fitted(self, "coef_")
        self.coef_ = sp.csr_matrix(self.coef_)
        return self

    def densify(self):
        check_is_fitted(self, "coef_")
        if sp.issparse(self.coef_):
            self.coef_ = self.coef_.toarray()
        return self


class _LinearClassifier(_SparseCoefMixin, JobParamsMixin, ClassifierMixin, BaseEstimator):
    """A linear classifier of an app whose objective is sum of losses + lambda * penalty,
    with lambda = 1 / C. fit_intercept appends a constant column of value intercept_scaling (the
    intercept is penalised like a coefficient), as scikit-learn's liblinear solver does for
    LogisticRegression and LinearSVC: it keeps sparse X sparse."""

    _app = None
    _n_iter_array = False
    _loss_name = None  # liblinear's, for its error texts
    _multi_class_refusal = ""  # scikit-learn's text refusing a multi-class scheme, if it has one

    def _app_options(self):
        raise NotImplementedError

    # liblinear's table of the (loss, penalty, dual) it solves (scikit-learn's
    # svm._base._get_liblinear_solver_type): the engine solves the primal either way, where
    # liblinear has both the minimiser is the same; what liblinear refuses is refused with its text.
    _LIBLINEAR = {"logistic_regression": {"l1": (False,), "l2": (False, True)},
                  "hinge": {"l2": (True,)},
                  "squared_hinge": {"l1": (False,), "l2": (False, True)}}

    def _check_dual(self):
        penalties = self._LIBLINEAR.get(self._loss_name)
        if penalties is None:
            problem = f"loss='{self._loss_name}' is not supported"
        elif self.penalty not in penalties:
            problem = (f"The combination of penalty='{self.penalty}' and "
                       f"loss='{self._loss_name}' is not supported")
        elif bool(self.dual) not in penalties[self.penalty]:
            problem = (f"The combination of penalty='{self.penalty}' and "
                       f"loss='{self._loss_name}' are not supported when dual={self.dual}")
        else:
            return
        raise ValueError(f"Unsupported set of arguments: {problem}, Parameters: "
                         f"penalty={self.penalty!r}, loss={self._loss_name!r}, dual={self.dual!r}")

    def _lambda(self):
        if not self.C > 0:
            raise ValueError(f"Penalty term must be positive; got (C={self.C!r})")
        return 1.0 / float(self.C)

    def _check_class_weight(self):
        """The logistic and svm apps' losses are unweighted: class weights are refused (not
        emulated by resampling), naming what to do instead. (fit has no sample_weight, so
        scikit-learn's checks and meta-estimators see that it takes none.)"""
        if self.class_weight is not None:
            raise ValueError(f"class_weight={self.class_weight!r} is not supported by strads' "
                             f"{type(self).__name__} (the {self._app} app's loss has no per-sample "
                             f"weights): leave class_weight=None, or use scikit-learn's "
                             f"{type(self).__name__} for a weighted fit")

    def _check_multi_class(self):
        """One-vs-rest is the one multi-class scheme (one job per class, as liblinear)."""
        if self.multi_class not in ("auto", "ovr"):
            raise ValueError(f"{self._multi_class_refusal}multi_class={self.multi_class!r} is "
                             f"not supported: strads fits "
                             f"one-vs-rest (multi_class='ovr' or 'auto'); for a "
                             f"{self.multi_class} model use scikit-learn's "
                             f"{type(self).__name__}")

    def fit(self, X, y):
        self._check_multi_class()
        self._check_class_weight()
        X = check_X(X, estimator=self)
        y = check_y(y, X.shape[0], classifier=True)
        classes = np.unique(y)
        if classes.size < 2:
            raise ValueError(f"This solver needs samples of at least 2 classes in the data, but "
                             f"the data contains only one class: {classes[0]!r}")
        self._check_dual()
        lambda_ = self._lambda()
        n_features = X.shape[1]
        if self.fit_intercept:
            column = np.full((X.shape[0], 1), float(self.intercept_scaling))
            X = sp.hstack([X, column], format="csr") if sp.issparse(X) else np.hstack([X, column])
        # Two classes: one job, classes_[1] is +1. More: one job per class against the rest
        # (one-vs-rest, as liblinear does).
        positives = classes[1:] if classes.size == 2 else classes
        coefs, passes = [], []
        with JobData(self.coordinator, self.tmp_dir) as data:
            for k, positive in enumerate(positives):
                labels = np.where(y == positive, 1.0, -1.0)
                job = run(self._app, **data.dataset(f"X{k}", X, labels), lambda_=lambda_,
                          tolerance=float(self.tol),
                          max_updates=_max_updates(self.max_iter, X.shape[1]),
                          check_every=_check_every(self.random_state, X.shape[1]),
                          seed=self.random_state, **self._app_options(), **self._run_kwargs())
                coefs.append(job.coefficients(X.shape[1]))
                passes.append(_n_passes(job.info, X.shape[1]))
                warn_unless_converged(self, job.info, X.shape[1], "" if classes.size == 2 else
                                      f" (class {positive!r} against the rest)")
        w = np.vstack(coefs)
        self.classes_ = classes
        self.coef_ = w[:, :n_features]
        self.intercept_ = (w[:, n_features] * self.intercept_scaling if self.fit_intercept
                           else np.zeros(len(positives)))
        self.n_iter_ = np.array(passes) if self._n_iter_array else max(passes)
        self.n_features_in_ = n_features
        self.job_ = job  # the last job (one-vs-rest: the last class's)
        return self

    def decision_function(self, X):
        """x @ coef_.T + intercept_ for each row: binary, a vector (positive means classes_[1]);
        more classes, one column per class."""
        check_is_fitted(self, "coef_")
        X = check_X(X, estimator=self)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but {type(self).__name__} is "
                             f"expecting {self.n_features_in_} features as input.")
        scores = X @ self.coef_.T
        scores = (scores.toarray() if sp.issparse(scores) else np.asarray(scores)) + self.intercept_
        return scores.ravel() if scores.shape[1] == 1 else scores

    def predict(self, X):
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(int)]
        return self.classes_[scores.argmax(axis=1)]


_CLASSIFIER_PARAMETERS = """
    C : float, default 1.0
        Inverse regularisation strength as in scikit-learn: the job's ``--lambda`` is ``1 / C``
        (our objective is ``sum of losses + lambda * penalty``; scikit-learn's liblinear one is
        ``C * sum of losses + penalty``, the same minimiser).
    fit_intercept : bool, default True
        As scikit-learn's liblinear solver: a constant column of value ``intercept_scaling`` is
        appended to X, and its coefficient (penalised like the others) times intercept_scaling
        is ``intercept_``. This keeps sparse X sparse (centring would not).
    intercept_scaling : float, default 1.0
    tol : float, default 1e-6
        The job's ``--tolerance`` (KKT violation relative to lambda_max).
    max_iter : int, default 1000
        At most this many passes over the features (``--max-updates``); 0 or None: no limit.
        A job it (or ``max_seconds``) stops before ``tol`` is met warns (``ConvergenceWarning``).
    random_state : int or None
        The job's ``--seed``; given, also ``--check-every n_features`` (reproducible fits, see
        Lasso).
    multi_class : "auto" or "ovr" (LinearSVC's default "ovr")
        More than two classes are fitted one-vs-rest (one job per class); "multinomial" and
        "crammer_singer" are refused.
    class_weight : None
        Refused unless None: the logistic and svm apps' losses have no per-sample weights (nor
        does ``fit`` take ``sample_weight``); use scikit-learn's estimator for a weighted fit.
"""

_CLASSIFIER_ATTRIBUTES = """
    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Two classes: ``classes_[1]`` is the positive class (label +1 for the job), one job.
        More: one job per class against the rest (one-vs-rest, as liblinear).
    coef_ : ndarray of shape (1, n_features), or (n_classes, n_features) with more classes
    intercept_ : ndarray of shape (1,) or (n_classes,)
    n_iter_ : updates made, in passes over the features
    job_ : strads.JobResult
"""


class LogisticRegression(_LinearClassifier):
    __doc__ = """Regularised binary logistic regression, solved by STRADS (``strads run
    logistic``): minimises ``sum_i log(1 + exp(-y_i (x_i w + b))) + lambda ||w||_1`` (penalty
    "l1") or ``... + lambda/2 ||w||^2`` (penalty "l2"), with ``lambda = 1 / C``; the same
    minimiser as scikit-learn's ``LogisticRegression(penalty=..., solver="liblinear", C=C)``
    (whose intercept is penalised too; scikit-learn's default solver, lbfgs, leaves it free).

    Parameters
    ----------
    penalty : {"l1", "l2", None}, default "l1"
        The app's ``--penalty``; None (or "none", scikit-learn's older spelling): no penalty
        (``--lambda 0``; C is then not used, and on separable data no minimiser exists, so the
        fit stops at ``max_iter``). scikit-learn's default is "l2".
    dual : bool, default False
        Accepted as liblinear takes it: True only with penalty "l2" (scikit-learn's error
        otherwise). The engine solves the primal either way; the minimiser is the same.
    solver : "liblinear"
        The one solver: the engine's coordinate descent reaches liblinear's minimiser. Other
        values are refused.
""" + _CLASSIFIER_PARAMETERS + RUN_PARAMETERS + _CLASSIFIER_ATTRIBUTES

    _app = "logistic"
    _n_iter_array = True  # as scikit-learn's: one entry per job
    _loss_name = "logistic_regression"
    _multi_class_refusal = "Solver liblinear does not support a multinomial backend: "

    def __init__(self, penalty="l1", *, dual=False, C=1.0, fit_intercept=True,
                 intercept_scaling=1.0, class_weight=None, solver="liblinear",
                 multi_class="auto", tol=1e-6, max_iter=1000, random_state=None, n_workers=2,
                 n_schedulers=1, coordinator=None, max_seconds=0.0, verbose=True, tmp_dir=None):
        self.penalty = penalty
        self.solver = solver
        self.dual = dual
        self.C = C
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.class_weight = class_weight
        self.multi_class = multi_class
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state
        self.n_workers = n_workers
        self.n_schedulers = n_schedulers
        self.coordinator = coordinator
        self.max_seconds = max_seconds
        self.verbose = verbose
        self.tmp_dir = tmp_dir

    def _unpenalised(self):
        return self.penalty is None or self.penalty == "none"

    def _check_dual(self):
        if self._unpenalised():
            if self.dual:
                raise ValueError("Unsupported set of arguments: a dual formulation needs "
                                 "penalty='l2'")
            return
        super()._check_dual()

    def _lambda(self):
        if self.solver != "liblinear":
            raise ValueError(f"solver={self.solver!r} is not supported: strads has one solver, "
                             f"coordinate descent on liblinear's objective (solver='liblinear'); "
                             f"for {self.solver} use scikit-learn's LogisticRegression")
        if self._unpenalised():
            if self.C != 1.0:
                warnings.warn("Setting penalty=None will ignore the C and l1_ratio parameters",
                              UserWarning, stacklevel=3)
            return 0.0
        return super()._lambda()

    def _app_options(self):
        return {"penalty": "l1" if self._unpenalised() else self.penalty}

    def predict_proba(self, X):
        """Each class's probability for each row: binary, the logistic of decision_function;
        more classes, each one-vs-rest probability normalised to sum 1 (as liblinear's)."""
        p = 1.0 / (1.0 + np.exp(-self.decision_function(X)))
        if p.ndim == 1:
            return np.column_stack([1.0 - p, p])
        return p / p.sum(axis=1, keepdims=True)

    def predict_log_proba(self, X):
        return np.log(self.predict_proba(X))


class LinearSVC(_LinearClassifier):
    __doc__ = """Binary linear SVM with the squared hinge loss, solved by STRADS (``strads run
    svm``): minimises ``sum_i max(0, 1 - y_i (x_i w + b))^2 + lambda/2 ||w||^2`` (penalty "l2")
    or ``... + lambda ||w||_1`` (penalty "l1"), with ``lambda = 1 / C``: the same minimiser as
    scikit-learn's ``LinearSVC(penalty=..., loss="squared_hinge", C=C)``.

    Parameters
    ----------
    penalty : str, default "l2"
        "l2" or "l1" (the app's ``--penalty``).
    loss : str, default "squared_hinge"
        "squared_hinge" only (the app refuses "hinge" with the CLI's message: its coordinate
        Newton method needs a differentiable loss).
    dual : bool, default True
        Accepted as scikit-learn takes it: penalty "l1" needs dual=False (its error otherwise).
        The engine solves the primal either way; the minimiser is the same.
""" + _CLASSIFIER_PARAMETERS + RUN_PARAMETERS + _CLASSIFIER_ATTRIBUTES

    _app = "svm"

    @property
    def _loss_name(self):
        return self.loss

    def __init__(self, penalty="l2", loss="squared_hinge", *, dual=True, C=1.0,
                 multi_class="ovr", fit_intercept=True, intercept_scaling=1.0, class_weight=None,
                 tol=1e-6, max_iter=1000, random_state=None, n_workers=2, n_schedulers=1,
                 coordinator=None, max_seconds=0.0, verbose=True, tmp_dir=None):
        self.penalty = penalty
        self.loss = loss
        self.dual = dual
        self.C = C
        self.multi_class = multi_class
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.class_weight = class_weight
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state
        self.n_workers = n_workers
        self.n_schedulers = n_schedulers
        self.coordinator = coordinator
        self.max_seconds = max_seconds
        self.verbose = verbose
        self.tmp_dir = tmp_dir

    def _app_options(self):
        return {"penalty": self.penalty, "loss": str(self.loss).replace("_", "-")}
