"""The estimators against scikit-learn (same objective, same minimiser) and its API conventions."""
import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import strads

import sklearn  # python3-sklearn (deploy/install-deps.sh): without it the suite fails
import sklearn.exceptions
from sklearn import linear_model, svm  # noqa: E402
from sklearn.base import clone  # noqa: E402

QUIET = dict(verbose=False)


@pytest.mark.parametrize("tol", [1e-9, None])  # None: the default (the README's claim)
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_lasso_reaches_sklearns_coefficients(regression_data, fit_intercept, tol):
    X, y = regression_data
    ours = strads.Lasso(alpha=0.05, fit_intercept=fit_intercept, max_iter=100000, **QUIET)
    if tol is not None:
        ours.set_params(tol=tol)
    ours.fit(X, y)
    theirs = linear_model.Lasso(alpha=0.05, fit_intercept=fit_intercept, tol=1e-14,
                                max_iter=100000).fit(X, y)
    assert ours.job_.info["converged"]
    atol = 1e-6 if tol is not None else 1e-5
    np.testing.assert_allclose(ours.coef_, theirs.coef_, rtol=0, atol=atol)
    assert ours.intercept_ == pytest.approx(theirs.intercept_, abs=atol)
    assert 0 < np.count_nonzero(ours.coef_) < X.shape[1]
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X), atol=10 * atol)


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("sparse", [False, True])
def test_lasso_dual_gap_is_sklearns_for_the_same_coefficients(regression_data, fit_intercept,
                                                              sparse):
    X, y = regression_data
    X = np.where(np.abs(X) > 0.7, X, 0.0)
    with warnings.catch_warnings():  # stopped early on purpose, so that the gap is not ~0
        warnings.simplefilter("ignore")
        theirs = linear_model.Lasso(alpha=0.01, fit_intercept=fit_intercept, max_iter=3,
                                    tol=1e-12).fit(X, y)
    assert theirs.dual_gap_ > 1e-6
    gap = strads.linear_model.lasso_dual_gap(sp.csr_matrix(X) if sparse else X, y, theirs.coef_,
                                             0.01, fit_intercept)
    assert gap == pytest.approx(theirs.dual_gap_, rel=1e-9)
    ours = strads.Lasso(alpha=0.01, fit_intercept=fit_intercept, tol=1e-9, max_iter=100000,
                        **QUIET).fit(X, y)
    r = y - ours.predict(X)
    primal = 0.5 * (r @ r) / X.shape[0] + 0.01 * np.abs(ours.coef_).sum()
    assert 0 <= ours.dual_gap_ < 1e-7 * primal  # at tol 1e-9: ~2e-8 relative


def test_a_fit_stopped_by_max_iter_warns_with_the_violation(regression_data, classification_data):
    X, y = regression_data
    with pytest.warns(strads.ConvergenceWarning, match=r"Lasso did not converge: stopped by "
                      r"max_iter=1 \(30 updates over 30 features\) at the optimality violation"):
        strads.Lasso(alpha=0.01, max_iter=1, **QUIET).fit(X, y)
    assert issubclass(strads.ConvergenceWarning, sklearn.exceptions.ConvergenceWarning)
    X, y = classification_data
    with pytest.warns(strads.ConvergenceWarning, match="LinearSVC did not converge"):
        strads.LinearSVC(max_iter=1, **QUIET).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a converged fit does not warn
        strads.LogisticRegression(**QUIET).fit(X, y)
        strads.Lasso(alpha=0.01, **QUIET).fit(*regression_data)


def test_lasso_lambda_is_n_times_alpha(regression_data):
    X, y = regression_data
    model = strads.Lasso(alpha=0.05, **QUIET).fit(X, y)
    assert float(model.job_.summary()["flags"]["lambda"]) == pytest.approx(200 * 0.05)


def test_lasso_on_sparse_input_equals_dense(regression_data):
    X, y = regression_data
    X = np.where(np.abs(X) > 1.0, X, 0.0)
    dense = strads.Lasso(alpha=0.02, fit_intercept=False, **QUIET)
    sparse = clone(dense)
    np.testing.assert_allclose(dense.fit(X, y).coef_, sparse.fit(sp.csr_matrix(X), y).coef_,
                               atol=1e-8)
    centred = strads.Lasso(alpha=0.02, tol=1e-9, max_iter=100000, **QUIET)
    np.testing.assert_allclose(centred.fit(sp.csc_matrix(X), y).coef_,
                               linear_model.Lasso(alpha=0.02, tol=1e-14, max_iter=100000)
                               .fit(X, y).coef_, atol=1e-6)


def _no_files(*args, **kwargs):
    raise AssertionError("an embedded fit wrote a data file")


@pytest.mark.parametrize("layout", [
    lambda X: np.asfortranarray(X),
    lambda X: sp.csr_matrix(X),
    lambda X: sp.csc_matrix(X),
    lambda X: sp.coo_matrix(X),
    lambda X: _with_int64_indices(sp.csc_matrix(X)),
    lambda X: _unsorted_with_repeats(sp.csr_matrix(X)),
], ids=["fortran", "csr", "csc", "coo", "csc-int64", "csr-unsorted"])
def test_every_layout_is_read_in_memory_and_gives_the_dense_fit(regression_data, layout,
                                                              monkeypatch):
    X, y = regression_data
    X = np.where(np.abs(X) > 0.7, X, 0.0)
    model = strads.Lasso(alpha=0.02, fit_intercept=False, tol=1e-9, max_iter=100000,
                         random_state=0, **QUIET)
    expected = clone(model).fit(X, y).coef_
    monkeypatch.setattr(strads._core, "write_coordinate", _no_files)
    monkeypatch.setattr(strads._core, "write_labels", _no_files)
    np.testing.assert_allclose(clone(model).fit(layout(X), y).coef_, expected, atol=1e-12)


def _with_int64_indices(X):
    X.indices, X.indptr = X.indices.astype(np.int64), X.indptr.astype(np.int64)
    return X


def _unsorted_with_repeats(X):
    """X as a CSR matrix whose rows hold their columns in reverse, each entry split in two."""
    rows, cols, values = [], [], []
    for r in range(X.shape[0]):
        row = X.getrow(r)
        for c, v in zip(row.indices[::-1], row.data[::-1]):
            rows += [r, r]
            cols += [c, c]
            values += [v / 2, v / 2]
    out = sp.csr_matrix((values, (rows, cols)), shape=X.shape)
    out.indices, out.data = out.indices.copy(), out.data.copy()
    out.has_canonical_format = False
    return out


def test_logistic_regression_reaches_liblinears_minimiser(classification_data):
    X, y = classification_data
    ours = strads.LogisticRegression(C=0.5, tol=1e-9, max_iter=100000, **QUIET).fit(X, y)
    theirs = linear_model.LogisticRegression(penalty="l1", C=0.5, solver="liblinear",
                                             tol=1e-8, max_iter=10000).fit(X, y)
    assert list(ours.classes_) == ["ham", "spam"]
    assert ours.coef_.shape == (1, 20) and ours.intercept_.shape == (1,)
    np.testing.assert_allclose(ours.coef_, theirs.coef_, atol=1e-4)
    np.testing.assert_allclose(ours.intercept_, theirs.intercept_, atol=1e-4)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-4)
    assert np.mean(ours.predict(X) == theirs.predict(X)) > 0.99
    assert ours.predict_proba(X).sum(axis=1) == pytest.approx(np.ones(300))


@pytest.mark.parametrize("penalty", ["l2", "l1"])
def test_linear_svc_reaches_liblinears_minimiser(classification_data, penalty):
    X, y = classification_data
    ours = strads.LinearSVC(penalty=penalty, dual=penalty == "l2", C=0.1, tol=1e-9, max_iter=100000,
                            **QUIET).fit(X, y)
    theirs = svm.LinearSVC(penalty=penalty, C=0.1, dual=False, tol=1e-8,
                           max_iter=10000).fit(X, y)
    # liblinear's l1 solver stops short of the minimiser (ConvergenceWarning): compare the
    # objective, ours no higher, and the coefficients loosely.
    def objective(model):
        w = np.append(model.coef_.ravel(), model.intercept_)
        margins = np.where(y == "spam", 1, -1) * model.decision_function(X)
        penalty_term = np.abs(w).sum() if penalty == "l1" else 0.5 * w @ w
        return np.sum(np.maximum(0, 1 - margins) ** 2) + penalty_term / 0.1

    assert objective(ours) <= objective(theirs) * (1 + 1e-9)
    assert objective(ours) == pytest.approx(objective(theirs), rel=1e-5)
    np.testing.assert_allclose(ours.coef_, theirs.coef_, atol=5e-3)
    np.testing.assert_allclose(ours.intercept_, theirs.intercept_, atol=5e-3)


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_lasso_positive_is_sklearns(regression_data, fit_intercept):
    X, y = regression_data
    ours = strads.Lasso(alpha=0.02, positive=True, fit_intercept=fit_intercept, tol=1e-9,
                        max_iter=100000, **QUIET).fit(X, y)
    theirs = linear_model.Lasso(alpha=0.02, positive=True, fit_intercept=fit_intercept, tol=1e-14,
                                max_iter=100000).fit(X, y)
    assert np.all(ours.coef_ >= 0) and np.any(theirs.coef_ == 0)
    np.testing.assert_allclose(ours.coef_, theirs.coef_, atol=1e-6)
    assert ours.intercept_ == pytest.approx(theirs.intercept_, abs=1e-6)
    assert 0 <= ours.dual_gap_ < 1e-7
    assert ours.job_.summary()["flags"]["positive"] == "true"


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("sparse", [False, True])
def test_lasso_sample_weight_is_sklearns(regression_data, fit_intercept, sparse):
    X, y = regression_data
    X = np.where(np.abs(X) > 0.7, X, 0.0)
    weights = np.random.default_rng(1).uniform(0, 3, X.shape[0])
    weights[:10] = 0.0
    Xs = sp.csr_matrix(X) if sparse else X
    ours = strads.Lasso(alpha=0.02, fit_intercept=fit_intercept, tol=1e-9, max_iter=100000,
                        **QUIET).fit(Xs, y, sample_weight=weights)
    theirs = linear_model.Lasso(alpha=0.02, fit_intercept=fit_intercept, tol=1e-14,
                                max_iter=100000).fit(X, y, sample_weight=weights)
    np.testing.assert_allclose(ours.coef_, theirs.coef_, atol=1e-6)
    assert ours.intercept_ == pytest.approx(theirs.intercept_, abs=1e-6)
    assert 0 <= ours.dual_gap_ < 1e-7 and 0 <= theirs.dual_gap_ < 1e-7
    # Unit weights are no weights; a zero weight is a row left out.
    unit = clone(ours).fit(Xs, y, sample_weight=np.ones(X.shape[0]))
    np.testing.assert_allclose(unit.coef_, clone(ours).fit(Xs, y).coef_, atol=1e-6)
    with pytest.raises(ValueError, match="Negative values in data passed to `sample_weight`"):
        clone(ours).fit(X, y, sample_weight=-weights)
    with pytest.raises(ValueError, match="sample_weight.shape"):
        clone(ours).fit(X, y, sample_weight=weights[1:])


def test_lasso_refuses_a_gram_matrix(regression_data):
    X, y = regression_data
    with pytest.raises(ValueError, match="Gram matrix is not used"):
        strads.Lasso(precompute=X.T @ X, **QUIET).fit(X, y)
    strads.Lasso(precompute=True, **QUIET).fit(X, y)  # accepted, no effect


@pytest.mark.parametrize("penalty", ["l2", None])
def test_logistic_regression_l2_and_unpenalised_are_sklearns(classification_data, penalty):
    X, y = classification_data
    ours = strads.LogisticRegression(penalty=penalty, C=0.5, tol=1e-9, max_iter=100000,
                                     **QUIET).fit(X, y)
    if penalty == "l2":  # liblinear penalises the intercept, as we do
        theirs = linear_model.LogisticRegression(penalty="l2", C=0.5, solver="liblinear",
                                                 tol=1e-10, max_iter=100000).fit(X, y)
    else:  # nothing penalised: lbfgs's minimiser
        theirs = linear_model.LogisticRegression(penalty=None, solver="lbfgs", tol=1e-12,
                                                 max_iter=100000).fit(X, y)
    assert np.count_nonzero(ours.coef_) == X.shape[1]
    # Unpenalised, the data nearly separable: coefficients up to ~20, loosely determined.
    rtol = 1e-4 if penalty else 1e-3
    np.testing.assert_allclose(ours.coef_, theirs.coef_, rtol=rtol, atol=1e-4)
    np.testing.assert_allclose(ours.intercept_, theirs.intercept_, rtol=rtol, atol=1e-4)


def test_dual_is_accepted_where_liblinear_has_it(classification_data):
    X, y = classification_data
    with pytest.raises(ValueError, match="The combination of penalty='l1' and "
                                         "loss='squared_hinge' are not supported when dual=True"):
        strads.LinearSVC(penalty="l1", **QUIET).fit(X, y)
    with pytest.raises(ValueError, match="penalty='l1' and loss='logistic_regression'"):
        strads.LogisticRegression(penalty="l1", dual=True, **QUIET).fit(X, y)
    primal = strads.LogisticRegression(penalty="l2", random_state=0, **QUIET).fit(X, y)
    dual = strads.LogisticRegression(penalty="l2", dual=True, random_state=0, **QUIET).fit(X, y)
    np.testing.assert_array_equal(primal.coef_, dual.coef_)


def test_sparsify_and_densify_keep_the_predictions(classification_data):
    X, y = classification_data
    model = strads.LogisticRegression(C=0.05, **QUIET).fit(X, y)
    dense_scores = model.decision_function(X)
    nonzeros = np.count_nonzero(model.coef_)
    assert nonzeros < X.shape[1]
    assert model.sparsify() is model and sp.issparse(model.coef_)
    assert model.coef_.nnz == nonzeros
    np.testing.assert_allclose(model.decision_function(X), dense_scores)
    np.testing.assert_allclose(model.decision_function(sp.csr_matrix(X)), dense_scores)
    assert model.densify() is model and isinstance(model.coef_, np.ndarray)
    np.testing.assert_allclose(model.decision_function(X), dense_scores)


def test_classifier_on_sparse_input_equals_dense(classification_data):
    X, y = classification_data
    X = np.where(np.abs(X) > 0.8, X, 0.0)
    # A random_state makes both fits take the same path (checks every n_features updates).
    model = strads.LogisticRegression(C=1.0, tol=1e-9, max_iter=100000, random_state=0, **QUIET)
    dense = clone(model).fit(X, y)
    sparse = clone(model).fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(dense.coef_, sparse.coef_, atol=1e-8)
    np.testing.assert_allclose(dense.predict_proba(sp.csr_matrix(X)),
                               sparse.predict_proba(X), atol=1e-8)


def test_get_params_set_params_and_clone():
    model = strads.Lasso(alpha=0.3, n_workers=3, verbose=False)
    params = model.get_params()
    assert params["alpha"] == 0.3 and params["n_workers"] == 3 and params["fit_intercept"]
    assert model.set_params(alpha=0.7, max_iter=5) is model
    assert model.alpha == 0.7 and model.max_iter == 5
    copy = clone(model)
    assert copy is not model and copy.get_params() == model.get_params()
    with pytest.raises(ValueError, match="Invalid parameter"):
        model.set_params(lambda_=1.0)


@pytest.mark.parametrize("make", [
    lambda: strads.Lasso(alpha=0.05, **QUIET),
    lambda: strads.LogisticRegression(C=1.0, **QUIET),
    lambda: strads.LinearSVC(C=1.0, **QUIET),
])
def test_a_fitted_model_pickles(regression_data, classification_data, make):
    model = make()
    X, y = regression_data if isinstance(model, strads.Lasso) else classification_data
    model.fit(X, y)
    back = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(back.predict(X), model.predict(X))
    assert back.job_.info == model.job_.info


@pytest.mark.parametrize("model, message", [
    (strads.Lasso(schedule="diagonal"), "--schedule"),
    (strads.LinearSVC(loss="hinge"), "hinge"),
])
def test_bad_parameters_raise_value_error_with_the_clis_message(regression_data, model, message):
    X, y = regression_data
    y = y > np.median(y) if not isinstance(model, strads.Lasso) else y
    with pytest.raises(ValueError, match=message):
        model.set_params(verbose=False).fit(X, y)


def test_bad_input_raises_value_error():
    X = np.ones((10, 3))
    with pytest.raises(ValueError):
        strads.Lasso(**QUIET).fit(X, np.ones(9))
    X[0, 0] = np.nan
    with pytest.raises(ValueError):
        strads.Lasso(**QUIET).fit(X, np.ones(10))
    with pytest.raises(ValueError, match="only one class"):
        strads.LogisticRegression(**QUIET).fit(np.eye(3), [1, 1, 1])


def test_more_classes_are_one_vs_rest(classification_data):
    X, _ = classification_data
    y = np.argmax(X[:, :3], axis=1)
    ours = strads.LogisticRegression(C=1.0, tol=1e-9, **QUIET).fit(X, y)
    theirs = linear_model.LogisticRegression(penalty="l1", C=1.0, solver="liblinear",
                                             tol=1e-8, max_iter=10000).fit(X, y)
    assert ours.coef_.shape == (3, 20) and ours.intercept_.shape == (3,)
    np.testing.assert_allclose(ours.coef_, theirs.coef_, atol=1e-4)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-4)
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))


def test_lda_topics_conserve_the_tokens():
    rng = np.random.default_rng(5)
    # Two clear topics: words 0-9 and 10-19.
    docs = np.zeros((40, 20), dtype=int)
    for d in range(40):
        words = rng.integers(0, 10, 30) + (10 if d % 2 else 0)
        np.add.at(docs[d], words, 1)
    lda = strads.LDA(n_components=2, max_iter=20, random_state=3, **QUIET)
    theta = lda.fit_transform(sp.csr_matrix(docs))
    assert theta.shape == (40, 2)
    np.testing.assert_allclose(theta.sum(axis=1), 1.0)
    assert lda.components_.shape == (2, 20)
    assert lda.components_.sum() == docs.sum() == lda.doc_topic_counts_.sum()
    np.testing.assert_array_equal(lda.doc_topic_counts_.sum(axis=1), docs.sum(axis=1))
    # Each document's main topic separates the two halves.
    main = theta.argmax(axis=1)
    assert len(set(main[::2])) == 1 and len(set(main[1::2])) == 1 and main[0] != main[1]
    trace = lda.job_.trace()
    assert list(trace["loglik_per_token"])[-1] > list(trace["loglik_per_token"])[0]


@pytest.mark.parametrize("algorithm", ["ccd", "sgd", "als"])
def test_mf_factors_fit_a_low_rank_matrix(algorithm):
    rng = np.random.default_rng(2)
    U, V = rng.random((40, 2)) + 0.5, rng.random((30, 2)) + 0.5
    full = U @ V.T
    mask = rng.random(full.shape) < 0.6
    R = sp.csr_matrix(np.where(mask, full, 0.0))
    mf = strads.MF(n_components=2, regularization=0.01, algorithm=algorithm, max_iter=40,
                   random_state=1, **QUIET)
    W = mf.fit_transform(R)
    assert W.shape == (40, 2) and mf.components_.shape == (2, 30)
    rows, cols = R.nonzero()
    predicted = mf.predict(rows, cols)
    np.testing.assert_allclose(predicted, (W @ mf.components_)[rows, cols])
    rmse = np.sqrt(np.mean((predicted - np.asarray(R[rows, cols]).ravel()) ** 2))
    trace = mf.job_.trace()
    assert rmse == pytest.approx(list(trace["train_rmse"])[-1], rel=1e-3)
    assert rmse < 0.15 * np.std(full)


def test_mf_implicit_ranks_held_out_clicks_above_the_others():
    # Two groups of users, each clicking about half of its own group's items (counts 1-3) and
    # nothing else; user 11 clicked nothing.
    rng = np.random.default_rng(4)
    group_user = np.repeat([0, 1], 12)
    group_item = np.repeat([0, 1], 10)
    same = group_user[:, None] == group_item[None, :]
    clicks = np.where(same & (rng.random(same.shape) < 0.5), rng.integers(1, 4, same.shape), 0)
    clicks[11, :] = 0
    R = sp.csr_matrix(clicks.astype(float))
    mf = strads.MF(n_components=2, regularization=0.05, algorithm="als", implicit=True, alpha=5.0,
                   max_iter=10, random_state=1, **QUIET).fit(R)
    scores = mf.user_factors_ @ mf.components_
    unclicked = clicks == 0
    for u in range(24):
        if u == 11:
            continue
        own = scores[u, same[u] & unclicked[u]]
        other = scores[u, ~same[u]]
        assert own.size == 0 or own.min() > other.max(), u
    assert mf.mean_ == 0 and mf.predict([11], [0]).tolist() == [0.0]
    summary = mf.job_.summary()
    assert summary["implicit"] is True and summary["alpha"] == 5.0
    objective = list(mf.job_.trace()["objective"])
    assert all(b <= a * (1 + 1e-12) for a, b in zip(objective, objective[1:]))
    with pytest.raises(ValueError, match="--implicit: --test"):
        strads.MF(algorithm="als", implicit=True, **QUIET).fit(R, X_test=R)
    with pytest.raises(ValueError, match="--implicit needs --algorithm als"):
        strads.MF(implicit=True, **QUIET).fit(R)


def test_mf_held_out_rows_without_ratings_and_plain_regularization():
    rng = np.random.default_rng(3)
    U, V = rng.random((40, 2)) + 0.5, rng.random((30, 2)) + 0.5
    full = U @ V.T + 0.3 * rng.standard_normal((40, 30))
    draw = rng.random(full.shape)
    train = np.where(draw < 0.5, full, 0.0)
    train[7, :] = 0.0  # a user without training ratings
    test = np.where((draw >= 0.5) & (draw < 0.7), full, 0.0)
    test[7, 3] = full[7, 3]
    R, T = sp.csr_matrix(train), sp.csr_matrix(test)
    mf = strads.MF(n_components=8, regularization=0.001, algorithm="sgd", max_iter=40,
                   patience=3, random_state=1, **QUIET)
    mf.fit(R, X_test=T)
    assert mf.mean_ == pytest.approx(R.data.mean())
    assert mf.predict([7, 7], [3, 4]).tolist() == [mf.mean_, mf.mean_]
    assert np.all(mf.user_factors_[7] == 0)
    # The model kept is the best of the trace's test RMSEs, and it ended 3 iterations after it.
    trace = mf.job_.trace()
    test_rmse = list(trace["test_rmse"])
    assert mf.test_rmse_ == pytest.approx(min(test_rmse), rel=1e-9)
    assert mf.best_iteration_ == int(np.argmin(test_rmse))
    assert mf.n_iter_ == min(40, mf.best_iteration_ + 3)
    rows, cols = T.nonzero()
    rmse = np.sqrt(np.mean((mf.predict(rows, cols) - np.asarray(T[rows, cols]).ravel()) ** 2))
    assert rmse == pytest.approx(mf.test_rmse_, rel=1e-5)
    summary = mf.job_.summary()
    assert summary["empty_rows"] == 1 and summary["regularization"] == "weighted"

    plain = strads.MF(n_components=2, regularization=0.1, weighted_regularization=False,
                      max_iter=3, random_state=1, **QUIET).fit(R)
    assert plain.job_.summary()["regularization"] == "plain"
    with pytest.raises(ValueError, match="X_test has shape"):
        strads.MF(**QUIET).fit(R, X_test=sp.csr_matrix((3, 3)))


# scikit-learn's texts where its own tests pin them (python/tests/sklearn_upstream).
@pytest.mark.parametrize("model, message", [
    (strads.Lasso(alpha=-1.0), r"^The 'alpha' parameter of Lasso must be a float in the range "
                               r"\[0, inf\). Got -1.0 instead.$"),
    (strads.LogisticRegression(penalty="elasticnet"), "Unsupported set of arguments: The "
     "combination of penalty='elasticnet' and loss='logistic_regression' is not supported"),
    (strads.LogisticRegression(dual=True), "penalty='l1' and loss='logistic_regression' are not "
                                           "supported when dual=True"),
    (strads.LinearSVC(penalty="l1", loss="hinge"), "Unsupported set of arguments.*penalty='l1.*"
                                                   "loss='hinge.*dual=True"),
    (strads.LinearSVC(loss="hinge", dual=False), "penalty='l2' and loss='hinge' are not "
                                                 "supported when dual=False"),
    (strads.LinearSVC(penalty="l1", dual=True), "penalty='l1' and loss='squared_hinge' are not "
                                                "supported when dual=True"),
    (strads.LogisticRegression(solver="lbfgs"), "solver='lbfgs' is not supported: strads has "
                                                "one solver"),
    (strads.LogisticRegression(multi_class="multinomial"), "Solver liblinear does not support a "
                                                           "multinomial backend"),
    (strads.LinearSVC(multi_class="crammer_singer"), "multi_class='crammer_singer' is not "
                                                     "supported: strads fits one-vs-rest"),
    (strads.LogisticRegression(class_weight="balanced"), "class_weight='balanced' is not "
     "supported.*use scikit-learn's LogisticRegression for a weighted fit"),
    (strads.LinearSVC(class_weight={0: 2.0}), "class_weight=.* is not supported.*LinearSVC"),
])
def test_bad_parameters_raise_scikit_learns_error_texts(regression_data, model, message):
    X, y = regression_data
    y = y > np.median(y) if not isinstance(model, strads.Lasso) else y
    with pytest.raises(ValueError, match=message):
        model.set_params(verbose=False).fit(X, y)


def test_parameters_that_only_warn_say_so_as_scikit_learn(regression_data, classification_data):
    with pytest.warns(UserWarning, match="With alpha=0, this algorithm does not converge well"):
        strads.Lasso(alpha=0, max_iter=5, **QUIET).fit(*regression_data)
    with pytest.warns(UserWarning, match="Setting penalty=None will ignore the C"):
        strads.LogisticRegression(penalty=None, C=4, max_iter=5, **QUIET).fit(
            *classification_data)
    model = strads.LogisticRegression(solver="liblinear", multi_class="ovr", **QUIET)
    assert model.fit(*classification_data).solver == "liblinear"
