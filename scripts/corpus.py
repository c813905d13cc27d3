#!/usr/bin/env python3
"""Runs tritonc's front end over the Triton kernels that published wheels ship.

Downloads pinned wheels from the Python package index (nothing is committed), extracts
their `.py` files into a temporary directory, and runs `tritonc lint` on every file that
mentions `triton`, one process per file so that a crash in one file cannot hide the
others. Prints (and with --markdown, writes) per-package counts:

  accepted  - every kernel in the file passed the front end
  rejected  - the front end reported errors (grouped by diagnostic code)
  crashed   - tritonc exited with an internal-error or panic status (must be zero)

and every lint finding (codes TRIxxx), with the kernels lint could only check at the
source level (TRI001) listed apart.

Usage: scripts/corpus.py [--tritonc PATH] [--markdown FILE] [--findings FILE] [--cache DIR] [--jobs N]
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
    """Returns (path, status, front-end errors, lint findings, kernels not analysed)."""
    proc = subprocess.run([tritonc, "lint", "--output-format", "json", path], capture_output=True, text=True)
    errors, findings, not_analysed = [], [], []
    if proc.returncode in (EXIT_OK, EXIT_FINDINGS):
        try:
            rows = json.loads(proc.stdout or "[]")
        except json.JSONDecodeError:
            return path, "crashed", [("json", proc.stdout[:200], None)], [], []
        for d in rows:
            code, loc = d.get("code") or "", d.get("location") or {}
            row = (code, d["message"], loc.get("row"), loc.get("column"))
            if d.get("severity") == "error":
                errors.append(row[:3])
            elif code == "TRI001":
                not_analysed.append(row)
            elif code.startswith("TRI"):
                findings.append(row)
        return path, ("rejected" if errors else "accepted"), errors, findings, not_analysed
    if proc.returncode == EXIT_INPUT:
        return path, "rejected", [("input", proc.stderr.strip().splitlines()[0] if proc.stderr else "", None)], [], []
    return path, "crashed", [(f"exit {proc.returncode}", proc.stderr[-300:], None)], [], []


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tritonc", default=os.path.join(os.path.dirname(__file__), "..", "target", "release", "tritonc"))
    ap.add_argument("--markdown", help="write the report as Markdown to this file")
    ap.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "tritonc-corpus-wheels"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--findings", help="write every lint finding, one per line, to this file")
    args = ap.parse_args()

    rows, details, lint_rows, lint_details, blind = [], [], [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for label, wheel in download(args.cache):
            files = extract(wheel, os.path.join(tmp, os.path.basename(wheel)))
            with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
                results = list(pool.map(lambda p: lint_one(args.tritonc, p), files))
            status = collections.Counter(r[1] for r in results)
            codes, lint_codes = collections.Counter(), collections.Counter()
            for path, st, diags, findings, not_analysed in results:
                rel = os.path.relpath(path, tmp).split(os.sep, 1)[1]
                for code, msg, line in diags:
                    codes[code] += 1
                    details.append(f"{label} {rel}:{line}: {st} {code} {msg}")
                for code, msg, line, col in findings:
                    lint_codes[code] += 1
                    lint_details.append(f"{rel}:{line}:{col}: {code} {msg}")
                for code, msg, line, col in not_analysed:
                    lint_codes[code] += 1
                    blind.append(f"{rel}:{line}:{col}: {code} {msg}")
            rows.append((label, len(files), status["accepted"], status["rejected"], status["crashed"], codes))
            lint_rows.append((label, lint_codes))

    lines = ["| package | files mentioning triton | accepted | rejected | crashed | diagnostics by code |", "|---|---|---|---|---|---|"]
    for label, n, acc, rej, cr, codes in rows:
        by_code = ", ".join(f"{c}×{k}" for c, k in sorted(codes.items())) or "—"
        lines.append(f"| {label} | {n} | {acc} | {rej} | {cr} | {by_code} |")
    lines += ["", "| package | lint findings | kernels not analysed (TRI001) | findings by code |", "|---|---|---|---|"]
    for label, lint_codes in lint_rows:
        total = sum(k for c, k in lint_codes.items() if c != "TRI001")
        by_code = ", ".join(f"{c}×{k}" for c, k in sorted(lint_codes.items()) if c != "TRI001") or "—"
        lines.append(f"| {label} | {total} | {lint_codes['TRI001']} | {by_code} |")
    report = "\n".join(lines)
    print(report)
    print("\n".join(details))
    print("\n".join(lint_details))
    if args.findings:
        with open(args.findings, "w") as f:
            f.write("\n".join(lint_details) + "\n")
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(report + "\n\n<details><summary>Every front-end diagnostic</summary>\n\n```\n" + "\n".join(details) + "\n```\n</details>\n")
            f.write("\n<details><summary>Every lint finding</summary>\n\n```\n" + "\n".join(lint_details) + "\n```\n</details>\n")
            f.write("\n<details><summary>Kernels checked at the source level only (TRI001)</summary>\n\n```\n" + "\n".join(blind) + "\n```\n</details>\n")
    return 1 if any(r[4] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
