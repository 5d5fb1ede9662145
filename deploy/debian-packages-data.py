#!/usr/bin/env python3
"""A real, sparse, high-dimensional regression data set that every Debian machine has.

Reads the package records of the APT lists (`apt-cache dumpavail`, available after
`apt-get update`) and writes one libsvm row per package (one per name; the newest record wins):

  target   log(Installed-Size in KiB), minus its mean over all rows (the Lasso has no intercept)
  features binary indicators, each feature id one token:
             dep:NAME     the package depends on / pre-depends on / recommends NAME
             word:W       W occurs in the short description (lower-cased, [a-z0-9+]{2,})
             section:S    the package's section
             prio:P       the package's priority
           ids are assigned in order of decreasing frequency; tokens seen in fewer than
           --min-count packages are dropped.

Writes OUT (libsvm) and OUT.features.tsv (feature_id<TAB>token). Deterministic for a given APT
state. Usage: debian-packages-data.py --output FILE [--min-count 2] [--limit N]
"""
import argparse
import collections
import math
import re
import subprocess
import sys


def records(text):
    rec = {}
    key = None
    for line in text.splitlines():
        if not line:
            if rec:
                yield rec
            rec, key = {}, None
        elif line[0] in " \t":
            if key:
                rec[key] += "\n" + line
        else:
            key, _, value = line.partition(":")
            rec[key] = value.strip()
    if rec:
        yield rec


def deps(field):
    for alt in field.split(","):
        for name in alt.split("|"):
            name = name.strip().split(" ")[0].split(":")[0]
            if name:
                yield "dep:" + name


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--output", required=True)
    ap.add_argument("--min-count", type=int, default=2)
    ap.add_argument("--limit", type=int, default=0, help="keep only the first N packages by name")
    args = ap.parse_args()
    try:
        text = subprocess.run(["apt-cache", "dumpavail"], check=True, capture_output=True,
                              text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        sys.exit(f"debian-packages-data: cannot read the APT lists ({e}); run apt-get update")
    packages = {}
    for rec in records(text):
        if "Package" in rec and "Installed-Size" in rec:
            packages[rec["Package"]] = rec  # later records (newer suites) win
    names = sorted(packages)
    if args.limit:
        names = names[: args.limit]
    if not names:
        sys.exit("debian-packages-data: no package records; run apt-get update")
    rows = []
    counts = collections.Counter()
    for name in names:
        rec = packages[name]
        tokens = set()
        for field in ("Depends", "Pre-Depends", "Recommends"):
            tokens.update(deps(rec.get(field, "")))
        desc = rec.get("Description", "").split("\n")[0].lower()
        tokens.update("word:" + w for w in re.findall(r"[a-z0-9+]{2,}", desc))
        tokens.add("section:" + rec.get("Section", "none"))
        tokens.add("prio:" + rec.get("Priority", "none"))
        target = math.log(max(1, int(rec["Installed-Size"])))
        rows.append((target, tokens))
        counts.update(tokens)
    vocab = [t for t, c in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
             if c >= args.min_count]
    ids = {t: i + 1 for i, t in enumerate(vocab)}
    mean = sum(t for t, _ in rows) / len(rows)
    with open(args.output, "w") as out:
        for target, tokens in rows:
            feats = sorted(ids[t] for t in tokens if t in ids)
            out.write(f"{target - mean:.6f} " + " ".join(f"{j}:1" for j in feats) + "\n")
    with open(args.output + ".features.tsv", "w") as out:
        for t in vocab:
            out.write(f"{ids[t]}\t{t}\n")
    print(f"debian-packages-data: {len(rows)} rows x {len(vocab)} features -> {args.output}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
