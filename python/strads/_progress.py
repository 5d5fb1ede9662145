"""Progress while a job runs: a tqdm bar when tqdm is installed, else one line on stderr."""
import shutil
import sys
import time

try:
    from tqdm.auto import tqdm as _tqdm
except ImportError:  # tqdm is optional
    _tqdm = None


def describe(info):
    """A short progress text for a job's info dict (the fields that matter first)."""
    name = info["objective_name"]
    if info["iterations"]:  # static engine: iterations are the unit of progress
        text = f"iteration {info['iteration']}/{info['iterations']} {name} {info['objective']:.6g}"
        if info.get("note"):
            text += f" {info['note']}"
    else:
        text = f"round {info['round']} objective {info['objective']:.8g}"
        if info["violation"] >= 0:
            text += f" violation {info['violation']:.2e}"
    return text + f" {info['updates_per_s']:.3g} {info['work_unit']}/s"


class Progress:
    """Shows a job's progress; ``update`` is the progress callback of ``_core.run``.

    With tqdm: a bar over the iterations (static apps) or over rounds (dynamic apps, no total),
    the objective as its postfix. Without: one line on stderr refreshed in place (on a terminal,
    cut to its width) or nothing until the end (not a terminal). ``verbose=False``: silent.
    ``app`` None: the app's name is taken from the job's info (a job waited for by id).
    """

    def __init__(self, app, verbose):
        self.app = app
        self.verbose = verbose
        self.bar = None
        self.shown = False
        self.last = 0.0

    def update(self, info):
        if not self.verbose:
            return
        if self.app is None:
            self.app = info["app"]
        if _tqdm is not None:
            if self.bar is None:
                self.bar = _tqdm(total=info["iterations"] or None, desc=f"strads {self.app}",
                                 unit="it" if info["iterations"] else "round", leave=False)
            done = info["iteration"] if info["iterations"] else info["round"]
            self.bar.update(max(0, done - self.bar.n))
            self.bar.set_postfix_str(describe(info), refresh=False)
            return
        now = time.monotonic()
        if not sys.stderr.isatty() or now - self.last < 0.25:
            return
        self.last = now
        width = shutil.get_terminal_size((80, 24)).columns
        line = f"strads {self.app} job {info['job_id']} {info['state']} {describe(info)}"
        sys.stderr.write("\r\033[K" + line[: width - 1])
        sys.stderr.flush()
        self.shown = True

    def close(self, info):
        """Ends the display; with the final info (None when the job did not succeed), one line
        saying how it ended."""
        if self.bar is not None:
            self.bar.close()
        elif self.shown:
            sys.stderr.write("\r\033[K")
        if self.verbose and info is not None:
            sys.stderr.write(info["description"] + "\n")
            sys.stderr.flush()
