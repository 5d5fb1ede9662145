"""The scaling harness's pieces that need no cluster (bench/scaling.py): pid files, CPU from
/proc, a job's figures from its output directory, the table.

    python3 -m pytest -q bench/tests
"""
import json
import os
import types

import pytest

from bench import scaling


def own_start_ticks() -> int:
    with open("/proc/self/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[19])


def test_pid_files_are_read_by_role_with_their_start_times(tmp_path):
    pids = tmp_path / "pids"
    pids.mkdir()
    (pids / "coordinator-127.0.0.1-0.pid").write_text("101\nstart=5\n")
    (pids / "worker-127.0.0.1-0.pid").write_text("102\nstart=6\n")
    (pids / "worker-127.0.0.1-1.pid").write_text("103\n")  # an old file without a start time
    (pids / "README").write_text("not a pid file")
    got = scaling.read_pids(str(tmp_path))
    assert got == {"coordinator": [(101, 5)], "scheduler": [], "worker": [(102, 6), (103, None)]}


def test_cpu_is_read_from_proc_and_a_reused_pid_is_refused():
    pid = os.getpid()
    sum(i * i for i in range(200000))  # some CPU, so the reading is not trivially zero
    assert scaling.proc_cpu(pid, own_start_ticks()) >= 0
    assert scaling.proc_cpu(pid, None) >= 0
    with pytest.raises(RuntimeError, match="no longer the daemon"):
        scaling.proc_cpu(pid, own_start_ticks() + 1)


def write_job(d, rows, **summary):
    d.mkdir()
    (d / "trace.csv").write_text("seconds,round,updates,objective,schedule,epoch\n" +
                                 "".join(f"{s},{r},{u},{f},dynamic,0\n" for s, r, u, f in rows))
    base = {"rounds": rows[-1][1], "updates": rows[-1][2], "objective": rows[-1][3],
            "converged": True, "seconds": rows[-1][0] + 0.1, "mean_step_length": 0.9,
            "damped_rounds": 3}
    base.update(summary)
    (d / "summary.json").write_text(json.dumps(base))


def test_a_jobs_figures_are_those_of_its_first_row_within_eps(tmp_path):
    # F* = 100: 1e-3 is first met at round 3 (100.05), 1e-6 at round 5 (100.00005).
    write_job(tmp_path / "job", [(0.5, 0, 0, 300.0), (0.6, 2, 128, 100.2), (0.7, 3, 192, 100.05),
                                 (0.8, 4, 256, 100.001), (0.9, 5, 320, 100.00005)])
    row = scaling.job_row(str(tmp_path / "job"), 100.0)
    assert (row["updates_1e-3"], row["rounds_1e-3"]) == (192, 3)
    assert (row["updates_1e-6"], row["rounds_1e-6"]) == (320, 5)
    assert row["wall_s_1e-3"] == pytest.approx(0.2)  # from the first row, not the job's start
    assert (row["mean_step"], row["damped"], row["rounds"]) == (0.9, 3, 5)


def test_a_target_never_reached_is_none(tmp_path):
    write_job(tmp_path / "job", [(0.5, 0, 0, 300.0), (0.6, 2, 128, 101.0)], converged=False)
    row = scaling.job_row(str(tmp_path / "job"), 100.0)
    assert row["updates_1e-3"] is None and row["wall_s_1e-6"] is None


def table_row(workers, **kw):
    row = {"schedulers": 1, "workers": workers, "schedule": "dynamic", "seed": 1, "rc": 0,
           "updates_1e-3": 1000 * workers, "rounds_1e-3": 10, "updates_1e-6": 2000,
           "rounds_1e-6": 20, "eff_1e-3": float(workers), "eff_1e-6": 1.0, "mean_step": 1.0,
           "damped": 0, "rounds": 30, "converged": True, "final_gap": 0.0,
           "us_round_coordinator": 1.0, "us_round_scheduler": 2.0, "us_round_worker": 3.0,
           "wall_s_1e-3": 0.5, "wall_s_1e-6": 0.9}
    row.update(kw)
    return row


def test_the_table_flags_wall_time_beyond_two_workers_and_shows_failed_jobs():
    args = types.SimpleNamespace(name="p", data="p.svm", app="lasso", lam="1", fstar=2.0,
                                 tolerance=1e-9, max_seconds=10, max_updates=0, trace_every=1e-5,
                                 flags="")
    text = scaling.render(args, [table_row(2), table_row(4),
                                 {"schedulers": 1, "workers": 8, "schedule": "random", "seed": 1,
                                  "rc": 3}])
    lines = text.splitlines()
    p2 = next(line for line in lines if line.startswith("| 1 x 2 "))
    p4 = next(line for line in lines if line.startswith("| 1 x 4 "))
    assert "0.500 |" in p2 and "†" not in p2
    assert "0.500 † |" in p4
    assert "failed (rc 3)" in next(line for line in lines if line.startswith("| 1 x 8 "))
    assert "Medians" not in text  # one seed: no table of medians


def test_medians_over_seeds_use_the_ratio_of_the_medians():
    rows = [table_row(1, seed=s, **{"updates_1e-3": u}) for s, u in ((1, 100), (2, 300), (3, 200))]
    rows += [table_row(2, seed=s, **{"updates_1e-3": u}) for s, u in ((1, 500), (2, 400), (3, 300))]
    text = "\n".join(scaling.render_medians(rows))
    assert "| 1 x 1 | dynamic | 3 | 200 (100-300) | 1.00 |" in text
    assert "| 1 x 2 | dynamic | 3 | 400 (300-500) | 2.00 |" in text


def test_traffic_is_summed_by_kind_of_link_each_message_by_its_sender():
    def t(sent, messages):
        return {"bytes_sent": sent, "bytes_received": 999, "messages_sent": messages,
                "messages_received": 99}
    status = {"coordinator_traffic": {"worker": t(100, 1), "scheduler": t(10, 1),
                                      "other": t(5000, 9)},
              "members": [{"role": "worker", "traffic": {"coordinator": t(200, 2),
                                                         "worker": t(7, 1)}},
                          {"role": "worker", "traffic": {"worker": t(3, 1),
                                                         "scheduler": t(40, 4)}},
                          {"role": "scheduler", "traffic": {"worker": t(60, 2),
                                                            "coordinator": t(20, 2)}}]}
    got = scaling.traffic_totals(status)
    assert got["coordinator-worker"] == {"bytes": 300, "messages": 3}
    assert got["coordinator-scheduler"] == {"bytes": 30, "messages": 3}
    assert got["scheduler-worker"] == {"bytes": 100, "messages": 6}
    assert got["worker-worker"] == {"bytes": 10, "messages": 2}  # clients' traffic is left out
    assert scaling.link_of("worker", "other") is None
