#!/usr/bin/env python3
"""F2FS vs F2FS-J (issue 12): runs filebench configs with fs.f2fs.durability
checkpoint and journal on the same device and seed, and prints a markdown
table of checkpoints, stalls, operation latency and journal traffic, then the
seed paper's headline figures beside what the runs show.

  tools/f2fsj_compare.py OUT [--bin build/app/flashstack] [--max-time 30s]
                         [--cores 10] [--set key=value ...] [--doc docs/F2FSJ.md]
                         [--modes checkpoint,journal,journal_artifact] [configs ...]

Modes: checkpoint (Linux 5.15 F2FS), journal (F2FS-J as the paper
describes it) and journal_artifact (F2FS-J as its public artifact does it:
durability journal with the fs.f2fs.journal keys of
configs/f2fs/journal_artifact.yaml); the table says which row is which.

Every run has --cores host CPU cores (host.cpu.cores): 10 by default, the
seed's testbed (Intel i9-10850K, a 10-core part; the slides print "19 CPU
cores"); 0 runs every simulated thread on its own core.

Configs default to every configs/filebench/*.yaml but the *_journal.yaml
ones (their base config with durability journal, which the modes cover). Each run goes to
OUT/<config>/<mode>/; a run already complete there is reused (delete OUT to
rerun). The table is printed on stdout and written to OUT/table.md; with
--doc, also into that file between its "<!-- f2fsj-table begin -->" and
"<!-- f2fsj-table end -->" lines.
"""
import argparse
import os
import sys

from runs import load_stats, replace_marked_block, run_config, stat, write_figures

# checkpoint: Linux 5.15 F2FS. journal: F2FS-J as the paper describes it
# (configs/f2fs/journal.yaml's keys are the defaults). journal_artifact:
# F2FS-J as its public artifact does it (configs/f2fs/journal_artifact.yaml).
MODES = ["checkpoint", "journal", "journal_artifact"]
MODE_NOTE = {"checkpoint": "F2FS (Linux 5.15)", "journal": "F2FS-J, paper-faithful",
             "journal_artifact": "F2FS-J, artifact-faithful"}
ARTIFACT_PROFILE = "configs/f2fs/journal_artifact.yaml"


def profile_sets(path):
    """--set options for the fs.f2fs.journal keys of a profile: the lines
    'key: value' under its 'journal:' (no YAML library needed)."""
    sets, depth = [], None
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(os.path.join(root, path)) as f:  # a relative path is the repository's
        for line in f:
            text = line.split("#", 1)[0].rstrip()
            if not text.strip():
                continue
            indent = len(text) - len(text.lstrip())
            if text.strip() == "journal:":
                depth = indent
                continue
            if depth is not None:
                if indent <= depth:
                    break
                key, _, value = text.strip().partition(":")
                sets.append(f"fs.f2fs.journal.{key.strip()}={value.strip()}")
    if not sets:
        sys.exit(f"{path}: no keys under journal:")
    return sets


def mode_sets(mode):
    if mode == "journal_artifact":
        return ["fs.f2fs.durability=journal"] + profile_sets(ARTIFACT_PROFILE)
    return [f"fs.f2fs.durability={mode}"]


def run(bin_path, cfg, mode, out, max_time, cores, sets):
    run_config(bin_path, cfg, out, mode_sets(mode) + [f"run.max_time={max_time}", f"host.cpu.cores={cores}"] +
               list(sets))


# The calls of every kind that overlapped checkpointing (MeteredFs).
DURING_CP = "workload.fs.during_checkpoint.lat"


def op_latency(s):
    """Mean and the p99 of the most frequent operation, over workload.fs.*."""
    total_n = total_ns = 0.0
    top = (0, None)
    for k, v in s.items():
        if not (k.startswith("workload.fs.") and k.endswith(".lat")) or k == DURING_CP:
            continue
        n = v.get("count", 0) or 0
        if n == 0:
            continue
        total_n += n
        total_ns += n * (v.get("mean", 0) or 0)
        if n > top[0]:
            top = (n, k)
    mean = total_ns / total_n if total_n else 0.0
    p99 = stat(s, top[1], "p99") if top[1] else 0.0
    name = top[1][len("workload.fs."):-len(".lat")] if top[1] else "-"
    return mean, p99, name


def row(s):
    cps = stat(s, "fs.cp.count")
    cp_mean = stat(s, "fs.cp.duration", "mean")
    mean, p99, top = op_latency(s)
    return {
        "ops_s": stat(s, "workload.ops_per_sec") or stat(s, "workload.fb_ops_per_sec"),
        "cps": cps,
        "cp_time": cps * cp_mean / 1e9,
        "cp_p90": stat(s, "fs.cp.duration", "p90") / 1e6,
        "stall": stat(s, "fs.cp.stall_total") / 1e9,
        "cp_calls": stat(s, DURING_CP, "count"),
        "cp_call_p90": stat(s, DURING_CP, "p90") / 1e6,
        "lat_mean": mean / 1e3,
        "lat_p99": p99 / 1e3,
        "top": top,
        "fsyncs": stat(s, "fs.fsync.calls"),
        "fsync_cps": stat(s, "fs.fsync.checkpoints"),
        "j_mib": stat(s, "fs.journal.bytes") / 2**20,
        "commits": stat(s, "fs.journal.commits"),
        "wa": stat(s, "fs.write_amplification"),
    }


def ratio(a, b):
    if b == 0:
        return float("inf") if a > 0 else 1.0
    return a / b


def fmt_ratio(x):
    if x != x:
        return "n/a"
    return "inf" if x == float("inf") else f"{x:.2f}x"


def figures(rows):
    """The headline figures, per workload, for OUT/figures.json."""
    cp_rows = [(n, r) for n, r in rows if r["checkpoint"]["cp_time"] >= 0.1]
    cp_call = [(n, r) for n, r in rows if r["checkpoint"]["cp_calls"] > 0]
    return {
        # checkpointing time, F2FS / F2FS-J, where F2FS checkpointed >= 0.1 s
        "cp_time_ratio": [[n, ratio(r["checkpoint"]["cp_time"], r["journal"]["cp_time"])] for n, r in cp_rows],
        # mean operation latency, F2FS-J vs F2FS, percent
        "op_latency_change": [[n, (r["journal"]["lat_mean"] / r["checkpoint"]["lat_mean"] - 1) * 100]
                              for n, r in rows if r["checkpoint"]["lat_mean"] > 0 and r["journal"]["lat_mean"] > 0],
        # P90 latency (ms) of the calls that overlapped a checkpoint
        "cp_call_p90_f2fs_ms": [[n, r["checkpoint"]["cp_call_p90"]] for n, r in cp_call],
        # (F2FS-J: only where some call overlapped one of its checkpoints)
        "cp_call_p90_f2fsj_ms": [[n, r["journal"]["cp_call_p90"]] for n, r in rows if r["journal"]["cp_calls"] > 0],
        # checkpoints written, and seconds operations stalled behind them
        "checkpoints_f2fs": [[n, r["checkpoint"]["cps"]] for n, r in rows],
        "checkpoints_f2fsj": [[n, r["journal"]["cps"]] for n, r in rows],
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("configs", nargs="*")
    ap.add_argument("--bin", default="build/app/flashstack")
    ap.add_argument("--max-time", default="30s")
    ap.add_argument("--cores", default="10", help="host.cpu.cores of every run (default: the seed's 10)")
    ap.add_argument("--set", action="append", default=[], dest="sets")
    ap.add_argument("--doc")
    ap.add_argument("--modes", default=",".join(MODES), help="modes to run, of " + ", ".join(MODES))
    a = ap.parse_intermixed_args()
    modes = a.modes.split(",")
    if any(m not in MODES for m in modes) or modes[:2] != ["checkpoint", "journal"]:
        ap.error(f"--modes: checkpoint,journal then optionally journal_artifact (got {a.modes})")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    os.chdir(root)
    # The *_journal.yaml configs are their base configs with durability
    # journal set: the modes cover them.
    configs = a.configs or sorted(os.path.join("configs/filebench", c) for c in os.listdir("configs/filebench")
                                  if c.endswith(".yaml") and not c.endswith("_journal.yaml"))
    rows = []
    for cfg in configs:
        name = os.path.splitext(os.path.basename(cfg))[0]
        r = {}
        for mode in modes:
            out = os.path.join(a.out, name, mode)
            run(a.bin, cfg, mode, out, a.max_time, a.cores, a.sets)
            r[mode] = row(load_stats(out))
        rows.append((name, r))

    lines = []
    lines.append(f"Each run: `flashstack run CONFIG --set fs.f2fs.durability=MODE --set run.max_time={a.max_time} "
                 f"--set host.cpu.cores={a.cores}`" + "".join(f" --set {s}" for s in a.sets) + ".")
    lines.append("Modes: " + "; ".join(f"{m} = {MODE_NOTE[m]}" for m in modes) +
                 (f" (durability journal with every `fs.f2fs.journal` key of `{ARTIFACT_PROFILE}`)"
                  if "journal_artifact" in modes else "") + ".")
    lines.append("")
    lines.append("| workload | mode | ops/s | checkpoints | checkpoint time (s) | checkpoint p90 (ms) | "
                 "stalled (s) | calls during checkpoints: p90 (ms) (calls) | op mean (us) | p99 of top op (us) | "
                 "fsyncs (checkpointing) | journal MiB (commits) | FS WA |")
    lines.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, r in rows:
        for mode in modes:
            x = r[mode]
            lines.append(
                f"| {name} | {mode} | {x['ops_s']:.0f} | {x['cps']:.0f} | {x['cp_time']:.2f} | {x['cp_p90']:.1f} | "
                f"{x['stall']:.2f} | {x['cp_call_p90']:.1f} ({x['cp_calls']:.0f}) | {x['lat_mean']:.1f} | "
                f"{x['lat_p99']:.1f} ({x['top']}) | "
                f"{x['fsyncs']:.0f} ({x['fsync_cps']:.0f}) | {x['j_mib']:.1f} ({x['commits']:.0f}) | {x['wa']:.2f} |")
    # Headlines, over the workloads where F2FS spent at least 0.1 s in
    # checkpoints (elsewhere there is nothing for the journal to save).
    def median(v):
        v = sorted(v)
        return v[len(v) // 2] if v else float("nan")

    cp_rows = [(n, r) for n, r in rows if r["checkpoint"]["cp_time"] >= 0.1]
    cp_ratios = sorted((ratio(r["checkpoint"]["cp_time"], r["journal"]["cp_time"]), n) for n, r in cp_rows)
    lat_rows = [(n, r) for n, r in rows if r["checkpoint"]["lat_mean"] > 0 and r["journal"]["lat_mean"] > 0]
    lat_gain = sorted((1 - ratio(r["journal"]["lat_mean"], r["checkpoint"]["lat_mean"]), n) for n, r in lat_rows)
    stall_rows = sorted((r["checkpoint"]["cp_p90"], r["journal"]["cp_p90"], n) for n, r in cp_rows)

    lines.append("")
    lines.append("| seed 000 figure | flashstack | verdict |")
    lines.append("|---|---|---|")
    if cp_ratios:
        lo, hi, med = cp_ratios[0], cp_ratios[-1], median([x for x, _ in cp_ratios])
        v = "reproduced" if med >= 1.7 else "direction only" if med > 1.05 else "not reproduced"
        lines.append(f"| checkpointing time 1.7x-4.9x lower | {fmt_ratio(lo[0])} ({lo[1]}) to {fmt_ratio(hi[0])} "
                     f"({hi[1]}) lower, median {fmt_ratio(med)} over the {len(cp_ratios)} workloads where F2FS "
                     f"checkpointed | {v} |")
    if lat_gain:
        best = lat_gain[-1]
        worst = lat_gain[0]
        v = "reproduced" if best[0] >= 0.3 else "direction only" if best[0] > 0.02 else "not reproduced"
        lines.append(f"| operation latency up to 35 % lower | from {100 * worst[0]:.1f} % ({worst[1]}) to "
                     f"{100 * best[0]:.1f} % ({best[1]}) lower (mean over all operations) | {v} |")
    # The paper's measure: the P90 latency of operations during
    # checkpointing, over the workloads whose F2FS run had calls overlap its
    # checkpoints (the *_f2fsj runs that only create their filesets have
    # none: setup is not measured).
    cp_call_rows = sorted((r["checkpoint"]["cp_call_p90"], r["journal"]["cp_call_p90"], n) for n, r in rows
                          if r["checkpoint"]["cp_calls"] > 0)
    if cp_call_rows:
        over = [(f2, j, n) for f2, j, n in cp_call_rows if f2 > 240]
        lower = sum(1 for f2, j, _ in cp_call_rows if j < f2)
        worst = max(cp_call_rows, key=lambda t: t[1])
        if over:
            gone = sum(1 for f2, j, _ in over if j <= 240)
            v = ("reproduced" if gone == len(over) else "direction only" if gone > 0 else "not reproduced")
            seen = (f"F2FS above 240 ms in {len(over)} of {len(cp_call_rows)} workloads "
                    f"({', '.join(n for _, _, n in over)}), F2FS-J at or below it in {gone} of those")
        else:
            v = "not comparable (F2FS's P90 stays below 240 ms here)"
            seen = f"F2FS at most {max(f2 for f2, _, _ in cp_call_rows):.0f} ms"
        lines.append(f"| F2FS: P90 latency > 240 ms during checkpointing; gone with F2FS-J | P90 of the calls "
                     f"overlapping checkpoints: {seen}; lower with F2FS-J in {lower} of {len(cp_call_rows)}; "
                     f"F2FS-J's longest {worst[1]:.0f} ms vs {worst[0]:.0f} ms with F2FS ({worst[2]}) | {v} |")
    else:
        lines.append("| F2FS: P90 latency > 240 ms during checkpointing; gone with F2FS-J | no call overlapped a "
                     "checkpoint | not run |")
    if stall_rows:
        gone = sum(1 for f2, j, _ in stall_rows if j < 0.5 * f2)
        worst = max(stall_rows, key=lambda t: t[1])
        lines.append(f"| (the checkpoint itself) checkpoint p90 duration | shorter with F2FS-J in {gone} "
                     f"of {len(stall_rows)} workloads; the longest: {worst[1]:.0f} ms with F2FS-J vs {worst[0]:.0f} ms "
                     f"with F2FS ({worst[2]}) | {'shorter' if gone == len(stall_rows) else 'not shorter'} |")
    if "journal_artifact" in modes:
        # The same headline figures with the artifact's F2FS-J.
        art_cp = sorted((ratio(r["checkpoint"]["cp_time"], r["journal_artifact"]["cp_time"]), n) for n, r in cp_rows)
        if art_cp:
            lo, hi, med = art_cp[0], art_cp[-1], median([x for x, _ in art_cp])
            v = "reproduced" if med >= 1.7 else "direction only" if med > 1.05 else "not reproduced"
            lines.append(f"| (artifact-faithful F2FS-J) checkpointing time 1.7x-4.9x lower | {fmt_ratio(lo[0])} "
                         f"({lo[1]}) to {fmt_ratio(hi[0])} ({hi[1]}) lower, median {fmt_ratio(med)} | {v} |")
        art_lat = sorted((1 - ratio(r["journal_artifact"]["lat_mean"], r["checkpoint"]["lat_mean"]), n)
                         for n, r in rows if r["checkpoint"]["lat_mean"] > 0 and r["journal_artifact"]["lat_mean"] > 0)
        if art_lat:
            best, worst = art_lat[-1], art_lat[0]
            v = "reproduced" if best[0] >= 0.3 else "direction only" if best[0] > 0.02 else "not reproduced"
            lines.append(f"| (artifact-faithful F2FS-J) operation latency up to 35 % lower | from "
                         f"{100 * worst[0]:.1f} % ({worst[1]}) to {100 * best[0]:.1f} % ({best[1]}) lower | {v} |")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(a.out, "table.md"), "w") as f:
        f.write(text)
    write_figures(a.out, figures(rows))
    if a.doc:
        replace_marked_block(a.doc, "f2fsj-table", text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
