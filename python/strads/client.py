"""strads.Client: the CLI's verbs against a running cluster, returning Python objects."""
import json

from . import _core
from ._jobs import option_args
from ._progress import Progress
from ._results import JobResult


class Client:
    """A connection to a cluster's coordinator (``strads-cluster start`` prints its endpoint).

    Each method is one of the CLI's verbs: ``submit`` (``strads submit``), ``status``
    (``strads status --json``), ``jobs``, ``cancel``, ``result``, and ``wait``
    (``strads submit --wait``). Errors: ValueError with the CLI's message for bad job options
    or a refused request, ConnectionError when the coordinator does not answer within
    ``timeout`` seconds, ConnectionRefusedError (a ConnectionError) when the coordinator's
    CURVE handshake refuses this client's key or its lack of one, strads.JobFailed when
    ``result`` is asked of a failed job.

    A cluster started with keys (README "Security") admits only clients whose public key is in
    its authorized_clients: ``client_key`` is this client's key pair file and ``cluster_key``
    the cluster's public key file, as the CLI's ``--client-key``/``--cluster-key``; by default
    ``~/.config/strads/client.key`` and ``cluster.pub`` (under ``$XDG_CONFIG_HOME/strads`` when
    set), used when client.key exists.
    """

    def __init__(self, coordinator="tcp://127.0.0.1:7700", timeout=5.0, *, client_key=None,
                 cluster_key=None):
        self.coordinator = coordinator
        self._remote = _core.RemoteClient(coordinator, float(timeout), str(client_key or ""),
                                          str(cluster_key or ""))

    def __repr__(self):
        return f"Client({self.coordinator!r})"

    def submit(self, app, *, data, **options):
        """Submits a job; returns its id. Options as for :func:`strads.run` (``lambda_=5``
        is ``--lambda 5``); paths must be readable by the cluster's members."""
        return self._remote.submit(app, option_args({"data": data, **options}))

    def status(self):
        """What ``strads status --json`` prints, as a dict: coordinator, uptime_s, store_problem
        (why the coordinator's work dir is not written, or empty), members (id, role, host, pid,
        heartbeat_age_s, busy) and jobs (job_id, app, state, round, updates, objective, ...)."""
        return json.loads(self._remote.status_json())

    def jobs(self):
        """The jobs of ``status()``: a list of dicts, or a pandas DataFrame when pandas is
        installed."""
        jobs = self.status()["jobs"]
        try:
            import pandas as pd
        except ImportError:
            return jobs
        return pd.DataFrame(jobs)

    def cancel(self, job_id):
        """Cancels a queued or running job; returns its state afterwards (e.g. "CANCELLED")."""
        return self._remote.cancel(int(job_id))

    def wait(self, job_id, verbose=True):
        """Waits until the job ends, with progress (``strads APP job ID ...``) and its final
        line (as ``strads.run``'s); returns its final info dict. Ctrl-C stops waiting (the job
        goes on; ``cancel`` stops it) and raises KeyboardInterrupt."""
        progress = Progress(None, verbose)
        try:
            info = self._remote.wait(int(job_id), progress=progress.update)
        except BaseException:
            progress.close(None)
            raise
        progress.close(info)
        return info

    def result(self, job_id):
        """The results of a finished job as a :class:`strads.JobResult` (coefficients(),
        matrix(name), trace(), summary()); strads.JobFailed if it failed or was cancelled,
        ValueError if it has not finished."""
        reply = self._remote.result(int(job_id))
        return JobResult(reply["info"], reply["files"])
