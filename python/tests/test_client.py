"""strads.Client and the estimators' coordinator= against a real cluster of daemons on loopback
(deploy/strads-cluster start --port 0), stopped after the module."""
import contextlib
import io
import os
import re
import signal
import subprocess
import sys

import numpy as np
import pytest

import strads
from conftest import cli, strads_bin

LAUNCHER = os.path.join(os.path.dirname(__file__), "..", "..", "deploy", "strads-cluster")


@contextlib.contextmanager
def cluster(tmp, keygen=False):
    """A loopback cluster started by the launcher in `tmp` (with keys after `keygen`: the
    client's key pair and the cluster's public key then are in tmp/client); yields its endpoint."""
    env = dict(os.environ, HOME=str(tmp))  # the launcher's defaults never touch the real ~/.strads
    (tmp / "hosts").write_text("127.0.0.1 coordinator scheduler=1 worker=2\n")
    common = ["--run-dir", str(tmp / "run"), "--bin-dir", os.path.dirname(strads_bin("strads"))]
    if keygen:
        made = subprocess.run(["bash", LAUNCHER, "keygen", "--client-dir", str(tmp / "client"),
                               *common], capture_output=True, text=True, env=env, timeout=60,
                              check=False)
        assert made.returncode == 0, made.stderr
    started = subprocess.run(["bash", LAUNCHER, "start", "--hostfile", str(tmp / "hosts"),
                              "--port", "0", "--timeout", "20", "--log-level", "warn", *common],
                             capture_output=True, text=True, env=env, timeout=60, check=False)
    try:
        assert started.returncode == 0, started.stderr
        endpoint = re.search(r"STRADS_COORDINATOR='?(tcp://[^'\s]+)", started.stdout).group(1)
        yield endpoint
    finally:
        subprocess.run(["bash", LAUNCHER, "stop", *common], capture_output=True, env=env,
                       timeout=60, check=False)
        for pid_file in (tmp / "run" / "pids").glob("*") if (tmp / "run" / "pids").exists() else []:
            try:  # whatever stop could not end, by its recorded pid
                os.kill(int(pid_file.read_text().split()[0]), signal.SIGKILL)
            except (ValueError, ProcessLookupError, IndexError):
                pass


@pytest.fixture(scope="module")
def coordinator(tmp_path_factory):
    with cluster(tmp_path_factory.mktemp("cluster")) as endpoint:
        yield endpoint


def test_submit_wait_result(coordinator, libsvm_file):
    client = strads.Client(coordinator, timeout=20)  # a loaded machine answers slowly
    job_id = client.submit("lasso", data=libsvm_file, lambda_=5.0)
    info = client.wait(job_id, verbose=False)
    assert info["state"] == "SUCCEEDED" and info["job_id"] == job_id
    result = client.result(job_id)
    assert result.coefficients(30).shape == (30,)
    embedded = strads.run("lasso", data=libsvm_file, lambda_=5.0, verbose=False)
    assert result.info["objective"] == pytest.approx(embedded.info["objective"], rel=1e-6)
    status = client.status()
    assert status["workers"] == 2 and status["schedulers"] == 1
    assert any(j["job_id"] == job_id and j["state"] == "SUCCEEDED" for j in status["jobs"])
    jobs = client.jobs()
    assert job_id in list(jobs["job_id"] if not isinstance(jobs, list) else
                          [j["job_id"] for j in jobs])


def test_cancel_and_bad_requests(coordinator, classification_file):
    client = strads.Client(coordinator, timeout=20)  # a loaded machine answers slowly
    job_id = client.submit("logistic", data=classification_file, lambda_=0.01,
                           tolerance=1e-300, max_seconds=60)
    assert client.cancel(job_id) in ("CANCELLED", "RUNNING", "LOADING", "QUEUED")
    assert client.wait(job_id, verbose=False)["state"] == "CANCELLED"
    with pytest.raises(strads.JobFailed, match="CANCELLED"):
        client.result(job_id)
    with pytest.raises(ValueError, match="--lambda"):
        client.submit("lasso", data=classification_file)
    with pytest.raises(ValueError, match="no job"):
        client.result(9999)


def test_estimator_on_the_cluster_equals_embedded(coordinator, regression_data):
    X, y = regression_data
    remote = strads.Lasso(alpha=0.05, coordinator=coordinator, verbose=False).fit(X, y)
    local = strads.Lasso(alpha=0.05, verbose=False).fit(X, y)
    np.testing.assert_allclose(remote.coef_, local.coef_, atol=1e-6)


def test_unreachable_coordinator_raises_connection_error_with_the_clis_message():
    code, _, stderr = cli("--coordinator", "tcp://127.0.0.1:1", "status")
    assert code == 3
    with pytest.raises(ConnectionError) as raised:
        strads.Client("tcp://127.0.0.1:1", timeout=0.5).status()
    # The CLI's cause and how to start a cluster; then how Python, not the CLI, names one.
    cli_lines = stderr.strip().removeprefix("strads: ").splitlines()
    lines = str(raised.value).splitlines()
    assert lines[:2] == cli_lines[:2]
    assert lines[0] == "no coordinator at tcp://127.0.0.1:1 (connection refused)"
    assert "strads-cluster start --hostfile FILE" in lines[1]
    assert 'strads.Client("tcp://HOST:PORT")' in lines[2]


def test_keyed_cluster_admits_the_listed_client_key_only(tmp_path, monkeypatch, libsvm_file):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "no-keys"))  # no default client key
    with cluster(tmp_path, keygen=True) as endpoint:
        keys = {"client_key": tmp_path / "client" / "client.key",
                "cluster_key": tmp_path / "client" / "cluster.pub"}
        client = strads.Client(endpoint, **keys)
        job = client.submit("lasso", data=libsvm_file, lambda_=1.0)
        assert client.wait(job, verbose=False)["state"] == "SUCCEEDED"
        with pytest.raises(ConnectionRefusedError, match="requires CURVE keys"):
            strads.Client(endpoint)
        code, _, stderr = cli("--coordinator", endpoint, "status")
        assert code == 3 and "requires CURVE keys and this client has none" in stderr
        with pytest.raises(ValueError, match="no such key file"):
            strads.Client(endpoint, client_key=tmp_path / "nope.key")


def test_wait_names_the_job_once_and_ends_with_its_final_line(coordinator, libsvm_file, capsys):
    client = strads.Client(coordinator, timeout=20)
    job_id = client.submit("lasso", data=libsvm_file, lambda_=5.0)
    info = client.wait(job_id)
    err = capsys.readouterr().err
    assert err.endswith(info["description"] + "\n")
    assert f"job {job_id} job {job_id}" not in err


def test_wait_progress_line_takes_the_app_from_the_job(monkeypatch):
    """What a terminal shows while Client.wait follows job 4 (the app known from its info)."""
    from strads import _progress

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setattr(_progress, "_tqdm", None)
    info = {"job_id": 4, "app": "lasso", "state": "RUNNING", "objective_name": "objective",
            "iterations": 0, "round": 3, "objective": 1.5, "violation": 0.1,
            "updates_per_s": 1000.0, "work_unit": "updates", "description": "job 4 lasso done"}
    progress = _progress.Progress(None, True)
    progress.update(info)
    progress.close(info)
    shown = terminal.getvalue()
    assert "strads lasso job 4 RUNNING round 3" in shown
    assert "job 4 job 4" not in shown and shown.endswith("job 4 lasso done\n")
