#!/usr/bin/env python3
"""Measures `tritonc lint`'s precision on the Triton kernels that published wheels ship.

Downloads the pinned wheels below (`pip download --no-deps`, into --cache; nothing is
committed), extracts the `.py` files that mention `triton` into a temporary directory, runs
`tritonc lint --output-format json` once per package with the default settings, and
compares every finding with the hand verdicts in docs/lint-precision.tsv (one row per
judged finding: `path:row:col`, code, TP or FP, the reason).

Prints, and with --markdown writes, per package and per rule: the findings, how many were
judged, the true and false positives among them and the false-positive rate; the share of
TRI203 in the output; and the verdict rows that match no finding any more (a false positive
an analysis fix removed, or a true positive lost: both are listed).

Usage:
  scripts/lint_precision.py --tritonc PATH [--cache DIR] [--markdown FILE] [--findings FILE]
                            [--check]

--check exits 1 when a rule's false-positive rate among judged findings is over 10 %, when
TRI203 is more than a quarter of the output, or when a judged true positive is gone.
"""

import argparse
import collections
import csv
import json
import os
import subprocess
import sys
import tempfile
import zipfile

# Pinned so that the numbers in docs/lint-precision.md are reproducible.
WHEELS = [
    ("liger-kernel", "0.8.5"),
    ("fla-core", "0.6.0"),
    ("unsloth", "2026.10.9"),
    ("flag-gems", "5.0.2"),
    ("torchao", "0.18.0"),
]

HERE = os.path.dirname(os.path.abspath(__file__))
VERDICTS = os.path.join(HERE, "..", "docs", "lint-precision.tsv")
MAX_FP_RATE = 0.10
MAX_TRI203_SHARE = 0.25


def download(cache):
    os.makedirs(cache, exist_ok=True)
    out = []
    for name, version in WHEELS:
        stem = name.replace("-", "_")

        def present():
            return sorted(f for f in os.listdir(cache) if f.startswith(f"{stem}-{version}-") and f.endswith(".whl"))

        if not present():
            subprocess.run(
                [sys.executable, "-m", "pip", "download", "-q", "--no-deps", f"{name}=={version}", "-d", cache],
                check=True,
            )
        out.append((f"{name} {version}", os.path.join(cache, present()[0])))
    return out


def extract(wheel, dest):
    n = 0
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
            n += 1
    return n


def lint(tritonc, root):
    """Every finding under `root` as (path:row:col, code, message)."""
    proc = subprocess.run(
        [tritonc, "lint", "--output-format", "json", "--exit-zero", "-q", "."],
        cwd=root,
        capture_output=True,
        text=True,
    )
    if proc.returncode not in (0, 2):
        sys.exit(f"tritonc lint exited {proc.returncode} in {root}:\n{proc.stderr[-2000:]}")
    rows = json.loads(proc.stdout or "[]")
    out = []
    for d in rows:
        code = d.get("code") or ""
        if not code.startswith("TRI") or code == "TRI001":
            continue
        loc = d.get("location") or {}
        rel = os.path.relpath(os.path.join(root, d["filename"]), root)
        out.append((f"{rel}:{loc.get('row')}:{loc.get('column')}", code, d["message"]))
    return out


def load_verdicts():
    verdicts = {}
    with open(VERDICTS, newline="") as f:
        for row in csv.reader(f, delimiter="\t"):
            if not row or row[0].startswith("#") or row[0] == "location":
                continue
            loc, code, verdict, reason = row
            assert verdict in ("TP", "FP"), row
            verdicts[(loc, code)] = (verdict, reason)
    return verdicts


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tritonc", required=True)
    ap.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "tritonc-corpus-wheels"))
    ap.add_argument("--markdown", help="write the tables as Markdown to this file")
    ap.add_argument("--findings", help="write every finding, one per line, to this file")
    ap.add_argument("--check", action="store_true", help="exit 1 if a target is missed")
    args = ap.parse_args()

    verdicts = load_verdicts()
    findings = []  # (package, location, code, message)
    files = {}
    with tempfile.TemporaryDirectory() as tmp:
        for label, wheel in download(args.cache):
            root = os.path.join(tmp, label.split()[0])
            files[label] = extract(wheel, root)
            findings += [(label, loc, code, msg) for loc, code, msg in lint(args.tritonc, root)]

    by_pkg = collections.defaultdict(collections.Counter)
    by_rule = collections.Counter()
    judged = collections.defaultdict(collections.Counter)
    seen = set()
    for label, loc, code, _ in findings:
        by_pkg[label][code] += 1
        by_rule[code] += 1
        v = verdicts.get((loc, code))
        if v:
            judged[code][v[0]] += 1
            seen.add((loc, code))
    total = sum(by_rule.values())

    lines = ["| package | files mentioning triton | findings | by rule |", "|---|---|---|---|"]
    for label, n in files.items():
        c = by_pkg[label]
        by = ", ".join(f"{k}×{v}" for k, v in sorted(c.items())) or "—"
        lines.append(f"| {label} | {n} | {sum(c.values())} | {by} |")
    lines += ["", "| rule | findings | judged | TP | FP | FP rate |", "|---|---|---|---|---|---|"]
    failed = []
    for code in sorted(set(by_rule) | set(judged)):
        j = judged[code]
        n = j["TP"] + j["FP"]
        rate = j["FP"] / n if n else 0.0
        shown = f"{rate:.0%}" if n else "not judged"
        lines.append(f"| {code} | {by_rule[code]} | {n} | {j['TP']} | {j['FP']} | {shown} |")
        if rate > MAX_FP_RATE:
            failed.append(f"{code}: false-positive rate {rate:.0%} over {MAX_FP_RATE:.0%}")
        if n < min(20, by_rule[code]):
            failed.append(f"{code}: {n} judged of {by_rule[code]}, fewer than min(20, findings)")
    share = by_rule["TRI203"] / total if total else 0.0
    lines += ["", f"Total: {total} findings; TRI203 is {by_rule['TRI203']} of them ({share:.0%})."]
    if share > MAX_TRI203_SHARE:
        failed.append(f"TRI203 is {share:.0%} of the output, over {MAX_TRI203_SHARE:.0%}")
    gone = sorted((loc, code, v) for (loc, code), v in verdicts.items() if (loc, code) not in seen)
    if gone:
        lines += ["", "Judged findings no longer reported:", ""]
        for loc, code, (verdict, reason) in gone:
            lines.append(f"- {loc} {code} ({verdict}): {reason}")
            if verdict == "TP":
                failed.append(f"true positive lost: {loc} {code}")
    report = "\n".join(lines)
    print(report)
    if args.findings:
        with open(args.findings, "w") as f:
            for label, loc, code, msg in sorted(findings, key=lambda r: (r[1], r[2])):
                v = verdicts.get((loc, code))
                f.write(f"{loc}\t{code}\t{v[0] if v else '-'}\t{msg}\n")
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(report + "\n")
    if args.check and failed:
        print("\n".join(["", "targets missed:"] + failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
