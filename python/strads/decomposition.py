"""The static engine's apps as estimators: LDA (topic model) and MF (matrix factorisation)."""
import numpy as np
import scipy.sparse as sp

from ._base import RUN_PARAMETERS, BaseEstimator, JobParamsMixin, check_is_fitted
from ._data import JobData, check_X
from ._jobs import run


class LDA(JobParamsMixin, BaseEstimator):
    __doc__ = """Latent Dirichlet allocation by collapsed Gibbs sampling (``strads run lda``).

    ``fit_transform(X)`` on a documents x words count matrix (numpy or scipy sparse, nonnegative
    integers) returns each document's topic distribution. Parameter names are those of
    scikit-learn's LatentDirichletAllocation.

    Parameters
    ----------
    n_components : int, default 10
        Topics K (``--topics``).
    doc_topic_prior, topic_word_prior : float or None
        ``--alpha`` and ``--beta``; None: the CLI's defaults 0.1 and 0.01 (scikit-learn's are
        1 / n_components).
    max_iter : int, default 30
        Gibbs sweeps (``--iterations``).
    sampler : str, default "sparse"
        "sparse" (SparseLDA) or "mh" (LightLDA's Metropolis-Hastings).
    random_state : int or None
        ``--seed``.
""" + RUN_PARAMETERS + """
    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_words)
        Topic-word counts of the last sample.
    doc_topic_counts_ : ndarray of shape (n_documents, n_components)
        Document-topic counts of the last sample.
    n_iter_ : int
        Sweeps made.
    job_ : strads.JobResult (its trace() has loglik_per_token by iteration)
    """

    def __init__(self, n_components=10, *, doc_topic_prior=None, topic_word_prior=None,
                 max_iter=30, sampler="sparse", random_state=None, n_workers=2, n_schedulers=1,
                 coordinator=None, max_seconds=0.0, verbose=True, tmp_dir=None):
        self.n_components = n_components
        self.doc_topic_prior = doc_topic_prior
        self.topic_word_prior = topic_word_prior
        self.max_iter = max_iter
        self.sampler = sampler
        self.random_state = random_state
        self.n_workers = n_workers
        self.n_schedulers = n_schedulers
        self.coordinator = coordinator
        self.max_seconds = max_seconds
        self.verbose = verbose
        self.tmp_dir = tmp_dir

    def fit(self, X, y=None):
        X = check_X(X, estimator=self)
        values = X.data if sp.issparse(X) else X
        if np.any(values < 0) or np.any(values != np.round(values)):
            raise ValueError("LDA needs a documents x words matrix of nonnegative integer counts")
        with JobData(tmp_dir=self.tmp_dir) as files:
            job = run("lda", data=files.matrix("docword.txt", X, kind="docword"),
                      topics=self.n_components, alpha=self.doc_topic_prior,
                      beta=self.topic_word_prior, iterations=self.max_iter, sampler=self.sampler,
                      seed=self.random_state, **self._run_kwargs())
        self.doc_topic_counts_ = _dense(job.matrix("doc_topic.mtx"), X.shape[0], self.n_components)
        self.components_ = _dense(job.matrix("word_topic.mtx"), X.shape[1], self.n_components).T
        self.n_iter_ = job.info["iteration"]
        self.n_features_in_ = X.shape[1]
        self.job_ = job
        return self

    def fit_transform(self, X, y=None):
        """Fits and returns each document's topic distribution (rows sum to 1): the last
        sample's counts smoothed by the document-topic prior."""
        self.fit(X)
        alpha = self.doc_topic_prior if self.doc_topic_prior is not None else 0.1
        theta = self.doc_topic_counts_ + alpha
        return theta / theta.sum(axis=1, keepdims=True)

    def transform(self, X):
        raise NotImplementedError("strads.LDA gives the topics of the documents it is fitted on: "
                                  "use fit_transform(X)")


class MF(JobParamsMixin, BaseEstimator):
    __doc__ = """Matrix factorisation ``R ~ W H^T`` of the observed entries of a ratings matrix
    (``strads run mf``), by CCD++, stratified SGD or ALS, minimising
    ``sum_observed (r_ij - w_i h_j)^2 + lambda (sum_i n_i ||w_i||^2 + sum_j n_j ||h_j||^2)``,
    n_i and n_j the numbers of observed entries of row i and column j (the weighted form of
    LIBMF, ALS-WR and Spark's ALS; the job's default ``--regularization weighted``).

    ``fit(R)`` takes a users x items scipy sparse matrix whose stored entries are the observed
    ratings (or a dense array whose nonzeros are); ``fit(R, X_test=T)`` also measures the RMSE on
    the held-out ratings T (same shape) after every iteration, keeps the model of the best one and
    stops ``patience`` iterations after it (``--test``). Rows and columns of R without ratings
    are allowed: ``predict`` gives them the mean rating.

    ``implicit=True`` (with ``algorithm="als"``) fits implicit feedback instead (Hu, Koren and
    Volinsky 2008; Spark's ``implicitPrefs``): the stored entries are observation strengths
    (clicks, counts), every (user, item) pair has preference ``r_ij > 0`` and confidence
    ``1 + alpha |r_ij|`` (1 and preference 0 where nothing is stored), and the loss
    ``sum_all_pairs c_ij (p_ij - w_i h_j)^2`` runs over every pair. ``predict`` then scores
    preferences (0 for rows and columns without entries); rank items by it. ``X_test`` is
    refused: held-out entries are judged by ranking, not RMSE.

    Parameters
    ----------
    n_components : int, default 10
        Rank k (``--rank``).
    regularization : float, default 0.1
        lambda (``--lambda``).
    weighted_regularization : bool, default True
        Weight each row's and column's penalty by its number of ratings (LIBMF's, ALS-WR's and
        Spark's convention); False: ``lambda (||W||^2 + ||H||^2)`` (``--regularization``).
    algorithm : str, default "ccd"
        "ccd" (CCD++), "sgd" (LIBMF's steps) or "als" (exact rows, conjugate-gradient columns).
    max_iter : int, default 30
        Outer iterations (ccd) or epochs (sgd) (``--iterations``).
    learning_rate, decay : float
        sgd only: ``--learning-rate`` (LIBMF's adaptive steps; default 0.1), ``--decay``.
    patience : int or None
        With ``X_test``: stop this many iterations after the best test RMSE (``--patience``,
        default 5; 0: never).
    inner_iterations : int, default 1
        ccd only.
    cg_steps : int or None
        als only: conjugate-gradient steps per column and iteration (``--cg-steps``, default 3).
    implicit : bool, default False
        als only: implicit feedback (``--implicit``, above).
    alpha : float or None
        implicit only: the confidence's slope (``--alpha``, default 1).
    random_state : int or None
        ``--seed``.
""" + RUN_PARAMETERS + """
    Attributes
    ----------
    user_factors_ : ndarray of shape (n_users, n_components)  (W)
    components_ : ndarray of shape (n_components, n_items)  (H^T)
    n_iter_ : int
    mean_ : float, the mean training rating (the prediction where a row or column had none)
    test_rmse_ : float or None, with ``X_test``: the test RMSE of the model kept
    best_iteration_ : int or None, with ``X_test``: the iteration of the model kept
    job_ : strads.JobResult (its trace() has objective, train_rmse and test_rmse by iteration)
    """

    def __init__(self, n_components=10, *, regularization=0.1, weighted_regularization=True,
                 algorithm="ccd", max_iter=30, learning_rate=None, decay=None,
                 inner_iterations=None, cg_steps=None, implicit=False, alpha=None, patience=None,
                 random_state=None, n_workers=2, n_schedulers=1, coordinator=None,
                 max_seconds=0.0, verbose=True, tmp_dir=None):
        self.n_components = n_components
        self.regularization = regularization
        self.weighted_regularization = weighted_regularization
        self.patience = patience
        self.cg_steps = cg_steps
        self.implicit = implicit
        self.alpha = alpha
        self.algorithm = algorithm
        self.max_iter = max_iter
        self.learning_rate = learning_rate
        self.decay = decay
        self.inner_iterations = inner_iterations
        self.random_state = random_state
        self.n_workers = n_workers
        self.n_schedulers = n_schedulers
        self.coordinator = coordinator
        self.max_seconds = max_seconds
        self.verbose = verbose
        self.tmp_dir = tmp_dir

    def fit(self, X, y=None, *, X_test=None):
        X = check_X(X, estimator=self)
        if X_test is not None:
            X_test = check_X(X_test, estimator=self)
            if X_test.shape != X.shape:
                raise ValueError(f"X_test has shape {X_test.shape}, X {X.shape}: they must agree")
        with JobData(tmp_dir=self.tmp_dir) as files:
            job = run("mf", data=files.matrix("ratings.mtx", X),
                      test=None if X_test is None else files.matrix("test.mtx", X_test),
                      rank=self.n_components, lambda_=float(self.regularization),
                      regularization="weighted" if self.weighted_regularization else "plain",
                      algorithm=self.algorithm, iterations=self.max_iter,
                      learning_rate=self.learning_rate, decay=self.decay,
                      inner_iterations=self.inner_iterations, cg_steps=self.cg_steps,
                      implicit=bool(self.implicit),
                      alpha=None if self.alpha is None else float(self.alpha),
                      patience=self.patience,
                      seed=self.random_state, **self._run_kwargs())
        self.user_factors_ = np.asarray(job.matrix("W.mtx"))
        self.components_ = np.asarray(job.matrix("H.mtx")).T
        summary = job.summary()
        self.mean_ = float(summary["mean"])
        self.test_rmse_ = summary.get("test_rmse") if X_test is not None else None
        self.best_iteration_ = summary.get("model_iteration") if X_test is not None else None
        coo = sp.coo_matrix(X)
        self._seen_rows = np.bincount(coo.row, minlength=X.shape[0]) > 0
        self._seen_cols = np.bincount(coo.col, minlength=X.shape[1]) > 0
        self.n_iter_ = job.info["iteration"]
        self.n_features_in_ = X.shape[1]
        self.job_ = job
        return self

    def fit_transform(self, X, y=None):
        """Fits and returns the user factors W (n_users x n_components)."""
        return self.fit(X).user_factors_

    def predict(self, rows, cols):
        """The predicted ratings ``w_i . h_j`` of the (user, item) pairs given as index arrays
        (``mean_`` where row i or column j had no training ratings, as ``strads predict``)."""
        check_is_fitted(self, "components_")
        rows, cols = np.asarray(rows), np.asarray(cols)
        predicted = np.einsum("ij,ji->i", self.user_factors_[rows], self.components_[:, cols])
        seen = self._seen_rows[rows] & self._seen_cols[cols]
        return np.where(seen, predicted, self.mean_)


def _dense(matrix, rows, cols):
    """A result matrix as a dense float array of the given shape (mmread gives COO for
    coordinate files; a trailing empty row or column may be missing from its header)."""
    coo = sp.coo_matrix(matrix)
    out = np.zeros((rows, cols))
    np.add.at(out, (coo.row, coo.col), coo.data)
    return out
