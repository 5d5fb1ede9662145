"""Implicit-feedback ALS (issue 46): ranking quality on held-out entries, and time per iteration.

    python3 -m bench.mf_implicit binarise SPLIT_DIR OUT_DIR
    python3 -m bench.mf_implicit run DATA_DIR [--rank 20] [--alpha 1] [--lambda 0.1]
                                 [--iterations 10] [--workers 1,2] [--bin-dir build/bin]
                                 [--out FILE.json]
    python3 -m bench.mf_implicit evaluate DATA_DIR MODEL_DIR

`binarise` copies a split made by `python3 -m bench.mf_libmf split` (train.mtx, test.mtx) with
every stored value set to 1: each (document, word) pair is observed or not, as clicks are.

`run` trains `strads run mf --algorithm als --implicit` on train.mtx at each worker count (hold the
CPU lock: `flock /tmp/strads-cpu.lock python3 -m bench.mf_implicit run ...`). Time per iteration
is wall time from the trace: (seconds at the last iteration - seconds at iteration 0) /
iterations, with --eval-every set to the iterations, so loading is excluded and one evaluation
pass is included. The model of the first worker count is then evaluated as `evaluate` does.

`evaluate` ranks, for every row that has training entries and held-out entries, the columns it has
no training entry for, by the model's score w_i . h_j, and by popularity (the column's number of
training entries, ties broken by column id: the baseline). It reports precision@10 (held-out
entries among the top 10, over 10) and MAP@10 (the mean over rows of the average precision at
the ranks of the held-out hits in the top 10, divided by min(10, held-out entries of the row)).
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import time

import numpy as np
import scipy.io
import scipy.sparse as sp

TOP = 10


def binarise(args):
    os.makedirs(args.out_dir, exist_ok=True)
    for name in ("train", "test"):
        with open(os.path.join(args.source, f"{name}.mtx")) as f, \
                open(os.path.join(args.out_dir, f"{name}.mtx"), "w") as out:
            out.write(f.readline())  # banner
            line = f.readline()
            while line.startswith("%"):
                line = f.readline()
            out.write(line)  # size line
            for line in f:
                i, j, _ = line.split()
                out.write(f"{i} {j} 1\n")


def _csr(path):
    return sp.csr_matrix(scipy.io.mmread(path))


def _rank_metrics(score_rows, train, test, rows):
    """precision@10 and AP@10 of each row in `rows` given its scores (a function of a row chunk
    returning a dense (chunk x cols) array)."""
    precision, average = [], []
    for start in range(0, len(rows), 2000):
        chunk = rows[start:start + 2000]
        scores = np.array(score_rows(chunk), dtype=np.float64)
        seen = train[chunk]
        r, c = seen.nonzero()
        scores[r, c] = -np.inf
        top = np.argpartition(-scores, TOP, axis=1)[:, :TOP]
        order = np.argsort(-np.take_along_axis(scores, top, axis=1), axis=1, kind="stable")
        top = np.take_along_axis(top, order, axis=1)
        held = test[chunk].toarray() > 0
        hits = np.take_along_axis(held, top, axis=1)
        precision.append(hits.sum(axis=1) / TOP)
        cum = np.cumsum(hits, axis=1) / np.arange(1, TOP + 1)
        denom = np.minimum(held.sum(axis=1), TOP)
        average.append((cum * hits).sum(axis=1) / denom)
    return float(np.concatenate(precision).mean()), float(np.concatenate(average).mean())


def evaluate_model(data_dir, model_dir):
    train, test = _csr(f"{data_dir}/train.mtx"), _csr(f"{data_dir}/test.mtx")
    W = np.asarray(scipy.io.mmread(f"{model_dir}/W.mtx"))
    H = np.asarray(scipy.io.mmread(f"{model_dir}/H.mtx"))
    rows = np.flatnonzero((np.diff(train.indptr) > 0) & (np.diff(test.indptr) > 0))
    # Counts are integers: ties broken by column id, the lower first.
    counts = np.diff(train.tocsc().indptr).astype(np.float64)
    popularity = counts - np.arange(len(counts)) / (len(counts) + 1.0)
    model = _rank_metrics(lambda chunk: W[chunk] @ H.T, train, test, rows)
    baseline = _rank_metrics(lambda chunk: np.broadcast_to(popularity, (len(chunk), len(popularity))),
                             train, test, rows)
    return {"rows_evaluated": int(len(rows)), "held_out": int(test[rows].nnz),
            "model": {"precision@10": model[0], "map@10": model[1]},
            "popularity": {"precision@10": baseline[0], "map@10": baseline[1]}}


def run(args):
    result = {"data": args.data_dir, "rank": args.rank, "alpha": args.alpha,
              "lambda": args.lambda_, "iterations": args.iterations, "runs": {}}
    os.makedirs(args.work_dir, exist_ok=True)
    first = None
    for workers in (int(w) for w in args.workers.split(",")):
        out = os.path.join(args.work_dir, f"implicit-{args.rank}-{workers}")
        cmd = [os.path.join(args.bin_dir, "strads"), "run", "mf", "--algorithm", "als",
               "--implicit", "--alpha", str(args.alpha), "--data", f"{args.data_dir}/train.mtx",
               "--rank", str(args.rank), "--lambda", str(args.lambda_), "--iterations",
               str(args.iterations), "--eval-every", str(args.iterations), "--workers",
               str(workers), "--output", out]
        start = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        total = time.perf_counter() - start
        with open(os.path.join(out, "trace.csv")) as f:
            rows = list(csv.DictReader(f))
        per = (float(rows[-1]["seconds"]) - float(rows[0]["seconds"])) / args.iterations
        result["runs"][str(workers)] = {"command": " ".join(cmd), "s_per_iteration": per,
                                        "objective": [float(r["objective"]) for r in rows],
                                        "wall_s_with_loading": total}
        print(f"workers {workers}: {per:.3f} s per iteration (wall, loading excluded); "
              f"objective {rows[0]['objective']} -> {rows[-1]['objective']}", flush=True)
        first = first or out
    result["ranking"] = evaluate_model(args.data_dir, first)
    print(json.dumps(result["ranking"], indent=1))
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("binarise")
    p.add_argument("source")
    p.add_argument("out_dir")
    p = sub.add_parser("run")
    p.add_argument("data_dir")
    p.add_argument("--rank", type=int, default=20)
    p.add_argument("--alpha", type=float, default=1.0)
    p.add_argument("--lambda", dest="lambda_", type=float, default=0.1)
    p.add_argument("--iterations", type=int, default=10)
    p.add_argument("--workers", default="1,2")
    p.add_argument("--bin-dir", default=os.path.join(os.path.dirname(__file__), "..", "build",
                                                     "bin"))
    p.add_argument("--work-dir", default="/tmp/strads-mf-implicit")
    p.add_argument("--out", default="mf_implicit.json")
    p = sub.add_parser("evaluate")
    p.add_argument("data_dir")
    p.add_argument("model_dir")
    args = parser.parse_args(argv)
    if args.command == "evaluate":
        print(json.dumps(evaluate_model(args.data_dir, args.model_dir), indent=1))
    else:
        {"binarise": binarise, "run": run}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
