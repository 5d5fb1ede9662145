#!/usr/bin/env python3
"""A real LDA corpus that every Debian machine can build: the long descriptions of its packages.

Reads the APT Translation-en files (/var/lib/apt/lists/*_i18n_Translation-en*, decompressed with
`/usr/lib/apt/apt-helper cat-file`). When there is none yet, it first runs
`apt-get update -o Acquire::Languages=en`, which needs root (or sudo) and network access to the
Debian mirror, as deploy/install-deps.sh does.

One document per distinct package description (records with the same Description-md5, e.g. one
package listed by both bookworm and bookworm-security, count once), ordered by (package name,
Description-md5). A document is the short and the long description, lower-cased, split into
tokens matching [a-z][a-z0-9+-]{2,} (trailing '-' and '+' of a token are not stripped: "c++" is a
word). Dropped: a small built-in English stopword list, words in fewer than --min-count documents,
words in more than --max-doc-freq of the documents, and then documents left empty.

Writes, in the UCI bag-of-words format (apps/lda/corpus.h):
  DIR/docword.txt  D, W, NNZ lines, then `doc word count` (1-based), docs in order, words by id
  DIR/vocab.txt    W lines; word ids in order of decreasing document frequency (ties: alphabetical)
and prints D, W, NNZ and the number of tokens. Deterministic for a given APT state.

Usage: debian-descriptions-corpus.py --output-dir DIR [--min-count 5] [--max-doc-freq 0.1]
"""
import argparse
import collections
import glob
import os
import re
import subprocess
import sys

LISTS = "/var/lib/apt/lists"
APT_HELPER = "/usr/lib/apt/apt-helper"

STOPWORDS = frozenset("""
a about above after again against all also am an and any are as at be because been before being
below between both but by can could did do does doing down during each few for from further had
has have having he her here hers herself him himself his how i if in into is it its itself just
more most my myself no nor not now of off on once only or other our ours ourselves out over own
same she should so some such than that the their theirs them themselves then there these they
this those through to too under until up very was we were what when where which while who whom
why will with would you your yours yourself yourselves may might must shall use used using uses
via etc within without well many much one two three also like see e.g i.e
""".split())

TOKEN = re.compile(r"[a-z][a-z0-9+-]{2,}")


def translation_files():
    return sorted(f for f in glob.glob(os.path.join(LISTS, "*_i18n_Translation-en*"))
                  if not f.endswith(".diff_Index"))


def ensure_translations():
    if translation_files():
        return
    cmd = ["apt-get", "update", "-o", "Acquire::Languages=en"]
    if os.geteuid() != 0:
        cmd = ["sudo"] + cmd
    print("debian-descriptions-corpus: no Translation-en in " + LISTS + "; running " +
          " ".join(cmd), file=sys.stderr)
    try:
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    except (OSError, subprocess.CalledProcessError) as e:
        sys.exit(f"debian-descriptions-corpus: {' '.join(cmd)} failed ({e}); it needs root and "
                 "network access to the Debian mirror")
    if not translation_files():
        sys.exit("debian-descriptions-corpus: still no Translation-en file after apt-get update")


def records(path):
    """Yields (package, md5, description text) of one Translation file."""
    try:
        text = subprocess.run([APT_HELPER, "cat-file", path], check=True, capture_output=True,
                              text=True, errors="replace").stdout
    except (OSError, subprocess.CalledProcessError) as e:
        sys.exit(f"debian-descriptions-corpus: cannot read {path} ({e})")
    package = md5 = None
    desc = []
    in_desc = False
    for line in text.splitlines() + [""]:
        if not line:
            if package and desc:
                yield package, md5 or "", "\n".join(desc)
            package = md5 = None
            desc, in_desc = [], False
        elif line[0] in " \t":
            if in_desc:
                desc.append(line.strip())
        else:
            key, _, value = line.partition(":")
            in_desc = key.startswith("Description-")
            if key == "Package":
                package = value.strip()
            elif key == "Description-md5":
                md5 = value.strip()
            elif in_desc:
                desc.append(value.strip())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--output-dir", required=True)
    ap.add_argument("--min-count", type=int, default=5,
                    help="drop words in fewer documents than this (default 5)")
    ap.add_argument("--max-doc-freq", type=float, default=0.1,
                    help="drop words in more than this fraction of the documents (default 0.1)")
    args = ap.parse_args()
    if args.min_count < 1 or not 0 < args.max_doc_freq <= 1:
        sys.exit("debian-descriptions-corpus: need --min-count >= 1 and 0 < --max-doc-freq <= 1")

    ensure_translations()
    by_key = {}
    seen_md5 = set()
    for path in translation_files():
        for package, md5, desc in records(path):
            dedup = md5 or (package + "\0" + desc)
            if dedup in seen_md5:
                continue
            seen_md5.add(dedup)
            by_key[(package, md5)] = desc
    if not by_key:
        sys.exit("debian-descriptions-corpus: no descriptions found in " + LISTS)

    docs = []
    for key in sorted(by_key):
        words = [t for t in TOKEN.findall(by_key[key].lower()) if t not in STOPWORDS]
        docs.append(collections.Counter(words))
    doc_freq = collections.Counter()
    for d in docs:
        doc_freq.update(d.keys())
    max_docs = args.max_doc_freq * len(docs)
    kept = [w for w, n in doc_freq.items() if args.min_count <= n <= max_docs]
    kept.sort(key=lambda w: (-doc_freq[w], w))
    word_id = {w: i + 1 for i, w in enumerate(kept)}

    body = []
    tokens = 0
    doc_id = 0
    for d in docs:
        entries = sorted((word_id[w], c) for w, c in d.items() if w in word_id)
        if not entries:
            continue
        doc_id += 1
        for w, c in entries:
            body.append(f"{doc_id} {w} {c}\n")
            tokens += c
    os.makedirs(args.output_dir, exist_ok=True)
    with open(os.path.join(args.output_dir, "docword.txt"), "w") as f:
        f.write(f"{doc_id}\n{len(kept)}\n{len(body)}\n")
        f.writelines(body)
    with open(os.path.join(args.output_dir, "vocab.txt"), "w") as f:
        f.writelines(w + "\n" for w in kept)
    print(f"debian-descriptions-corpus: D={doc_id} W={len(kept)} NNZ={len(body)} tokens={tokens} "
          f"({len(docs)} descriptions, {len(docs) - doc_id} empty after filtering) -> "
          f"{args.output_dir}")


if __name__ == "__main__":
    main()
