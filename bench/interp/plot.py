#!/usr/bin/env python3
"""The scaling PNG of a bench/interp/bench.py report: time per launch against threads for
each workload (log-log), with Triton's interpreter as a dashed line of the same colour.

    python3 bench/interp/plot.py OUT/interp.json [PNG]      (needs matplotlib)
"""

import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def plot(report, path):
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(12, 4.8))
    # A workload Triton's interpreter failed on has no timings to draw.
    for i, w in enumerate(w for w in report["workloads"] if "tritonc_s" in w):
        color = f"C{i}"
        ts = sorted(int(t) for t in w["tritonc_s"])
        ax.plot(ts, [w["tritonc_s"][str(t)] for t in ts], "o-", color=color,
                label=f"{w['name']} (tritonc)")
        ax.axhline(w["triton_s"], color=color, ls="--", lw=1)
        ax2.plot(ts, [w["speedup_vs_triton"][str(t)] for t in ts], "o-", color=color,
                 label=w["name"])
    ax.set(xscale="log", yscale="log", xlabel="threads", ylabel="seconds per launch",
           title="tritonc interpreter (dashed: Triton's interpreter)")
    ax2.set(xscale="log", yscale="log", xlabel="threads", ylabel="x Triton's interpreter",
            title=f"speedup, {report['cpu_count']} cores, Triton {report['triton']}")
    ax2.axhline(30, color="gray", ls=":", lw=1)
    for a in (ax, ax2):
        a.set_xticks(sorted(int(t) for t in report["threads"]))
        a.get_xaxis().set_major_formatter(matplotlib.ticker.ScalarFormatter())
        a.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


if __name__ == "__main__":
    src = sys.argv[1]
    dst = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(src), "scaling.png")
    with open(src) as f:
        plot(json.load(f), dst)
    print(f"wrote {dst}")
