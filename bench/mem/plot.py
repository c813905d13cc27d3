#!/usr/bin/env python3
"""One PNG per family of the memory-bound sweep: Triton's time over tritonc's per point
(one line per num_warps, dotted: the A/A pair), one panel per element type. run.py calls
it on the GPU host; where matplotlib is missing there, run it here on the copied JSON:

    python3 bench/mem/plot.py OUT/mem_sweep.json [--out DIR]"""

import argparse
import json
import pathlib


def plot(results, out):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not installed: no PNGs (bench/mem/plot.py OUT/mem_sweep.json makes them)")
        return
    families = list(dict.fromkeys(r["family"] for r in results))
    for fam in families:
        rows = [r for r in results if r["family"] == fam]
        dtypes = list(dict.fromkeys(r["dtype"] for r in rows))
        fig, axes = plt.subplots(1, len(dtypes), figsize=(5 * len(dtypes), 3.8), squeeze=False, sharey=True)
        for ax, dt in zip(axes[0], dtypes):
            for nw, color in zip([4, 8, 16], ["tab:green", "tab:orange", "tab:purple"]):
                pts = sorted((r for r in rows if r["dtype"] == dt and r["warps"] == nw), key=lambda r: r["width"])
                if pts:
                    ax.plot([str(r["width"]) for r in pts], [r["ratio"] for r in pts], marker="o", color=color,
                            label=f"{nw} warps")
                    ax.plot([str(r["width"]) for r in pts], [r["aa"] for r in pts], ls=":", color=color, alpha=0.6)
            ax.axhline(1.0, color="gray", lw=0.8)
            ax.axhline(0.98, color="red", lw=0.6, ls="--")
            ax.set_title(f"{fam} {dt}")
            ax.set_xlabel("elements per row" if fam != "elementwise" else "BLOCK (2^28 elements)")
        axes[0][0].set_ylabel("Triton time / tritonc time (dotted: A/A)")
        axes[0][0].legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(out / f"mem_{fam}.png", dpi=110)
        plt.close(fig)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("report")
    ap.add_argument("--out", default=None, help="default: the report's directory")
    a = ap.parse_args()
    report = pathlib.Path(a.report)
    out = pathlib.Path(a.out) if a.out else report.parent
    out.mkdir(parents=True, exist_ok=True)
    plot(json.loads(report.read_text())["points"], out)


if __name__ == "__main__":
    main()
