#!/usr/bin/env python3
"""tritonc's PTX beside Triton's over the sweep prepare.py compiled: for every point,
registers (each cubin as launched), shared bytes per CTA, `bar.sync`, shuffles and the
global/shared loads and stores by width. Prints a Markdown table of the points where the
two sides differ (all points with --all) and a summary.

    python3 bench/mem/compare.py OUT/cases.json [--all] [--family softmax]"""

import argparse
import collections
import json


def shared(c, side):
    if side == "tritonc":
        return c["tritonc_shared"] + c["tritonc_static_shared"]
    return c["triton_shared"]


def mem(c, side, space):
    facts = c[f"{side}_ptx"]
    return " ".join(f"{k.split('.', 2)[0]}.{k.split('.', 2)[2]}×{v}" for k, v in facts.items()
                    if k.startswith(("ld.", "st.")) and f".{space}" in k) or "-"


def occupancy(regs, smem, warps):
    """Resident warps per SM on sm_90 (65,536 registers in per-warp units of 256, 228 KiB
    shared with 1 KiB reserved per CTA, 64 warps, 32 CTAs)."""
    per_warp = -(-regs * 32 // 256) * 256
    by_regs = 65536 // (per_warp * warps) if regs else 32
    by_smem = (228 * 1024) // (smem + 1024)
    ctas = min(by_regs, by_smem, 64 // warps, 32)
    return ctas * warps


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cases")
    ap.add_argument("--all", action="store_true")
    ap.add_argument("--family", default="")
    a = ap.parse_args()
    cases = [c for c in json.loads(open(a.cases).read()) if "error" not in c and a.family in c["family"]]
    print("| point | regs t/T | warps/SM t/T | shared B t/T | bar.sync t/T | shfl t/T | global t | global T | shared t | shared T |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    tally = collections.Counter()
    for c in cases:
        t, r = c["tritonc_ptxas"], c["triton_ptxas"]
        occ = (occupancy(t["registers"], shared(c, "tritonc"), c["warps"]),
               occupancy(r["registers"], shared(c, "triton"), c["warps"]))
        bar = (c["tritonc_ptx"].get("bar.sync", 0), c["triton_ptx"].get("bar.sync", 0))
        shfl = tuple(sum(v for k, v in c[f"{s}_ptx"].items() if k.startswith("shfl")) for s in ("tritonc", "triton"))
        g = (mem(c, "tritonc", "global"), mem(c, "triton", "global"))
        sm = (mem(c, "tritonc", "shared"), mem(c, "triton", "shared"))
        sh = (shared(c, "tritonc"), shared(c, "triton"))
        tally["points"] += 1
        tally["global same"] += g[0] == g[1]
        tally["shared <= Triton"] += sh[0] <= sh[1]
        tally["occupancy >= Triton"] += occ[0] >= occ[1]
        tally["occupancy < Triton"] += occ[0] < occ[1]
        differ = g[0] != g[1] or sh[0] > sh[1] or occ[0] < occ[1]
        if a.all or differ:
            print(f"| {c['name']}{' (dropped)' if 'dropped' in c else ''} | {t['registers']}/{r['registers']} | "
                  f"{occ[0]}/{occ[1]} | {sh[0]}/{sh[1]} | {bar[0]}/{bar[1]} | {shfl[0]}/{shfl[1]} | {g[0]} | {g[1]} | "
                  f"{sm[0]} | {sm[1]} |")
    print()
    print(", ".join(f"{k}: {v}" for k, v in tally.items()))


if __name__ == "__main__":
    main()
