#!/usr/bin/env python3
"""One PNG per kernel family from a bench/gpu_bench.py report: throughput across sizes
(GB/s; TFLOP/s for matmul and attention) for upstream Triton, tritonc and PyTorch, one
panel per element type, with the device-to-device copy roofline of the same run as a
dashed line for memory-bound families.

    python3 bench/plot.py REPORT.json [--out docs/img]

Needs matplotlib (not the GPU host: the report is copied back and plotted here).
"""

import argparse
import json
import pathlib
import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

SIDES = [("triton", "Triton 3.6", "tab:blue", "o"), ("tritonc", "tritonc", "tab:red", "s"),
         ("torch", "PyTorch", "tab:gray", "^")]


def slug(family):
    return re.sub(r"[^a-z0-9]+", "-", family.lower()).strip("-")


def plot_family(family, rows, copy_gbs, device, date, out):
    dtypes = list(dict.fromkeys(r["dtype"] for r in rows))
    fig, axes = plt.subplots(1, len(dtypes), figsize=(5.2 * len(dtypes), 4), squeeze=False, sharey=True)
    for ax, dtype in zip(axes[0], dtypes):
        series = sorted((r for r in rows if r["dtype"] == dtype), key=lambda r: r["bytes_moved"])
        labels = [r["size"] for r in series]
        xs = range(len(series))
        metric = "tflop_per_s" if all("tflop_per_s" in r for r in series) else "gb_per_s"
        for key, name, color, marker in SIDES:
            ys = [r[metric].get(key) for r in series]
            if all(y is None for y in ys):
                continue
            ax.plot(xs, [y if y is not None else float("nan") for y in ys], marker=marker, color=color,
                    label=name, linewidth=1.6 if key != "torch" else 1.0)
        for x, r in zip(xs, series):
            ax.annotate(f"{r['tritonc_over_triton']:.3f}×", (x, r[metric]["tritonc"]),
                        textcoords="offset points", xytext=(0, 7), ha="center", fontsize=7, color="tab:red")
        if metric == "gb_per_s":
            ax.axhline(copy_gbs, color="black", linestyle="--", linewidth=0.8,
                       label=f"copy roofline ({copy_gbs:.0f} GB/s)")
        ax.set_ylabel("TFLOP/s" if metric == "tflop_per_s" else "GB/s (bytes a launch must move / GPU time)")
        ax.set_xticks(list(xs))
        ax.set_xticklabels(labels, rotation=20, fontsize=8)
        ax.set_title(f"{family}, {dtype}", fontsize=10)
        ax.set_xlabel("size")
        ax.grid(alpha=0.3)
    axes[0][-1].legend(fontsize=7, loc="lower right")
    fig.suptitle(f"{device}, {date}: tritonc/Triton ratio above each tritonc point", fontsize=9)
    fig.tight_layout()
    path = out / f"bench-{slug(family)}.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("report")
    ap.add_argument("--out", default="docs/img")
    args = ap.parse_args()
    report = json.loads(pathlib.Path(args.report).read_text())
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = [r for r in report["results"] if r.get("status") == "ok" and "bytes_moved" in r]
    families = list(dict.fromkeys(r["family"] for r in rows))
    for family in families:
        path = plot_family(family, [r for r in rows if r["family"] == family], report["copy_gb_per_s"],
                           report["device"], report["date"], out)
        print(path)


if __name__ == "__main__":
    main()
