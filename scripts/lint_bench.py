#!/usr/bin/env python3
"""Times `tritonc lint` on a large tree of real kernel files.

Builds a tree of about --lines lines (default 300,000) by replicating Triton kernel files
(examples/ and, when given, a directory of extracted corpus files, e.g. the wheels that
scripts/corpus.py downloads) into a temporary directory, then runs `tritonc lint -q` on it
--runs times and reports the best and median wall-clock time. The peer, measured in the
same run: parsing the same files with CPython's `ast` module, so the ratio says how a full
lint compares with merely parsing the files.

Usage: scripts/lint_bench.py [--tritonc PATH] [--source DIR ...] [--lines N] [--runs N]
"""

import argparse
import ast
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def kernel_files(dirs):
    files = []
    for d in dirs:
        for root, _, names in os.walk(d):
            for n in sorted(names):
                p = os.path.join(root, n)
                if n.endswith(".py"):
                    with open(p, "rb") as f:
                        data = f.read()
                    if b"triton.jit" in data or b"@jit" in data:
                        files.append((p, data))
    return files


def build_tree(files, dest, target_lines):
    lines, copy, written = 0, 0, 0
    while lines < target_lines:
        for src, data in files:
            sub = os.path.join(dest, f"copy{copy:03d}")
            os.makedirs(sub, exist_ok=True)
            name = f"{written:05d}_{os.path.basename(src)}"
            with open(os.path.join(sub, name), "wb") as f:
                f.write(data)
            lines += data.count(b"\n")
            written += 1
            if lines >= target_lines:
                break
        copy += 1
    return written, lines


def timed(cmd):
    start = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        sys.exit(f"{' '.join(cmd)} exited {proc.returncode}: {proc.stderr.decode()[-500:]}")
    return elapsed


def python_parse(tree):
    start = time.perf_counter()
    for root, _, names in os.walk(tree):
        for n in names:
            with open(os.path.join(root, n), "rb") as f:
                ast.parse(f.read())
    return time.perf_counter() - start


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tritonc", default=os.path.join(here, "..", "target", "release", "tritonc"))
    ap.add_argument("--source", action="append", default=[], help="more directories of kernel files")
    ap.add_argument("--lines", type=int, default=300_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--keep", help="build the tree here and keep it (for profiling)")
    args = ap.parse_args()

    files = kernel_files([os.path.join(here, "..", "examples")] + args.source)
    if not files:
        sys.exit("no kernel files found")
    tree = args.keep or tempfile.mkdtemp(prefix="tritonc-lint-bench-")
    try:
        n_files, n_lines = build_tree(files, tree, args.lines)
        cmd = [args.tritonc, "lint", "-q", "--output-format", "concise", tree]
        timed(cmd)  # warm the page cache
        times = [timed(cmd) for _ in range(args.runs)]
        peer = min(python_parse(tree) for _ in range(2))
        print(f"tree: {n_files} files, {n_lines} lines, from {len(files)} distinct kernel files")
        print(f"tritonc lint: best {min(times):.3f} s, median {statistics.median(times):.3f} s over {args.runs} runs")
        print(f"peer (CPython ast.parse of the same files, one core): {peer:.3f} s; ratio lint/peer = {min(times) / peer:.2f}")
    finally:
        if not args.keep:
            shutil.rmtree(tree, ignore_errors=True)


if __name__ == "__main__":
    main()
