#!/usr/bin/env python3
"""Runs tritonc's front end over the Triton kernels that published wheels ship.

Downloads pinned wheels from the Python package index (nothing is committed), extracts
their `.py` files into a temporary directory, and runs `tritonc lint` on every file that
mentions `triton`, one process per file so that a crash in one file cannot hide the
others. Prints (and with --markdown, writes) per-package counts:

  accepted  - every kernel in the file passed the front end
  rejected  - the front end reported errors (grouped by diagnostic code)
  crashed   - tritonc exited with an internal-error or panic status (must be zero)

Usage: scripts/corpus.py [--tritonc PATH] [--markdown FILE] [--cache DIR] [--jobs N]
"""

import argparse
import collections
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile
import zipfile

# Pinned so that numbers in docs/ are reproducible.
WHEELS = [
    ("liger-kernel", "0.8.5"),
    ("fla-core", "0.6.0"),
    ("flash-linear-attention", "0.6.0"),
    ("unsloth", "2026.10.9"),
]

# Exit statuses from the tritonc exit-code table (README.md).
EXIT_OK, EXIT_FINDINGS, EXIT_INPUT = 0, 1, 2


def download(cache):
    os.makedirs(cache, exist_ok=True)
    paths = []
    for name, version in WHEELS:
        stem = name.replace("-", "_")
        found = [f for f in os.listdir(cache) if f.startswith(f"{stem}-{version}-") and f.endswith(".whl")]
        if not found:
            subprocess.run(
                [sys.executable, "-m", "pip", "download", "-q", "--no-deps", f"{name}=={version}", "-d", cache],
                check=True,
            )
            found = [f for f in os.listdir(cache) if f.startswith(f"{stem}-{version}-") and f.endswith(".whl")]
        paths.append((f"{name}=={version}", os.path.join(cache, found[0])))
    return paths


def extract(wheel, dest):
    files = []
    with zipfile.ZipFile(wheel) as z:
        for info in z.infolist():
            if not info.filename.endswith(".py"):
                continue
            data = z.read(info)
            if b"triton" not in data:
                continue
            path = os.path.join(dest, info.filename)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(data)
            files.append(path)
    return sorted(files)


def lint_one(tritonc, path):
    proc = subprocess.run([tritonc, "lint", "--format", "json", path], capture_output=True, text=True)
    codes = []
    if proc.returncode in (EXIT_OK, EXIT_FINDINGS):
        try:
            for d in json.loads(proc.stdout or "[]"):
                if d.get("severity") == "error":
                    codes.append((d["code"], d["message"], d.get("span", {}).get("line")))
        except json.JSONDecodeError:
            return path, "crashed", [("json", proc.stdout[:200], None)]
        return path, ("rejected" if codes else "accepted"), codes
    if proc.returncode == EXIT_INPUT:
        return path, "rejected", [("input", proc.stderr.strip().splitlines()[0] if proc.stderr else "", None)]
    return path, "crashed", [(f"exit {proc.returncode}", proc.stderr[-300:], None)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tritonc", default=os.path.join(os.path.dirname(__file__), "..", "target", "release", "tritonc"))
    ap.add_argument("--markdown", help="write the report as Markdown to this file")
    ap.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "tritonc-corpus-wheels"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    args = ap.parse_args()

    rows, details = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for label, wheel in download(args.cache):
            files = extract(wheel, os.path.join(tmp, os.path.basename(wheel)))
            with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
                results = list(pool.map(lambda p: lint_one(args.tritonc, p), files))
            status = collections.Counter(r[1] for r in results)
            codes = collections.Counter()
            for path, st, diags in results:
                for code, msg, line in diags:
                    codes[code] += 1
                    rel = os.path.relpath(path, tmp).split(os.sep, 1)[1]
                    details.append(f"{label} {rel}:{line}: {st} {code} {msg}")
            rows.append((label, len(files), status["accepted"], status["rejected"], status["crashed"], codes))

    lines = ["| package | files mentioning triton | accepted | rejected | crashed | diagnostics by code |", "|---|---|---|---|---|---|"]
    for label, n, acc, rej, cr, codes in rows:
        by_code = ", ".join(f"{c}×{k}" for c, k in sorted(codes.items())) or "—"
        lines.append(f"| {label} | {n} | {acc} | {rej} | {cr} | {by_code} |")
    report = "\n".join(lines)
    print(report)
    print("\n".join(details))
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(report + "\n\n<details><summary>Every diagnostic</summary>\n\n```\n" + "\n".join(details) + "\n```\n</details>\n")
    return 1 if any(r[4] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
