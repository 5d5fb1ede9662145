"""strads._core and strads.run: jobs on the embedded cluster, progress, errors, Ctrl-C."""
import os
import re
import signal
import threading

import numpy as np
import pytest

import strads
from strads import _core
from conftest import cli


def test_run_returns_the_jobs_info_and_files(libsvm_file):
    job = strads.run("lasso", data=libsvm_file, lambda_=5.0, verbose=False)
    assert job.info["state"] == "SUCCEEDED"
    assert job.info["converged"]
    assert set(job.files) == {"coefficients.tsv", "trace.csv", "summary.json"}
    coef = job.coefficients(30)
    assert coef.shape == (30,) and np.count_nonzero(coef) > 0
    assert job.summary()["objective"] == pytest.approx(job.info["objective"])
    trace = job.trace()
    assert list(trace["objective"])[-1] == pytest.approx(job.info["objective"])


def test_options_are_the_clis_flags(libsvm_file):
    flags = _core.parse_job_spec("lasso", strads._jobs.option_args(
        {"data": libsvm_file, "lambda_": 0.1, "max_seconds": 2.5, "exact_shares": True,
         "format": None}))
    assert flags["lambda"] == "0.1" and flags["max-seconds"] == "2.5"
    assert flags["exact-shares"] == "true" and flags["format"] == ""  # None: left out


@pytest.mark.parametrize("app, options, cli_args", [
    ("lasso", {"lambda_": -1.0}, ["--lambda", "-1.0"]),
    ("lasso", {"lambda_": 1.0, "chord_size": "many"}, ["--lambda", "1.0", "--chord-size", "many"]),
    ("lasso", {"lambda_": 1.0, "topics": 3}, ["--lambda", "1.0", "--topics", "3"]),
    ("lasso", {}, []),
    ("nosuchapp", {}, []),
])
def test_bad_options_raise_value_error_with_the_clis_message(libsvm_file, app, options,
                                                              cli_args):
    code, _, stderr = cli("run", app, "--data", libsvm_file, *cli_args)
    assert code == 2
    cli_message = stderr.splitlines()[0].removeprefix("strads: ")
    with pytest.raises(ValueError) as raised:
        strads.run(app, data=libsvm_file, verbose=False, **options)
    assert str(raised.value) == cli_message


def test_a_failed_job_raises_job_failed_with_the_clis_message(tmp_path):
    bad = tmp_path / "bad.svm"
    bad.write_text("1 1:0.5\n2 x:y\n")
    code, stdout, _ = cli("run", "lasso", "--data", str(bad), "--lambda", "1", "--quiet",
                          "--output", str(tmp_path / "out"))
    assert code == 1
    with pytest.raises(strads.JobFailed) as raised:
        strads.run("lasso", data=str(bad), lambda_=1.0, verbose=False)
    # The CLI's line; which member reports the bad line first (scheduler-0, worker-1...) varies.
    member = re.compile(r": (scheduler|worker)-\d+: ")
    assert member.sub(": M: ", str(raised.value)) == member.sub(": M: ", stdout.splitlines()[0])
    assert "bad.svm:2" in str(raised.value)


def test_progress_callback_sees_the_running_job(classification_file):
    seen = []
    reply = _core.run("logistic", ["--data", classification_file, "--lambda", "0.01",
                                   "--tolerance", "1e-300", "--max-updates", "200000"],
                      progress=seen.append)
    assert reply["info"]["state"] == "SUCCEEDED"
    assert seen and all(s["state"] in ("QUEUED", "LOADING", "RUNNING") for s in seen)
    assert all(s["app"] == "logistic" for s in seen)


def long_job(data, progress):
    """A job that runs until cancelled (logistic to a relative violation of 1e-300 does not
    converge: rounding leaves more; 60 s bound)."""
    return _core.run("logistic", ["--data", data, "--lambda", "0.01", "--tolerance", "1e-300",
                                  "--max-seconds", "60"], progress=progress)


def test_ctrl_c_cancels_the_job_and_raises_keyboard_interrupt(classification_file, libsvm_file):
    calls = []

    def interrupt_once_running(info):
        calls.append(info["state"])
        if info["state"] == "RUNNING" and calls.count("RUNNING") == 1:
            os.kill(os.getpid(), signal.SIGINT)  # what Ctrl-C does

    with pytest.raises(KeyboardInterrupt):
        long_job(classification_file, interrupt_once_running)
    # The job was stopped (not left running for 60 s) and the process can run the next one.
    assert calls.count("RUNNING") <= 2
    job = strads.run("lasso", data=libsvm_file, lambda_=5.0, verbose=False)
    assert job.info["state"] == "SUCCEEDED"


def test_ctrl_c_without_a_progress_callback_cancels_the_job(classification_file):
    # The signal arrives while the GIL is released (no Python code runs): the wait loop checks
    # for it (PyErr_CheckSignals) every 200 ms.
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            long_job(classification_file, None)
    finally:
        timer.cancel()


def test_an_exception_in_the_progress_callback_cancels_the_job(classification_file):
    def fail(info):
        raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        long_job(classification_file, fail)


def test_write_coordinate_keeps_every_double_exactly(tmp_path):
    import scipy.io
    import scipy.sparse as sp

    rng = np.random.default_rng(1)
    A = sp.random(7, 5, density=0.5, random_state=2, format="coo") * np.pi
    A.data[0] = 1e-300
    path = str(tmp_path / "a.mtx")
    _core.write_coordinate(path, "mm", 7, 5, A.row, A.col, A.data)
    back = scipy.io.mmread(path).tocsr()
    assert back.shape == (7, 5)
    assert (back != A.tocsr()).nnz == 0
    y = rng.standard_normal(9)
    _core.write_labels(str(tmp_path / "y.txt"), y)
    assert np.array_equal(np.loadtxt(tmp_path / "y.txt"), y)
