#!/usr/bin/python3
"""Turn flashstack result folders into plots and one report page.

    tools/report.py OUT RUN [RUN ...] [--name LABEL ...] [--format png,svg] [--repro SETOUT ...]

Each RUN is a result folder (stats.json, and series.csv, config.yaml,
run_info.json when present). OUT receives:

  cdf_<layer>.*           latency CDFs drawn from the histogram buckets in
                          stats.json, one figure per layer (workload ops,
                          workload file calls, fs, checkpoint, device,
                          device queueing, and any other histogram by unit);
                          one run: a line per histogram; several runs: a
                          panel per histogram with a line per run
  series.*                series.csv over time, a panel per column group
                          (per-interval latency percentiles on a log time
                          axis, per-interval write amplification, GC per
                          interval; the *.lat.count columns are not drawn)
  write_amplification.*   FS / FTL / end-to-end write amplification, and the
                          end-to-end figure split into host data, FS
                          metadata, FS cleaning and FTL GC copies
  activity.*              checkpoints by reason, FS GC and FTL GC counts
  compare.*               several runs: headline statistics normalized to
                          the first run (= 1.0)
  index.html              the runs (and whether each ran to its end or a
                          signal stopped it), their configuration
                          differences, the headline numbers, the paper
                          reproduction tables of --repro and every figure
  repro.csv               with --repro: set,figure,paper,flashstack,verdict,note

--repro SETOUT (repeatable) names the output folder of a paper
reproduction set (`tools/repro.py run SET SETOUT`), whose verdicts.json
the page shows as paper | flashstack | verdict.

Every figure's data is also written as <basename>.csv, tidy: series,x,y.
CDF rows have x in the histogram's own unit (ns for latencies) and y the
fraction of samples at or below x, one row per non-empty bucket at its upper
edge (clamped to the histogram's max) after a first row (min, 0). With
several runs a series is named "<label>: <name>".

Needs Debian's python3-matplotlib and python3-pandas; exits 2 on a missing
folder, a missing stats.json or a file that is not JSON.
"""
import argparse
import csv
import fnmatch
import html
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import debian_python  # noqa: E402

debian_python.require(["matplotlib", "pandas"], "python3-matplotlib python3-pandas")

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402
import pandas as pd  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_results import HEADLINE, flat_config, flat_stats, fmt  # noqa: E402

# Histograms by layer, first match wins; "!" patterns exclude.
LAYERS = [
    ("workload", "workload operations", ["workload.*"], ["workload.fs.*"]),
    ("workload_calls", "file-system calls as the workload sees them", ["workload.fs.*"], []),
    ("fs", "file system operations and fsync phases", ["fs.op.*.lat", "fs.fsync.lat_*"], []),
    ("checkpoint", "checkpoints", ["fs.cp.*"], []),
    ("device", "device: SSD requests and flash commands", ["ssd.latency.*", "flash.latency.*"], []),
    ("device_wait", "device: queueing and flash time of requests", ["ssd.queue_wait", "ssd.flash_latency.*",
                                                                    "flash.wait.*"], []),
]

# series.csv columns drawn in one panel together (names or fnmatch
# patterns); any other column gets its own.
SERIES_GROUPS = [
    ("throughput (ops/s)", ["workload.ops", "workload.iops"]),
    ("bandwidth (MB/s)", ["workload.MBps"]),
    ("dirty pages", ["fs.dirty_nodes", "fs.dirty_data"]),
    ("latency of each interval's operations", ["*.lat.p*"]),
    ("write amplification per interval", ["fs.write_amplification", "ftl.write_amplification"]),
    ("GC per interval (pages or blocks)", ["ftl.gc_copies", "ftl.erases", "fs.gc.moved"]),
]
# Per-interval latency columns: drawn on a log axis in a time unit.
SERIES_LATENCY = "*.lat.p*"
# In series.csv but not drawn: how many values each interval's percentiles
# describe (the throughput panel shows the same).
SERIES_HIDDEN = ["*.lat.count"]

FS_KINDS = [  # (part of the write-amplification breakdown, fs.io.written.* kinds)
    ("host data", ["data"]),
    ("FS metadata", ["node", "dentry", "meta", "cp"]),
    ("FS cleaning", ["gc_data", "gc_node"]),
]

COMPARE = [  # (label, statistic name in flat_stats form)
    ("ops/s", "workload.ops_per_sec"), ("IOPS", "workload.iops"), ("bandwidth", "workload.bw"),
    ("FS WA", "fs.write_amplification"), ("FTL WA", "ftl.write_amplification"),
    ("end-to-end WA", "fs.write_amplification_end_to_end"),
    ("fsync mean", "fs.fsync.lat_total"), ("fsync p99", "fs.fsync.lat_total.p99"),
    ("workload fsync mean", "workload.fs.fsync.lat"), ("workload fsync p99", "workload.fs.fsync.lat.p99"),
]

TIME_UNITS = [(1e9, "s"), (1e6, "ms"), (1e3, "µs"), (1, "ns")]


class ReportError(Exception):
    pass


class Run:
    def __init__(self, folder, label):
        self.folder = folder
        self.label = label
        if not os.path.isdir(folder):
            raise ReportError(f"{folder}: no such result folder")
        path = os.path.join(folder, "stats.json")
        if not os.path.exists(path):
            raise ReportError(f"{folder}: no stats.json (not a flashstack result folder)")
        try:
            with open(path) as f:
                self.doc = json.load(f)
        except json.JSONDecodeError as e:
            raise ReportError(f"{path}:{e.lineno}: not JSON: {e.msg}")
        self.stats = self.doc.get("stats", {})
        self.flat = flat_stats(self.doc)
        self.series = None
        series_path = os.path.join(folder, "series.csv")
        if os.path.exists(series_path):
            self.series = pd.read_csv(series_path, float_precision="round_trip")
        self.run_info = {}
        info_path = os.path.join(folder, "run_info.json")
        if os.path.exists(info_path):
            with open(info_path) as f:
                self.run_info = json.load(f)

    def value(self, name):
        s = self.stats.get(name)
        if isinstance(s, dict) and "value" in s and isinstance(s["value"], (int, float)):
            return s["value"]
        return None

    def histograms(self):
        """name -> histogram entry, for histograms with at least one sample."""
        return {n: s for n, s in self.stats.items()
                if isinstance(s, dict) and "count" in s and "value" not in s and s["count"] > 0}


def cdf_points(h):
    """[(x, y)]: (min, 0), then per non-empty bucket (its high clamped to max,
    fraction of samples in it and below). Empty without buckets."""
    buckets = h.get("buckets")
    if not buckets:
        return []
    total = h["count"]
    points = [(h["min"], 0.0)]
    seen = 0
    for low, high, n in buckets:
        seen += n
        points.append((min(max(high, h["min"]), h["max"]), seen / total))
    if seen != total:
        raise ReportError(f"histogram buckets hold {seen} samples, count says {total}")
    return points


def layer_of(name, unit):
    for key, _, include, exclude in LAYERS:
        if any(fnmatch.fnmatchcase(name, p) for p in include) and \
                not any(fnmatch.fnmatchcase(name, p) for p in exclude):
            return key
    return f"other_{unit or 'unitless'}"


def time_scale(unit, largest):
    if unit != "ns":
        return 1.0, unit or ""
    for div, name in TIME_UNITS:
        if largest >= div:
            return div, name
    return 1.0, "ns"


class Writer:
    def __init__(self, out, formats):
        self.out = out
        self.formats = formats
        self.figures = []  # (basename, title)

    def save(self, fig, base, title, rows):
        with open(os.path.join(self.out, base + ".csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["series", "x", "y"])
            for row in rows:
                w.writerow(["" if (isinstance(v, float) and math.isnan(v)) else v for v in row])
        fig.suptitle(title)
        fig.tight_layout()
        for ext in self.formats:
            fig.savefig(os.path.join(self.out, f"{base}.{ext}"), dpi=100, metadata={"Date": None}
                        if ext == "svg" else None)
        plt.close(fig)
        self.figures.append((base, title))


def series_name(runs, run, name):
    return name if len(runs) == 1 else f"{run.label}: {name}"


def plot_cdfs(w, runs):
    layers = {}  # layer -> {hist name: unit}
    skipped = []
    for run in runs:
        for name, h in sorted(run.histograms().items()):
            if "buckets" not in h:
                skipped.append(f"{run.label}: {name}")
                continue
            if h["max"] <= 0:  # every sample 0: nothing to show on a log axis
                continue
            layers.setdefault(layer_of(name, h.get("unit")), {})[name] = h.get("unit")
    order = [key for key, *_ in LAYERS] + sorted(k for k in layers if k.startswith("other_"))
    titles = {key: title for key, title, *_ in LAYERS}
    for key in order:
        names = sorted(layers.get(key, {}))
        if not names:
            continue
        unit = layers[key][names[0]]
        largest = max(run.histograms()[n]["max"] for run in runs for n in names if n in run.histograms())
        div, shown = time_scale(unit, largest)
        rows = []
        if len(runs) == 1:
            fig, ax = plt.subplots(figsize=(9, 5.5))
            axes = {n: ax for n in names}
        else:
            cols = min(3, len(names))
            nrows = (len(names) + cols - 1) // cols
            fig, grid = plt.subplots(nrows, cols, figsize=(4.5 * cols, 3.4 * nrows), squeeze=False)
            axes = {n: grid[i // cols][i % cols] for i, n in enumerate(names)}
            for i in range(len(names), nrows * cols):
                grid[i // cols][i % cols].set_visible(False)
        for n in names:
            ax = axes[n]
            for run in runs:
                h = run.histograms().get(n)
                if h is None or h["max"] <= 0 or "buckets" not in h:
                    continue
                pts = cdf_points(h)
                label = series_name(runs, run, n)
                rows += [(label, x, y) for x, y in pts]
                # A log axis has no 0: the samples at 0 show as the level the line starts at.
                shown_pts = [(x, y) for x, y in pts if x > 0]
                start = max((y for x, y in pts if x <= 0), default=None)
                if start is not None:
                    shown_pts.insert(0, (shown_pts[0][0], start))
                ax.step([x / div for x, _ in shown_pts], [y for _, y in shown_pts], where="post",
                        label=n if len(runs) == 1 else run.label)
            if len(runs) > 1:
                ax.set_title(n, fontsize=9)
        for ax in set(axes.values()):
            ax.set_xscale("log")
            ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
            ax.set_ylim(0, 1.02)
            ax.set_xlabel(f"value ({shown})" if shown else "value")
            ax.set_ylabel("cumulative fraction")
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=7)
        w.save(fig, f"cdf_{key}", f"CDF: {titles.get(key, key.replace('_', ' '))}", rows)
    return skipped


def plot_series(w, runs):
    with_series = [r for r in runs if r.series is not None and "time_s" in r.series.columns]
    if not with_series:
        return
    columns = []
    for r in with_series:
        columns += [c for c in r.series.columns
                    if c != "time_s" and c not in columns and
                    not any(fnmatch.fnmatchcase(c, p) for p in SERIES_HIDDEN)]
    panels = []
    grouped = set()
    for title, members in SERIES_GROUPS:
        present = [c for c in columns if c not in grouped and any(fnmatch.fnmatchcase(c, m) for m in members)]
        if present:
            panels.append((title, present))
            grouped.update(present)
    panels += [(c, [c]) for c in columns if c not in grouped]
    cols = 2 if len(panels) > 1 else 1
    nrows = (len(panels) + cols - 1) // cols
    fig, grid = plt.subplots(nrows, cols, figsize=(6.5 * cols, 3.0 * nrows), squeeze=False)
    rows = []
    for i, (title, members) in enumerate(panels):
        ax = grid[i // cols][i % cols]
        latency = all(fnmatch.fnmatchcase(c, SERIES_LATENCY) for c in members)
        div, unit = 1.0, ""
        if latency:
            largest = max((r.series[c].max() for r in with_series for c in members
                           if c in r.series.columns and r.series[c].notna().any()), default=0)
            div, unit = time_scale("ns", largest)
        for r in with_series:
            for c in members:
                if c not in r.series.columns:
                    continue
                label = series_name(runs, r, c)
                ax.plot(r.series["time_s"], r.series[c] / div, label=label, linewidth=1)
                # The CSV keeps the column's own unit; an empty cell (an
                # interval with nothing to describe) has no row.
                rows += [(label, t, v) for t, v in zip(r.series["time_s"], r.series[c]) if not pd.isna(v)]
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("simulated time (s)")
        if latency:
            ax.set_ylabel(unit)
            if all((r.series[c].dropna() > 0).all() for r in with_series for c in members if c in r.series.columns):
                ax.set_yscale("log")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    for i in range(len(panels), nrows * cols):
        grid[i // cols][i % cols].set_visible(False)
    w.save(fig, "series", "Over time (series.csv)", rows)


def bars(ax, groups, runs, values, title, ylabel, stacked=False):
    """groups: names along x; values[run index][group] -> number or None."""
    width = 0.8 / (1 if stacked else len(runs))
    for i, run in enumerate(runs):
        ys = [values[i].get(g) for g in groups]
        xs = [k + (0 if stacked else (i - (len(runs) - 1) / 2) * width) for k in range(len(groups))]
        ax.bar(xs, [y if y is not None else 0 for y in ys], width, label=run.label)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(groups, rotation=30, ha="right", fontsize=8)
    ax.set_title(title, fontsize=9)
    ax.set_ylabel(ylabel)
    ax.grid(True, axis="y", alpha=0.3)
    if len(runs) > 1:
        ax.legend(fontsize=7)


def wa_breakdown(run):
    """part -> flash page writes per page the application wrote, summing to the
    end-to-end write amplification; {} when the run has no FTL figure."""
    ftl_wa = run.value("ftl.write_amplification")
    if ftl_wa is None:
        return {}
    fs_wa = run.value("fs.write_amplification")
    written = run.value("fs.blocks_written")
    parts = {}
    if fs_wa and written:
        app_blocks = written / fs_wa
        for part, kinds in FS_KINDS:
            parts[part] = sum(run.value(f"fs.io.written.{k}") or 0 for k in kinds) / app_blocks
    else:
        fs_wa = 1.0
        parts["host data"] = 1.0
    parts["FTL GC copies"] = fs_wa * (ftl_wa - 1) if ftl_wa > 0 else 0.0
    return parts


def plot_write_amplification(w, runs):
    names = [n for n in ("fs.write_amplification", "ftl.write_amplification", "fs.write_amplification_end_to_end")
             if any(r.value(n) for r in runs)]
    breakdowns = [wa_breakdown(r) for r in runs]
    if not names and not any(breakdowns):
        return
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    rows = []
    values = [{n: r.value(n) for n in names} for r in runs]
    for r, v in zip(runs, values):
        rows += [(n, r.label, v[n]) for n in names if v[n] is not None]
    bars(left, names, runs, values, "write amplification by layer", "ratio")
    parts = [p for p, _ in FS_KINDS] + ["FTL GC copies"]
    bottom = [0.0] * len(runs)
    for p in parts:
        ys = [b.get(p, 0.0) for b in breakdowns]
        if not any(ys):
            continue
        right.bar([r.label for r in runs], ys, 0.6, bottom=bottom, label=p)
        bottom = [a + b for a, b in zip(bottom, ys)]
        rows += [(p, r.label, y) for r, y in zip(runs, ys)]
    right.set_title("flash writes per application write, by origin", fontsize=9)
    right.set_ylabel("pages per application page")
    right.legend(fontsize=7)
    right.grid(True, axis="y", alpha=0.3)
    w.save(fig, "write_amplification", "Write amplification", rows)


def plot_activity(w, runs):
    panels = []
    for title, patterns in [("checkpoints by reason", ["fs.cp.reason.*"]),
                            ("FS garbage collection", ["fs.gc.victims_*", "fs.gc.moved_*", "fs.gc.sections_freed"]),
                            ("FTL garbage collection", ["ftl.gc_runs_*", "ftl.gc_copies", "ftl.erases"])]:
        names = sorted({n for r in runs for n in r.stats for p in patterns if fnmatch.fnmatchcase(n, p)
                        and r.value(n) is not None})
        if names:
            panels.append((title, names))
    if not panels:
        return
    fig, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 4.5), squeeze=False)
    rows = []
    for ax, (title, names) in zip(axes[0], panels):
        values = [{n: r.value(n) for n in names} for r in runs]
        bars(ax, [n.split(".", 2)[-1] for n in names], runs,
             [{n.split(".", 2)[-1]: v[n] for n in names} for v in values], title, "count")
        for r, v in zip(runs, values):
            rows += [(n, r.label, v[n]) for n in names if v[n] is not None]
    w.save(fig, "activity", "Checkpoint and GC activity", rows)


def plot_compare(w, runs):
    base = runs[0].flat
    chosen = [(label, n) for label, n in COMPARE if base.get(n)]
    if not chosen:
        return
    fig, ax = plt.subplots(figsize=(max(6, 1.3 * len(chosen)), 4.5))
    rows = []
    values = []
    for r in runs:
        v = {}
        for label, n in chosen:
            if r.flat.get(n) is not None:
                v[label] = r.flat[n] / base[n]
                rows.append((n, r.label, v[label]))
        values.append(v)
    bars(ax, [label for label, _ in chosen], runs, values, f"relative to {runs[0].label} (= 1.0)", "ratio")
    ax.axhline(1.0, color="black", linewidth=0.8)
    w.save(fig, "compare", "Designs side by side", rows)


def load_repro(folders):
    """The verdicts.json of each --repro folder: [(folder, doc)]."""
    out = []
    for f in folders:
        path = os.path.join(f, "verdicts.json")
        try:
            with open(path) as fh:
                doc = json.load(fh)
        except OSError:
            raise ReportError(f"{path}: no verdicts (run tools/repro.py run SET {f} first)")
        except ValueError as e:
            raise ReportError(f"{path}: not JSON: {e}")
        if not isinstance(doc, dict) or not isinstance(doc.get("rows"), list):
            raise ReportError(f"{path}: no rows")
        out.append((f, doc))
    return out


def write_repro_csv(w, repro):
    with open(os.path.join(w.out, "repro.csv"), "w", newline="") as f:
        c = csv.writer(f)
        c.writerow(["set", "figure", "paper", "flashstack", "verdict", "note"])
        for _, doc in repro:
            for r in doc["rows"]:
                c.writerow([doc.get("title", ""), r.get("figure", ""), r.get("paper", ""), r.get("flashstack", ""),
                            r.get("verdict", ""), r.get("note", "")])


def write_index(w, runs, skipped, repro=()):
    configs = [flat_config(r.doc.get("config", {})) for r in runs]
    keys = sorted(set().union(*configs))
    diff = [k for k in keys if len({json.dumps(c.get(k), sort_keys=True) for c in configs}) > 1]
    e = html.escape
    out = ["<!DOCTYPE html>", "<html><head><meta charset='utf-8'><title>flashstack report</title>",
           "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
           "td,th{border:1px solid #ccc;padding:2px 8px;text-align:left}img{max-width:100%}</style>",
           "</head><body>", "<h1>flashstack report</h1>", "<h2>Runs</h2>",
           "<table><tr><th>label</th><th>folder</th><th>experiment</th><th>sweep</th><th>seed</th>"
           "<th>version</th><th>simulated s</th><th>complete</th></tr>"]
    for r in runs:
        complete = "yes" if r.doc.get("complete", True) is not False else "no: a signal stopped it"
        cells = [r.label, r.folder, r.doc.get("experiment", ""), r.doc.get("sweep", ""), r.doc.get("seed", ""),
                 r.doc.get("flashstack_version", ""), fmt(r.run_info.get("simulated_seconds", "")), complete]
        out.append("<tr>" + "".join(f"<td>{e(str(c))}</td>" for c in cells) + "</tr>")
    out.append("</table>")
    if len(runs) > 1:
        out.append("<h2>Configuration differences</h2>")
        if diff:
            out.append("<table><tr><th>key</th>" + "".join(f"<th>{e(r.label)}</th>" for r in runs) + "</tr>")
            for k in diff:
                out.append(f"<tr><td>{e(k)}</td>" +
                           "".join(f"<td>{e(fmt(c.get(k, '-')))}</td>" for c in configs) + "</tr>")
            out.append("</table>")
        else:
            out.append("<p>identical</p>")
    names = sorted(n for n in set().union(*(r.flat for r in runs))
                   if any(fnmatch.fnmatchcase(n, p) for p in HEADLINE) or n in {c for _, c in COMPARE})
    out.append("<h2>Headline numbers</h2><table><tr><th>statistic</th>" +
               "".join(f"<th>{e(r.label)}</th>" for r in runs) + "</tr>")
    for n in names:
        out.append(f"<tr><td>{e(n)}</td>" +
                   "".join(f"<td>{e(fmt(r.flat[n]) if n in r.flat else '-')}</td>" for r in runs) + "</tr>")
    out.append("</table>")
    for folder, doc in repro:
        out.append(f"<h2>Paper reproduction: {e(str(doc.get('title', folder)))}</h2>")
        if doc.get("source"):
            out.append(f"<p>{e(str(doc['source']))}</p>")
        out.append("<table><tr><th>figure</th><th>paper</th><th>flashstack</th><th>verdict</th><th>note</th></tr>")
        for r in doc["rows"]:
            out.append("<tr>" + "".join(f"<td>{e(str(r.get(k, '')))}</td>"
                                        for k in ("figure", "paper", "flashstack", "verdict", "note")) + "</tr>")
        out.append("</table>")
    if skipped:
        out.append("<p>No buckets in stats.json (written before histograms exported them), no CDF for: " +
                   e(", ".join(skipped)) + "</p>")
    for base, title in w.figures:
        links = " ".join(f"<a href='{base}.{x}'>{x}</a>" for x in w.formats + ["csv"])
        out.append(f"<h2>{e(title)}</h2><p>{links}</p>")
        if "png" in w.formats:
            out.append(f"<img src='{base}.png' alt='{e(title)}'>")
        elif "svg" in w.formats:
            out.append(f"<img src='{base}.svg' alt='{e(title)}'>")
    out.append("</body></html>")
    with open(os.path.join(w.out, "index.html"), "w") as f:
        f.write("\n".join(out) + "\n")


def labels_for(folders, names):
    if names:
        if len(names) != len(folders):
            raise ReportError(f"{len(names)} --name for {len(folders)} runs")
        return names
    labels = [os.path.basename(os.path.normpath(f)) or f for f in folders]
    for i, lab in enumerate(labels):
        if labels.count(lab) > 1:
            labels[i] = f"{lab}#{i + 1}"
    return labels


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("out", help="folder to write the report into (created)")
    p.add_argument("runs", nargs="+", help="flashstack result folders")
    p.add_argument("--name", action="append", help="label of a run, once per run in order")
    p.add_argument("--format", default="png,svg", help="figure formats, comma separated (png, svg, pdf)")
    p.add_argument("--repro", action="append", default=[],
                   help="output folder of tools/repro.py run (its verdicts.json), repeatable")
    a = p.parse_args(argv)
    formats = [f for f in a.format.split(",") if f]
    try:
        for f in formats:
            if f not in ("png", "svg", "pdf"):
                raise ReportError(f"unknown --format {f}; choices: png, svg, pdf")
        runs = [Run(f, label) for f, label in zip(a.runs, labels_for(a.runs, a.name))]
        repro = load_repro(a.repro)
        os.makedirs(a.out, exist_ok=True)
        plt.rcParams.update({"svg.fonttype": "none", "svg.hashsalt": "flashstack"})
        w = Writer(a.out, formats)
        skipped = plot_cdfs(w, runs)
        plot_series(w, runs)
        plot_write_amplification(w, runs)
        plot_activity(w, runs)
        if len(runs) > 1:
            plot_compare(w, runs)
        if repro:
            write_repro_csv(w, repro)
        write_index(w, runs, skipped, repro)
    except ReportError as e:
        print(f"report: {e}", file=sys.stderr)
        return 2
    if skipped:
        print(f"report: warning: {len(skipped)} histograms have no buckets in stats.json; no CDF drawn for them",
              file=sys.stderr)
    print(f"report: {len(w.figures)} figures and index.html in {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
