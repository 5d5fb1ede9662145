"""Shared fixtures: small data sets, the CLI next to the build tree's package."""
import os
import subprocess

import numpy as np
import pytest


def strads_bin(name):
    """Path of a built executable (STRADS_BIN_DIR, set by CTest; else build/bin)."""
    here = os.path.dirname(os.path.abspath(__file__))
    bin_dir = os.environ.get("STRADS_BIN_DIR", os.path.join(here, "..", "..", "build", "bin"))
    return os.path.join(bin_dir, name)


def cli(*args):
    """Runs the CLI; returns (exit code, stdout, stderr)."""
    done = subprocess.run([strads_bin("strads"), *args], capture_output=True, text=True,
                          timeout=120, check=False)
    return done.returncode, done.stdout, done.stderr


@pytest.fixture
def regression_data():
    """200 x 30 dense regression problem with a sparse truth and an offset."""
    rng = np.random.default_rng(7)
    X = rng.standard_normal((200, 30)) + 0.5
    w = np.zeros(30)
    w[[0, 3, 7]] = [2.0, -1.5, 1.0]
    y = X @ w + 3.0 + 0.1 * rng.standard_normal(200)
    return X, y


@pytest.fixture
def classification_data():
    """300 x 20 binary problem with string labels."""
    rng = np.random.default_rng(3)
    X = rng.standard_normal((300, 20))
    w = np.zeros(20)
    w[:4] = [1.5, -2.0, 1.0, 0.5]
    margin = X @ w + 0.3 + 0.5 * rng.standard_normal(300)
    y = np.where(margin > 0, "spam", "ham")
    return X, y


def write_libsvm(path, X, y):
    with open(path, "w") as f:
        for row, label in zip(X, y):
            f.write(repr(float(label)) + " " +
                    " ".join(f"{j + 1}:{v!r}" for j, v in enumerate(row)) + "\n")
    return str(path)


@pytest.fixture
def libsvm_file(tmp_path, regression_data):
    return write_libsvm(tmp_path / "train.svm", *regression_data)


@pytest.fixture
def classification_file(tmp_path, classification_data):
    X, y = classification_data
    return write_libsvm(tmp_path / "classes.svm", X, np.where(y == "spam", 1, -1))
