"""Running a job of any app, embedded or on a cluster, from keyword arguments."""
import math

from . import _core
from ._progress import Progress
from ._results import JobResult


def option_args(options):
    """The CLI words for job options given as keyword arguments.

    ``max_seconds=5`` becomes ``--max-seconds 5`` (underscores become dashes, a trailing one is
    dropped, so ``lambda_=0.5`` is ``--lambda 0.5``); ``True`` is a bare flag
    (``exact_shares=True``), ``None`` and ``False`` leave the option out. Floats are written in
    their shortest exact form, so the job sees exactly the Python value.
    """
    args = []
    for name, value in options.items():
        if value is None or value is False:
            continue
        flag = "--" + name.rstrip("_").replace("_", "-")
        if value is True:
            args.append(flag)
        elif isinstance(value, float):
            if not math.isfinite(value):
                raise ValueError(f"{flag} must be a finite number, got {value!r}")
            args += [flag, repr(value)]
        else:
            args += [flag, str(value)]
    return args


def run(app, *, data, n_workers=2, n_schedulers=1, coordinator=None, verbose=True, timeout=5.0,
        matrices=None, **options):
    """Runs a job of ``app`` ("lasso", "logistic", "svm", "lda", "mf") and returns its
    :class:`JobResult`.

    ``data`` and ``options`` are the job options of ``strads run APP`` as keyword arguments (see
    ``strads run APP --help`` or ``strads._core.job_options_help(APP)``), parsed and validated by
    the CLI's own parser: ``strads.run("lasso", data="X.svm", lambda_=5)`` is
    ``strads run lasso --data X.svm --lambda 5``. The job runs on an embedded cluster of
    ``n_schedulers`` schedulers and ``n_workers`` workers in this process, or, with
    ``coordinator="tcp://HOST:PORT"``, on that cluster (paths must then be readable by its
    members). ``verbose=False`` hides the progress bar. Ctrl-C cancels the job and raises
    KeyboardInterrupt; a failed job raises :class:`strads.JobFailed` with the CLI's message.
    ``matrices`` (embedded only) hands the members data in memory, each named by
    ``data="memory:NAME"`` (see ``_data.memory_matrix``).
    """
    args = option_args({"data": data, **options})
    if matrices and coordinator is not None:
        raise ValueError("in-memory data (matrices=) is read by an embedded cluster only")
    progress = Progress(app, verbose)
    try:
        if coordinator is None:
            reply = _core.run(app, args, schedulers=n_schedulers, workers=n_workers,
                              progress=progress.update, timeout_s=timeout,
                              matrices=matrices or {})
        else:
            client = _core.RemoteClient(coordinator, timeout)
            job_id = client.submit(app, args)
            client.wait(job_id, progress=progress.update, cancel_on_interrupt=True)
            reply = client.result(job_id)
        progress.close(reply["info"])
    except BaseException:
        progress.close(None)
        raise
    return JobResult(reply["info"], reply["files"])
