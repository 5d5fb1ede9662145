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
    (``strads run mf``), by CCD++ or stratified SGD, minimising
    ``sum_observed (r_ij - w_i h_j)^2 + lambda (||W||^2 + ||H||^2)``.

    ``fit(R)`` takes a users x items scipy sparse matrix whose stored entries are the observed
    ratings (or a dense array whose nonzeros are).

    Parameters
    ----------
    n_components : int, default 10
        Rank k (``--rank``).
    regularization : float, default 0.1
        lambda (``--lambda``).
    algorithm : str, default "ccd"
        "ccd" (CCD++) or "sgd".
    max_iter : int, default 30
        Outer iterations (ccd) or epochs (sgd) (``--iterations``).
    learning_rate, decay : float
        sgd only: ``--learning-rate``, ``--decay``.
    inner_iterations : int, default 1
        ccd only.
    random_state : int or None
        ``--seed``.
""" + RUN_PARAMETERS + """
    Attributes
    ----------
    user_factors_ : ndarray of shape (n_users, n_components)  (W)
    components_ : ndarray of shape (n_components, n_items)  (H^T)
    n_iter_ : int
    job_ : strads.JobResult (its trace() has objective and train_rmse by iteration)
    """

    def __init__(self, n_components=10, *, regularization=0.1, algorithm="ccd", max_iter=30,
                 learning_rate=None, decay=None, inner_iterations=None, random_state=None,
                 n_workers=2, n_schedulers=1, coordinator=None, max_seconds=0.0, verbose=True,
                 tmp_dir=None):
        self.n_components = n_components
        self.regularization = regularization
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

    def fit(self, X, y=None):
        X = check_X(X, estimator=self)
        with JobData(tmp_dir=self.tmp_dir) as files:
            job = run("mf", data=files.matrix("ratings.mtx", X), rank=self.n_components,
                      lambda_=float(self.regularization), algorithm=self.algorithm,
                      iterations=self.max_iter, learning_rate=self.learning_rate,
                      decay=self.decay, inner_iterations=self.inner_iterations,
                      seed=self.random_state, **self._run_kwargs())
        self.user_factors_ = np.asarray(job.matrix("W.mtx"))
        self.components_ = np.asarray(job.matrix("H.mtx")).T
        self.n_iter_ = job.info["iteration"]
        self.n_features_in_ = X.shape[1]
        self.job_ = job
        return self

    def fit_transform(self, X, y=None):
        """Fits and returns the user factors W (n_users x n_components)."""
        return self.fit(X).user_factors_

    def predict(self, rows, cols):
        """The predicted ratings ``w_i . h_j`` of the (user, item) pairs given as index arrays."""
        check_is_fitted(self, "components_")
        rows, cols = np.asarray(rows), np.asarray(cols)
        return np.einsum("ij,ji->i", self.user_factors_[rows], self.components_[:, cols])


def _dense(matrix, rows, cols):
    """A result matrix as a dense float array of the given shape (mmread gives COO for
    coordinate files; a trailing empty row or column may be missing from its header)."""
    coo = sp.coo_matrix(matrix)
    out = np.zeros((rows, cols))
    np.add.at(out, (coo.row, coo.col), coo.data)
    return out
