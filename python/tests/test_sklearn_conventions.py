"""scikit-learn's own estimator checks (sklearn.utils.estimator_checks) on our estimators.

Every check that check_estimator generates runs, except those listed in SKIPPED with the reason
(differences by design, not bugs). LDA and MF are not checked: they are not sklearn-style
transformers of new data (LDA.transform refuses new documents; MF takes a ratings matrix).
"""
import warnings

import pytest

import strads

import sklearn.utils.estimator_checks as estimator_checks  # python3-sklearn: required

# By estimator class (None: every one).
SKIPPED = {
    ("LogisticRegression", "check_classifiers_one_label_sample_weights"): "no sample_weight",
    ("LinearSVC", "check_classifiers_one_label_sample_weights"): "no sample_weight",
    (None, "check_class_weight_classifiers"): "no class_weight",
    (None, "check_class_weight_balanced_linear_classifier"): "no class_weight",
}


def skip_reason(estimator, name):
    return SKIPPED.get((type(estimator).__name__, name), SKIPPED.get((None, name)))


def estimators():
    return [strads.Lasso(alpha=0.01, verbose=False),
            strads.LogisticRegression(verbose=False),
            strads.LinearSVC(verbose=False)]


def generated_checks():
    for estimator in estimators():
        for est, check in estimator_checks.check_estimator(estimator, generate_only=True):
            name = getattr(check, "func", check).__name__
            reason = skip_reason(est, name)
            yield pytest.param(est, check, id=f"{type(est).__name__}-{name}",
                               marks=[pytest.mark.skip(reason=reason)] if reason else [])


@pytest.mark.parametrize("estimator, check", list(generated_checks()))
def test_sklearn_estimator_check(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(estimator)
