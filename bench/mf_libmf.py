"""strads mf against LIBMF (issue 46): best held-out RMSE over a lambda grid, and time to it.

    python3 -m bench.mf_libmf split DOCWORD OUT_DIR [--clip 10] [--seed 46]
    python3 -m bench.mf_libmf run DATA_DIR --rank K --libmf PATH/mf-train [--bin-dir build/bin]
                              [--grid 0.03,0.1,0.3] [--epochs 60] [--ccd-iterations 25]
                              [--als-iterations 15] [--algorithms sgd,ccd,als] [--out FILE.json]
    python3 -m bench.mf_libmf report FILE.json...

`split` makes the problem from a UCI bag-of-words file (deploy/debian-descriptions-corpus.py's
docword.txt): the document-word matrix, each entry held out with probability 0.1, counts clipped
at --clip (LIBMF's SGD diverges to NaN in its first epoch on the raw counts, whose largest is
1,264: one step of its schedule is then ~700 standard deviations). It writes train.mtx and
test.mtx (MatrixMarket, for strads) and train.txt and test.txt (0-based `i j v`, for LIBMF).
A directory of train.mtx and test.mtx from `strads-gen ratings` is converted the same way with
`split --from-mtx DIR`.

`run` needs a LIBMF built outside this repository from its public source (github cjlin1/libmf,
`make`); it is only executed, with one thread. Run it holding the CPU lock
(`flock /tmp/strads-cpu.lock python3 -m bench.mf_libmf run ...`). For each lambda of the grid:
  - LIBMF: `mf-train -k K -s 1 -l2 LAMBDA -t EPOCHS -p test.txt train.txt` for the held-out RMSE
    of every epoch; its time per epoch is (T(21 epochs) - T(1 epoch)) / 20 from runs without -p
    (best of two each), so loading is excluded and so is its own validation; its time to its best
    RMSE is (best epoch) x (time per epoch).
  - strads: `strads run mf --algorithm A --rank K --lambda LAMBDA --test test.mtx --patience 0`
    at 1 and 2 workers (ccd and als at 2 workers for lambda 0.1 only); the trace's seconds from
    the initial evaluation (after loading) to each iteration's, every evaluation pass included.
LIBMF's and strads's lambda mean the same thing: both penalise lambda |Omega_i| ||w_i||^2 (LIBMF
divides lambda by its internal scale exactly as its objective in the data's units needs).

`report` prints, for each file, LIBMF's best held-out RMSE over the grid and its time, and for
each strads run its best RMSE and the time to LIBMF's best, as a ratio of LIBMF's time.
"""
import argparse
import csv
import json
import os
import random
import subprocess
import sys
import time


def split(args):
    os.makedirs(args.out_dir, exist_ok=True)
    if args.from_mtx:
        for name in ("train", "test"):
            with open(os.path.join(args.source, f"{name}.mtx")) as f, \
                    open(os.path.join(args.out_dir, f"{name}.txt"), "w") as out:
                lines = (line for line in f if not line.startswith("%"))
                next(lines)  # the size line
                for line in lines:
                    i, j, v = line.split()
                    out.write(f"{int(i) - 1} {int(j) - 1} {v}\n")
        return
    with open(args.source) as f:
        docs, words = int(f.readline()), int(f.readline())
        f.readline()
        entries = [tuple(map(int, line.split())) for line in f]
    rng = random.Random(args.seed)
    parts = {"train": [], "test": []}
    for d, w, c in entries:
        parts["test" if rng.random() < 0.1 else "train"].append((d, w, min(c, args.clip)))
    for name, part in parts.items():
        with open(os.path.join(args.out_dir, f"{name}.mtx"), "w") as f:
            f.write("%%MatrixMarket matrix coordinate integer general\n")
            f.write(f"{docs} {words} {len(part)}\n")
            f.writelines(f"{d} {w} {c}\n" for d, w, c in part)
        with open(os.path.join(args.out_dir, f"{name}.txt"), "w") as f:
            f.writelines(f"{d - 1} {w - 1} {c}\n" for d, w, c in part)
    print(f"{docs} x {words}: {len(parts['train'])} training and {len(parts['test'])} held-out "
          f"entries, counts clipped at {args.clip}")


def _wall(cmd):
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def run(args):
    data, rank = args.data_dir, args.rank
    grid = [float(x) for x in args.grid.split(",")]
    result = {"data": data, "rank": rank, "libmf": {}, "strads": {}}
    model = os.path.join(args.work_dir, "libmf.model")
    os.makedirs(args.work_dir, exist_ok=True)
    for lam in grid:
        base = [args.libmf, "-k", str(rank), "-s", "1", "-l2", str(lam)]
        log = subprocess.run(base + ["-t", str(args.epochs), "-p", f"{data}/test.txt",
                                     f"{data}/train.txt", model],
                             check=True, capture_output=True, text=True).stdout
        held_out = [float(line.split()[2]) for line in log.splitlines()
                    if line.split() and line.split()[0].isdigit()]
        one, many = (min(_wall(base + ["-t", str(t), "--quiet", f"{data}/train.txt", model])
                         for _ in range(2)) for t in (1, 21))
        epoch = (many - one) / 20
        best = min(range(len(held_out)), key=held_out.__getitem__)
        result["libmf"][str(lam)] = {"held_out": held_out, "best": held_out[best],
                                     "best_epochs": best + 1, "epoch_s": epoch,
                                     "time_to_best_s": (best + 1) * epoch}
        print(f"libmf lambda {lam}: best {held_out[best]:.4f} after {best + 1} epochs, "
              f"{epoch:.4f} s per epoch", flush=True)
    iterations = {"sgd": args.epochs, "ccd": args.ccd_iterations, "als": args.als_iterations}
    for algorithm in args.algorithms.split(","):
        for lam in grid:
            for workers in (1, 2):
                if workers == 2 and algorithm != "sgd" and lam != 0.1:
                    continue
                out = os.path.join(args.work_dir, f"{algorithm}-{rank}-{lam}-{workers}")
                subprocess.run([os.path.join(args.bin_dir, "strads"), "run", "mf", "--algorithm",
                                algorithm, "--data", f"{data}/train.mtx", "--test",
                                f"{data}/test.mtx", "--rank", str(rank), "--lambda", str(lam),
                                "--iterations", str(iterations[algorithm]), "--patience", "0",
                                "--workers", str(workers), "--output", out],
                               check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                with open(os.path.join(out, "trace.csv")) as f:
                    rows = list(csv.DictReader(f))
                start = float(rows[0]["seconds"])
                trace = [(int(r["iteration"]), float(r["seconds"]) - start, float(r["test_rmse"]))
                         for r in rows[1:]]
                result["strads"][f"{algorithm}/{lam}/{workers}"] = trace
                best = min(trace, key=lambda row: row[2])
                print(f"{algorithm} lambda {lam} workers {workers}: best {best[2]:.4f} at "
                      f"iteration {best[0]} ({best[1]:.2f} s)", flush=True)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)


def report(args):
    for path in args.files:
        with open(path) as f:
            result = json.load(f)
        libmf = result["libmf"]
        lam = min(libmf, key=lambda key: libmf[key]["best"])
        target, seconds = libmf[lam]["best"], libmf[lam]["time_to_best_s"]
        print(f"{result['data']} rank {result['rank']}: LIBMF best {target:.4f} (lambda {lam}, "
              f"{libmf[lam]['best_epochs']} epochs of {libmf[lam]['epoch_s']:.4f} s: "
              f"{seconds:.2f} s)")
        for key, trace in result["strads"].items():
            best = min(trace, key=lambda row: row[2])
            reach = next((row for row in trace if row[2] <= target), None)
            ratio = f"{reach[1] / seconds:.2f}x ({reach[1]:.2f} s, iteration {reach[0]})" \
                if reach else "not reached"
            per = trace[-1][1] / len(trace)
            print(f"  {key:12s} best {best[2]:.4f}; to {target:.4f}: {ratio}; {per:.3f} s/iter")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("split")
    p.add_argument("source")
    p.add_argument("out_dir")
    p.add_argument("--clip", type=int, default=10)
    p.add_argument("--seed", type=int, default=46)
    p.add_argument("--from-mtx", action="store_true")
    p = sub.add_parser("run")
    p.add_argument("data_dir")
    p.add_argument("--rank", type=int, required=True)
    p.add_argument("--libmf", required=True)
    p.add_argument("--bin-dir", default=os.path.join(os.path.dirname(__file__), "..", "build",
                                                     "bin"))
    p.add_argument("--grid", default="0.03,0.1,0.3")
    p.add_argument("--epochs", type=int, default=60)
    p.add_argument("--ccd-iterations", type=int, default=25)
    p.add_argument("--als-iterations", type=int, default=15)
    p.add_argument("--algorithms", default="sgd,ccd,als")
    p.add_argument("--work-dir", default="/tmp/strads-mf-libmf")
    p.add_argument("--out", default="mf_libmf.json")
    p = sub.add_parser("report")
    p.add_argument("files", nargs="+")
    args = parser.parse_args(argv)
    {"split": split, "run": run, "report": report}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
