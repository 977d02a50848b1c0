#!/usr/bin/env python3
"""Aged vs clean file systems under git-history aging (Conway et al.,
FAST'17; workload.kind: aging).

  tools/aging_compare.py OUT [--bin build/app/flashstack] [--doc docs/AGING.md]
                          [--fs f2fs ...] [--device mqsim sdcard] [--trace T]
                          [--pulls N] [--grep-every G] [--set key=value ...]

For each file system and device preset (configs/aging/f2fs_<device>.yaml,
with fs.kind set to the file system): the aged run (the pulls replayed, a
grep test every G pulls and after the last) in OUT/<fs>-<device>/aged, and
for each of its grep points a clean run (mode clean, the tree of that pull
written onto a fresh file system, one grep test) in
OUT/<fs>-<device>/clean-<pulls>. Complete runs already in OUT are reused.

--fs defaults to every file system `flashstack explain fs.kind` offers that
reads from the device (a one-pull probe run whose grep test issues device
reads), so a new file-system kind joins the table without an edit here.

Writes OUT/table.md (one table per file system and device: pulls | bytes |
aged s/GiB | clean s/GiB | aged/clean | DLS aged | DLS clean | flash
blocks/MiB aged/clean | channels/MiB aged/clean), OUT/aging.csv,
OUT/figures.json (the headline figures, for tools/repro.py's seed004 set),
and a plot
of aged/clean and DLS against pulls (OUT/aging.png; with --doc also
aging.png beside the doc). With --doc, the tables go into that file
between its "<!-- aging-table begin -->" and "<!-- aging-table end -->"
lines.
"""
import argparse
import csv
import math
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pydeps import need  # noqa: E402
from runs import load_stats, run_config, stat, write_figures  # noqa: E402

if __name__ == "__main__":
    need("aging_compare.py", ["matplotlib"])  # for aging.png; reruns under /usr/bin/python3 if that has it

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEVICES = {
    "mqsim": ("configs/aging/f2fs_mqsim.yaml", "MQSim-like SSD (the device of configs/stacks/*_ssd.yaml, 4 channels)"),
    "sdcard": ("configs/aging/f2fs_sdcard.yaml", "SD-card-like device (configs/devices/sdcard.yaml, 1 channel)"),
}
BEGIN, END = "<!-- aging-table begin -->", "<!-- aging-table end -->"


def fs_kinds(bin_path):
    """The choices of fs.kind, as `flashstack explain fs.kind` lists them (none left out)."""
    r = subprocess.run([bin_path, "explain", "fs.kind"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        sys.exit(f"cannot run {bin_path} explain fs.kind: {r.stderr.strip()}")
    m = re.search(r"\[choice: ([^\]]+)\]", r.stdout)
    if not m:
        sys.exit(f"{bin_path} explain fs.kind: no choices in its output")
    return [k for k in m.group(1).split("|") if k != "none"]


def base_sets(fs, trace, pulls, grep_every, extra):
    sets = [f"fs.kind={fs}"]
    if trace:
        sets.append(f"workload.aging.trace={os.path.abspath(trace)}")
    if pulls:
        sets.append(f"workload.aging.pulls={pulls}")
    if grep_every:
        sets.append(f"workload.aging.grep_every={grep_every}")
    return sets + list(extra)


def uses_device(bin_path, out, fs, device, trace, extra):
    """True when a one-pull aged run of fs reads from the device in its grep test."""
    d = os.path.join(out, "probe", f"{fs}-{device}")
    run_config(bin_path, os.path.join(ROOT, DEVICES[device][0]), d,
               base_sets(fs, trace, 1, 1, extra))
    return stat(load_stats(d), "workload.aging.grep.0.read_requests") > 0


def num(s, k):
    v = stat(s, k, default=float("nan"))
    return float("nan") if v is None else float(v)


def grep_points(s):
    out = []
    for k in range(int(num(s, "workload.aging.grep_points"))):
        p = f"workload.aging.grep.{k}."
        out.append({f: num(s, p + f) for f in ("pulls", "bytes", "files", "time", "s_per_GiB", "dls",
                                                "flash_blocks_per_MiB", "channels_per_MiB")})
    return out


def measure(bin_path, out, fs, device, trace, pulls, grep_every, extra):
    """[(aged point, clean point)] of fs on device, running what is missing."""
    cfg = os.path.join(ROOT, DEVICES[device][0])
    d = os.path.join(out, f"{fs}-{device}")
    sets = base_sets(fs, trace, pulls, grep_every, extra)
    run_config(bin_path, cfg, os.path.join(d, "aged"), sets)
    aged = grep_points(load_stats(os.path.join(d, "aged")))
    rows = []
    for a in aged:
        p = int(a["pulls"])
        c_dir = os.path.join(d, f"clean-{p}")
        run_config(bin_path, cfg, c_dir,
                   sets + ["workload.aging.mode=clean", f"workload.aging.clean_at={p - 1}"])
        rows.append((a, grep_points(load_stats(c_dir))[0]))
    return rows


def ratio(a, b):
    return a / b if b and not math.isnan(a) and not math.isnan(b) else float("nan")


def fmt(v, digits=3):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    return f"{v:.{digits}f}"


def table(fs, device, rows):
    lines = [f"**{fs} on the {DEVICES[device][1]}**", "",
             "| pulls | bytes | aged s/GiB | clean s/GiB | aged/clean | DLS aged | DLS clean | "
             "flash blocks/MiB aged/clean | channels/MiB aged/clean |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for a, c in rows:
        lines.append(f"| {int(a['pulls'])} | {int(a['bytes']):,} | {fmt(a['s_per_GiB'], 2)} | {fmt(c['s_per_GiB'], 2)} | "
                     f"{fmt(ratio(a['s_per_GiB'], c['s_per_GiB']))} | {fmt(a['dls'])} | {fmt(c['dls'])} | "
                     f"{fmt(a['flash_blocks_per_MiB'], 1)} / {fmt(c['flash_blocks_per_MiB'], 1)} | "
                     f"{fmt(a['channels_per_MiB'], 2)} / {fmt(c['channels_per_MiB'], 2)} |")
    return "\n".join(lines) + "\n"


def figures(results):
    """The headline figures for OUT/figures.json (tools/repro.py's seed004
    set), per file system and device: grep cost aged / clean at each grep
    point and at the last, and the clean grep cost (s/GiB) at the first."""
    out = {}
    for (fs, device), rows in results.items():
        key = f"{fs}_{device}"
        out[f"aged_over_clean_{key}"] = [[f"{int(a['pulls'])} pulls", ratio(a["s_per_GiB"], c["s_per_GiB"])]
                                         for a, c in rows]
        if rows:
            a, c = rows[-1]
            out[f"aged_over_clean_last_{key}"] = ratio(a["s_per_GiB"], c["s_per_GiB"])
            out[f"clean_s_per_GiB_first_{key}"] = rows[0][1]["s_per_GiB"]
            out[f"pulls_last_{key}"] = a["pulls"]
    devices = {d for _, d in results}
    for d in devices:
        if ("f2fs", d) in results and ("ext4", d) in results and results[("f2fs", d)] and results[("ext4", d)]:
            # clean grep cost, F2FS / ext4, at each common grep point and at the last
            ext4 = {a["pulls"]: c["s_per_GiB"] for a, c in results[("ext4", d)]}
            pairs = [[f"{int(a['pulls'])} pulls", ratio(c["s_per_GiB"], ext4[a["pulls"]])]
                     for a, c in results[("f2fs", d)] if a["pulls"] in ext4]
            out[f"clean_f2fs_over_ext4_{d}"] = pairs
            if pairs:
                out[f"clean_f2fs_over_ext4_last_{d}"] = pairs[-1][1]
    return out


def plot(results, path):
    """aging.png; without matplotlib, a one-line note instead."""
    try:
        import matplotlib
    except ImportError:
        print(f"aging_compare: {path} not drawn: needs matplotlib (Debian: python3-matplotlib, which "
              f"/usr/bin/python3 has)", file=sys.stderr)
        return False
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    for (fs, device), rows in results.items():
        x = [a["pulls"] for a, _ in rows]
        label = f"{fs} / {device}"
        ax1.plot(x, [ratio(a["s_per_GiB"], c["s_per_GiB"]) for a, c in rows], marker="o", label=label)
        line, = ax2.plot(x, [a["dls"] for a, _ in rows], marker="o", label=f"{label} aged")
        ax2.plot(x, [c["dls"] for _, c in rows], marker="x", linestyle="--", color=line.get_color(),
                 label=f"{label} clean")
    ax1.axhline(1.0, color="grey", linewidth=0.8)
    ax1.set_xlabel("pulls")
    ax1.set_ylabel("grep cost aged / clean (s/GiB)")
    ax1.legend(fontsize=8)
    ax2.set_xlabel("pulls")
    ax2.set_ylabel("dynamic layout score")
    ax2.set_ylim(0, 1.05)
    ax2.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True


def replace_block(text, body):
    b, e = text.find(BEGIN), text.find(END)
    if b < 0 or e < b:
        sys.exit(f"--doc: the file has no '{BEGIN}' ... '{END}' block")
    return text[:b + len(BEGIN)] + "\n" + body + text[e:]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "app", "flashstack"))
    ap.add_argument("--doc")
    ap.add_argument("--fs", nargs="+", help="file-system kinds (default: every one that uses the device)")
    ap.add_argument("--device", nargs="+", choices=sorted(DEVICES), default=["mqsim", "sdcard"])
    ap.add_argument("--trace", help="git-aging trace (default: the presets' sample trace)")
    ap.add_argument("--pulls", type=int, default=0, help="pulls replayed (0 = the presets' / all)")
    ap.add_argument("--grep-every", type=int, default=0, help="pulls between grep tests (0 = the presets')")
    ap.add_argument("--set", dest="sets", action="append", default=[], help="extra key=value for every run")
    a = ap.parse_args()
    if a.trace and not os.path.isfile(a.trace):
        print(f"aging_compare: --trace: no such file: {a.trace}", file=sys.stderr)
        return 2
    if a.pulls < 0 or a.grep_every < 0:
        print("aging_compare: --pulls and --grep-every must be >= 0", file=sys.stderr)
        return 2
    kinds = a.fs or [k for k in fs_kinds(a.bin) if uses_device(a.bin, a.out, k, a.device[0], a.trace, a.sets)]
    if not kinds:
        print("aging_compare: no file system to compare", file=sys.stderr)
        return 2
    results = {}
    for fs in kinds:
        for device in a.device:
            results[(fs, device)] = measure(a.bin, a.out, fs, device, a.trace, a.pulls, a.grep_every, a.sets)
    text = "\n".join(table(fs, device, rows) for (fs, device), rows in results.items())
    with open(os.path.join(a.out, "table.md"), "w") as f:
        f.write(text)
    with open(os.path.join(a.out, "aging.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["fs", "device", "pulls", "bytes", "files", "aged_s_per_GiB", "clean_s_per_GiB", "aged_over_clean",
                    "dls_aged", "dls_clean", "flash_blocks_per_MiB_aged", "flash_blocks_per_MiB_clean",
                    "channels_per_MiB_aged", "channels_per_MiB_clean"])
        for (fs, device), rows in results.items():
            for x, c in rows:
                w.writerow([fs, device, int(x["pulls"]), int(x["bytes"]), int(x["files"]), x["s_per_GiB"],
                            c["s_per_GiB"], ratio(x["s_per_GiB"], c["s_per_GiB"]), x["dls"], c["dls"],
                            x["flash_blocks_per_MiB"], c["flash_blocks_per_MiB"], x["channels_per_MiB"],
                            c["channels_per_MiB"]])
    write_figures(a.out, figures(results))
    png = os.path.join(a.out, "aging.png")
    drawn = plot(results, png)
    print(text)
    if a.doc:
        with open(a.doc) as f:
            doc = f.read()
        with open(a.doc, "w") as f:
            f.write(replace_block(doc, text))
        if drawn:
            shutil.copyfile(png, os.path.join(os.path.dirname(os.path.abspath(a.doc)), "aging.png"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
