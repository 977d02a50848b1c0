#!/usr/bin/env python3
"""Per-flow figures of multi-flow runs (workload.flows): runs a config whose
sweep compares arbitration settings (default: the interference example) and
prints a markdown table of each flow's throughput, latency, queue wait and
slowdown, and each point's fairness; optionally a PNG figure.

  tools/flows_table.py OUT [--bin build/app/flashstack]
                       [--config configs/examples/interference.yaml]
                       [--set key=value ...] [--doc docs/FLOWS.md [--marker NAME]]
                       [--plot docs/flows.png]

The run goes to OUT (a complete earlier run there is reused; delete OUT to
rerun). The table is printed and written to OUT/table.md; with --doc also
into that file between its "<!-- flows-table begin -->" and
"<!-- flows-table end -->" lines ("<!-- flows-table NAME begin -->" ... with
--marker NAME). --plot needs matplotlib (Debian's
python3-matplotlib; /usr/bin/python3 has it).
"""
import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from runs import replace_marked_block  # noqa: E402


def points(out):
    """(folder, stats, config) of each run below OUT (a sweep's points, or OUT itself)."""
    found = []
    cands = [out] + [os.path.join(out, d) for d in sorted(os.listdir(out))] if os.path.isdir(out) else []
    for d in cands:
        p = os.path.join(d, "stats.json")
        if os.path.exists(p):
            with open(p) as f:
                j = json.load(f)
            found.append((d, j["stats"], j.get("config", {})))
    return found


def run(bin_path, cfg, out, sets):
    if points(out) and all(os.path.exists(os.path.join(d, "run_info.json")) for d, _, _ in points(out)):
        return
    cmd = [bin_path, "run", cfg, "--noprogress", "--out", out]
    for s in sets:
        cmd += ["--set", s]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        sys.exit(f"run failed ({r.returncode}): {' '.join(cmd)}\n{r.stdout}")


def field(s, k, f="value"):
    v = s.get(k)
    if v is None:
        return float("nan")
    x = v.get(f)
    return float("nan") if x is None else float(x)


def flows_of(s):
    names = set()
    for k in s:
        if k.startswith("flows.") and k.endswith(".ios_total"):
            names.add(k[len("flows."):-len(".ios_total")])
    return sorted(names)


def main_op(s, name):
    """The flow's op with the most I/Os (read or write)."""
    best = ("read", -1)
    for op in ("read", "write"):
        n = field(s, f"flows.{name}.{op}.lat", "count")
        if n == n and n > best[1]:
            best = (op, n)
    return best[0]


def label(cfg):
    dev = cfg.get("device", {})
    arb = dev.get("ssd", {}).get("arbitration", {})
    sched = dev.get("flash", {}).get("scheduler", "?")
    pol = arb.get("policy", "?")
    if pol == "wrr":
        return f"wrr (weights {arb.get('high_weight')}/{arb.get('medium_weight')}/{arb.get('low_weight')}, " \
               f"burst {arb.get('burst')}), {sched} dies"
    return f"{pol} (burst {arb.get('burst')}), {sched} dies"


def us(ns):
    return "n/a" if ns != ns else f"{ns / 1e3:.1f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--bin", default="build/app/flashstack")
    ap.add_argument("--config", default="configs/examples/interference.yaml")
    ap.add_argument("--set", action="append", default=[], dest="sets")
    ap.add_argument("--doc")
    ap.add_argument("--marker", default="")
    ap.add_argument("--plot")
    a = ap.parse_args()
    run(a.bin, a.config, a.out, a.sets)
    pts = points(a.out)
    if not pts:
        sys.exit(f"{a.out}: no stats.json")
    lines = [f"`flashstack run {a.config}`" + "".join(f" --set {s}" for s in a.sets) +
             f" (seed {pts[0][2].get('seed', '?')}); latencies are end to end (submission to completion) over each "
             "flow's measured window; the queue wait is submission to fetch by the controller; slowdown = mean "
             "latency shared / mean latency alone; fairness = min slowdown / max slowdown.", ""]
    lines.append("| arbitration | flow | priority | IOPS | MB/s | op | mean (us) | p99 (us) | queue wait mean (us) | "
                 "device mean (us) | alone mean (us) | slowdown |")
    lines.append("|---|---|---|---|---|---|---|---|---|---|---|---|")
    fair = []
    plot = []
    for d, s, cfg in pts:
        lab = label(cfg)
        flows_cfg = cfg.get("workload", {}).get("flows", {})
        for n in flows_of(s):
            op = main_op(s, n)
            prio = flows_cfg.get(n, {}).get("priority", "?")
            row = {
                "iops": field(s, f"flows.{n}.iops"),
                "mbps": field(s, f"flows.{n}.bw") / 1e6,
                "mean": field(s, f"flows.{n}.{op}.lat", "mean"),
                "p99": field(s, f"flows.{n}.{op}.lat", "p99"),
                "wait": field(s, f"ssd.flow.{n}.queue_wait", "mean"),
                "dev": field(s, f"ssd.flow.{n}.device_latency.{op}", "mean"),
                "alone": field(s, f"flows.{n}.alone_latency"),
                "slow": field(s, f"flows.{n}.slowdown"),
            }
            plot.append((lab.split(" ")[0] + "\n" + lab.split(", ")[-1], n, row))
            lines.append(f"| {lab} | {n} | {prio} | {row['iops']:.0f} | {row['mbps']:.1f} | {op} | {us(row['mean'])} | "
                         f"{us(row['p99'])} | {us(row['wait'])} | {us(row['dev'])} | {us(row['alone'])} | "
                         f"{row['slow']:.2f} |")
        fair.append((lab, field(s, "flows.fairness")))
    lines.append("")
    lines.append("| arbitration | fairness |")
    lines.append("|---|---|")
    for lab, f in fair:
        lines.append(f"| {lab} | {f:.3f} |")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(a.out, "table.md"), "w") as f:
        f.write(text)
    if a.doc:
        replace_marked_block(a.doc, f"flows-table {a.marker}" if a.marker else "flows-table", text)
    if a.plot:
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            sys.exit("--plot needs matplotlib (Debian: python3-matplotlib; run with /usr/bin/python3)")
        names = sorted({n for _, n, _ in plot})
        fig, axes = plt.subplots(1, len(names), figsize=(5.5 * len(names), 3.8))
        if len(names) == 1:
            axes = [axes]
        for ax, n in zip(axes, names):
            rows = [(p, r) for p, m, r in plot if m == n]
            pos = list(range(len(rows)))
            ax.bar([x - 0.27 for x in pos], [r["alone"] / 1e3 for _, r in rows], 0.27, label="alone: mean")
            ax.bar(pos, [r["mean"] / 1e3 for _, r in rows], 0.27, label="shared: mean")
            ax.bar([x + 0.27 for x in pos], [r["p99"] / 1e3 for _, r in rows], 0.27, label="shared: p99")
            ax.set_xticks(pos)
            ax.set_xticklabels([p for p, _ in rows], fontsize=8)
            ax.set_yscale("log")
            ax.set_ylabel("end-to-end latency (us)")
            ax.set_title(f"flow {n}")
            ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(a.plot, dpi=110)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
