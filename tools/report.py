#!/usr/bin/env python3
"""Turn flashstack result folders into plots and one report page.

    tools/report.py OUT RUN [RUN ...] [--name LABEL ...] [--format png,svg] [--repro SETOUT ...]
                    [--resample auto|SECONDS|none] [--agg mean|max|median|min] [--smooth N]
                    [--percentiles p50,p99] [--only PATTERN,...] [--size WxH]

Each RUN is a result folder (stats.json, and series.csv, config.yaml,
run_info.json when present). OUT receives a figure per question a reader
asks, each as .png/.svg/.pdf and its data as .csv:

  cdf_<layer>.*           how long do operations take: latency CDFs drawn
                          from the histogram buckets in stats.json, one
                          figure per layer (workload ops, workload file
                          calls, fs, checkpoint, device, device queueing,
                          and any other histogram by unit); one run: a line
                          per histogram; several runs: a panel per
                          histogram with a line per run
  series_<question>.*     how does it evolve: series.csv over time, one
                          figure per question (throughput, bandwidth,
                          latency, dirty pages, write amplification,
                          cleaning — left out when no run cleaned —,
                          and one for the other columns),
                          resampled to at most 200 points per line
                          (--resample), the chosen latency percentiles
                          (--percentiles) on a log axis; the *.lat.count
                          columns are not drawn
  write_amplification.*   where do the flash writes come from: FS / FTL /
                          end-to-end write amplification, and the
                          end-to-end figure split by origin (the file
                          system's fs.written_by.*: data, metadata, journal,
                          cleaning, checkpoint; then FTL GC copies)
  activity.*              checkpoints by reason, FS GC and FTL GC counts
                          (statistics that are zero in every run left out,
                          a panel with nothing left not drawn)
  compare.*               several runs: headline statistics normalized to
                          the first run (= 1.0)
  index.html              the runs (and whether each ran to its end or a
                          signal stopped it), their configuration
                          differences, the headline numbers with their
                          units, the paper reproduction tables of --repro
                          and every figure
  repro.csv               with --repro: set,figure,source,paper,flashstack,verdict,note

--repro SETOUT (repeatable) names the output folder of a paper
reproduction set (`tools/repro.py run SET SETOUT`), whose verdicts.json
the page shows as paper | flashstack | verdict | note, or the output folder
of `tools/repro.py all OUT`, whose every set it shows together.

Every figure's data is written as <basename>.csv, tidy: series,x,y, holding
exactly what is drawn. CDF rows have x in the histogram's own unit (ns for
latencies) and y the fraction of samples at or below x, one row per
non-empty bucket at its upper edge (clamped to the histogram's max) after a
first row (min, 0). Series rows have x the simulated time (s) at the end
of a resampled interval and y the column's own unit (series.units.csv):
--only PATTERN,... (fnmatch, e.g. "fs.op.*,workload.fs.fsync.*") keeps only
the histograms (CDFs) and series.csv columns whose names match.
--resample auto joins ceil(rows / 200) consecutive intervals of series.csv
(SECONDS: as many as make that span; none: every interval), each joined
value the --agg of the intervals' non-empty values (default mean), then a
centred rolling mean over --smooth points (default 1: none). With several
runs a series is named "<label>: <name>".

Needs matplotlib and pandas (Debian's python3-matplotlib, python3-pandas;
run under another python3, it reruns itself under /usr/bin/python3 when
that has them); exits 2 on a missing folder, a missing stats.json or a file
that is not JSON.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pydeps import need  # noqa: E402

need("report.py", ["matplotlib", "pandas"])

import argparse  # noqa: E402
import csv  # noqa: E402
import fnmatch  # noqa: E402
import html  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.lines  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402
import pandas as pd  # noqa: E402
from cycler import cycler  # noqa: E402

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

# series.csv columns, one figure per question (names or fnmatch patterns);
# the columns no question takes go into one figure of their own panels.
SERIES_GROUPS = [
    ("throughput", "throughput (ops/s)", ["workload.ops", "workload.iops"]),
    ("bandwidth", "bandwidth (MB/s)", ["workload.MBps"]),
    ("latency", "latency of each interval's operations", ["*.lat.p*"]),
    ("dirty", "dirty pages", ["fs.dirty_nodes", "fs.dirty_data"]),
    ("write_amplification", "write amplification per interval", ["fs.write_amplification",
                                                                  "ftl.write_amplification"]),
    ("gc", "cleaning per interval (pages or blocks)", ["ftl.gc_copies", "ftl.erases", "fs.gc.moved"]),
]
# Per-interval latency columns: drawn on a log axis in a time unit.
SERIES_LATENCY = "*.lat.p*"
# In series.csv but not drawn: how many values each interval's percentiles
# describe (the throughput figure shows the same).
SERIES_HIDDEN = ["*.lat.count"]
# Cleaning columns that are zero throughout every run (no GC happened) are
# not drawn: an empty panel answers nothing.
SERIES_ZERO_HIDDEN = ["ftl.gc_copies", "ftl.erases", "fs.gc.moved", "ftl.gc_copy_rate"]
# Points per line at most when --resample is auto.
SERIES_POINTS = 200

# The origins of the file system's flash writes (fs.written_by.<origin>),
# in drawing order, with their labels.
ORIGINS = [("data", "data"), ("metadata", "FS metadata"), ("journal", "FS journal"),
           ("cleaning", "FS cleaning"), ("checkpoint", "FS checkpoint")]
# Results written before fs.written_by existed: the origin of each
# file system's own write counters.
LEGACY_ORIGINS = {
    "data": ["fs.io.written.data", "fs.blocks_written.data"],
    "metadata": ["fs.io.written.node", "fs.io.written.dentry", "fs.io.written.meta", "fs.blocks_written.meta"],
    "journal": ["fs.io.written.journal", "fs.blocks_written.journal"],
    "cleaning": ["fs.io.written.gc_data", "fs.io.written.gc_node"],
    "checkpoint": ["fs.io.written.cp"],
}

# Lines differ by colour first, then by dash: 40 distinct styles.
STYLES = cycler(linestyle=["-", "--", ":", "-."]) * cycler(color=list(plt.get_cmap("tab10").colors))

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


def legend(ax):
    """The legend beside the axes, never over the data."""
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, frameon=False)


def label_log_axis(axis, lo, hi):
    """A log axis spanning less than a decade has no major tick to label:
    label its minor ticks (2, 3, ... x 10^k) instead."""
    if lo > 0 and hi > 0 and hi / lo < 10:
        # matplotlib's own choice: every minor tick under 0.4 decades, 2, 3, 5 x 10^k up to one.
        axis.set_minor_formatter(matplotlib.ticker.LogFormatterSciNotation(labelOnlyBase=False,
                                                                           minor_thresholds=(1, 0.4)))
    else:
        axis.set_minor_formatter(matplotlib.ticker.NullFormatter())


def finish_log_axes(ax):
    if ax.get_xscale() == "log":
        label_log_axis(ax.xaxis, *ax.get_xlim())
    if ax.get_yscale() == "log":
        label_log_axis(ax.yaxis, *ax.get_ylim())


def run_style(runs, run):
    """The colour and dash of a run in figures with a panel per statistic."""
    styles = list(STYLES)
    return styles[runs.index(run) % len(styles)]


class Writer:
    def __init__(self, out, formats, size=(6.4, 3.6)):
        self.out = out
        self.formats = formats
        self.size = size  # inches of one panel
        self.figures = []  # (basename, title)

    def figure(self, nrows=1, ncols=1, scale=(1.0, 1.0)):
        """A figure of nrows x ncols panels of --size each (scaled), laid out
        so that titles, labels and outside legends do not overlap."""
        w, h = self.size
        fig, grid = plt.subplots(nrows, ncols, figsize=(w * scale[0] * ncols, h * scale[1] * nrows), squeeze=False,
                                 layout="constrained")
        for ax in grid.flat:
            ax.set_prop_cycle(STYLES)
        return fig, grid

    def save(self, fig, base, title, rows):
        with open(os.path.join(self.out, base + ".csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["series", "x", "y"])
            for row in rows:
                w.writerow(["" if (isinstance(v, float) and math.isnan(v)) else v for v in row])
        fig.suptitle(title)
        for ax in fig.axes:
            finish_log_axes(ax)
        for ext in self.formats:
            fig.savefig(os.path.join(self.out, f"{base}.{ext}"), dpi=100, metadata={"Date": None}
                        if ext == "svg" else None)
        plt.close(fig)
        self.figures.append((base, title))


def series_name(runs, run, name):
    return name if len(runs) == 1 else f"{run.label}: {name}"


def chosen(name, only):
    """--only: no patterns keep everything."""
    return not only or any(fnmatch.fnmatchcase(name, p) for p in only)


def plot_cdfs(w, runs, only=()):
    layers = {}  # layer -> {hist name: unit}
    skipped = []
    for run in runs:
        for name, h in sorted(run.histograms().items()):
            if not chosen(name, only):
                continue
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
            fig, grid = w.figure(scale=(1.3, 1.4))
            axes = {n: grid[0][0] for n in names}
        else:
            cols = min(3, len(names))
            nrows = (len(names) + cols - 1) // cols
            fig, grid = w.figure(nrows, cols, scale=(0.8, 1.0))
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
                # One style per run in every panel (several runs), so a run keeps its colour.
                style = {} if len(runs) == 1 else run_style(runs, run)
                ax.step([x / div for x, _ in shown_pts], [y for _, y in shown_pts], where="post",
                        label=n if len(runs) == 1 else run.label, **style)
            if len(runs) > 1:
                ax.set_title(n, fontsize=9)
        for i, ax in enumerate(set(axes.values())):
            ax.set_xscale("log")
            ax.set_ylim(0, 1.02)
            ax.set_xlabel(f"value ({shown})" if shown else "value")
            ax.set_ylabel("cumulative fraction")
            ax.grid(True, which="both", alpha=0.3)
            if len(runs) == 1:
                legend(ax)
            elif ax is axes[names[0]]:  # every run, whichever panels it has a line in
                handles = [matplotlib.lines.Line2D([], [], **run_style(runs, r)) for r in runs]
                ax.legend(handles, [r.label for r in runs], fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0),
                          borderaxespad=0.0, frameon=False)
        w.save(fig, f"cdf_{key}", f"CDF: {titles.get(key, key.replace('_', ' '))}", rows)
    return skipped


class Resample:
    """How series.csv is thinned before drawing (--resample, --agg, --smooth)."""

    def __init__(self, every="auto", agg="mean", smooth=1):
        self.every, self.agg, self.smooth = every, agg, smooth

    def rows_per_point(self, times):
        n = len(times)
        if self.every == "none" or n == 0:
            return 1
        if self.every == "auto":
            return max(1, math.ceil(n / SERIES_POINTS))
        step = (times.iloc[-1] - times.iloc[0]) / (n - 1) if n > 1 else 0.0
        return max(1, int(round(float(self.every) / step))) if step > 0 else 1

    def describe(self, times):
        k = self.rows_per_point(times)
        if k == 1 and self.smooth == 1:
            return ""
        step = (times.iloc[-1] - times.iloc[0]) / (len(times) - 1) if len(times) > 1 else 0.0
        parts = []
        if k > 1:
            parts.append(f"{self.agg} over {fmt(k * step)} s")
        if self.smooth > 1:
            parts.append(f"rolling mean of {self.smooth}")
        return ", ".join(parts)

    def apply(self, times, values):
        """[(t, v)]: consecutive groups of rows_per_point intervals, t the end
        of the group's last interval, v the --agg of its non-empty values
        (groups without any left out), then the rolling mean."""
        k = self.rows_per_point(times)
        frame = pd.DataFrame({"t": times.values, "v": values.values})
        frame["g"] = [i // k for i in range(len(frame))]
        grouped = frame.groupby("g")
        t = grouped["t"].last()
        v = getattr(grouped["v"], self.agg)()
        out = pd.DataFrame({"t": t, "v": v}).dropna()
        if self.smooth > 1:
            out["v"] = out["v"].rolling(self.smooth, center=True, min_periods=1).mean()
        return list(zip(out["t"].tolist(), out["v"].tolist()))


def series_columns(with_series, percentiles, only=()):
    columns = []
    for r in with_series:
        for c in r.series.columns:
            if c == "time_s" or c in columns or any(fnmatch.fnmatchcase(c, p) for p in SERIES_HIDDEN):
                continue
            if not chosen(c, only):
                continue
            if fnmatch.fnmatchcase(c, SERIES_LATENCY) and percentiles and c.rsplit(".", 1)[-1] not in percentiles:
                continue
            if c in SERIES_ZERO_HIDDEN and not any(c in x.series.columns and (x.series[c].fillna(0) != 0).any()
                                                   for x in with_series):
                continue
            columns.append(c)
    return columns


def plot_series(w, runs, resample, percentiles, only=()):
    """One figure per question of SERIES_GROUPS, then one of the other
    columns (a panel each)."""
    with_series = [r for r in runs if r.series is not None and "time_s" in r.series.columns]
    if not with_series:
        return
    columns = series_columns(with_series, percentiles, only)
    figures = []
    grouped = set()
    for key, title, members in SERIES_GROUPS:
        present = [c for c in columns if c not in grouped and any(fnmatch.fnmatchcase(c, m) for m in members)]
        if present:
            figures.append((key, title, [(title, present)]))
            grouped.update(present)
    others = [(c, [c]) for c in columns if c not in grouped]
    if others:
        figures.append(("other", "other series", others))
    how = resample.describe(with_series[0].series["time_s"])
    for key, title, panels in figures:
        cols = 2 if len(panels) > 1 else 1
        nrows = (len(panels) + cols - 1) // cols
        fig, grid = w.figure(nrows, cols)
        rows = []
        for i, (panel, members) in enumerate(panels):
            ax = grid[i // cols][i % cols]
            latency = all(fnmatch.fnmatchcase(c, SERIES_LATENCY) for c in members)
            div, unit = 1.0, ""
            drawn = []
            for r in with_series:
                for c in members:
                    if c not in r.series.columns:
                        continue
                    label = series_name(runs, r, c)
                    pts = resample.apply(r.series["time_s"], r.series[c])
                    drawn.append((label, pts))
                    # The CSV holds what is drawn, in the column's own unit.
                    rows += [(label, t, v) for t, v in pts]
            if latency:
                div, unit = time_scale("ns", max((v for _, pts in drawn for _, v in pts), default=0))
            for label, pts in drawn:
                ax.plot([t for t, _ in pts], [v / div for _, v in pts], label=label, linewidth=1)
            if len(panels) > 1:
                ax.set_title(panel, fontsize=9)
            ax.set_xlabel("simulated time (s)")
            if latency:
                ax.set_ylabel(unit)
                if drawn and all(v > 0 for _, pts in drawn for _, v in pts):
                    ax.set_yscale("log")
            ax.grid(True, which="both" if latency else "major", alpha=0.3)
            legend(ax)
        for i in range(len(panels), nrows * cols):
            grid[i // cols][i % cols].set_visible(False)
        w.save(fig, f"series_{key}", f"Over time: {title}" + (f" ({how})" if how else ""), rows)


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
        legend(ax)


def written_by(run):
    """origin -> 4 KiB blocks the file system wrote, from fs.written_by.*
    (or, in results older than it, the file system's own counters); {} when
    the run has neither."""
    if any(run.value(f"fs.written_by.{o}") is not None for o, _ in ORIGINS):
        return {o: run.value(f"fs.written_by.{o}") or 0 for o, _ in ORIGINS}
    legacy = {o: sum(run.value(n) or 0 for n in names) for o, names in LEGACY_ORIGINS.items()}
    return legacy if any(legacy.values()) else {}


def wa_breakdown(run):
    """part label -> flash page writes per page the application wrote,
    summing to the end-to-end write amplification; {} when the run has no
    FTL figure."""
    ftl_wa = run.value("ftl.write_amplification")
    if ftl_wa is None:
        return {}
    fs_wa = run.value("fs.write_amplification")
    origins = written_by(run)
    total = sum(origins.values())
    parts = {}
    if fs_wa and total:
        app_blocks = total / fs_wa
        for o, label in ORIGINS:
            parts[label] = origins.get(o, 0) / app_blocks
    else:  # no file system: the host's writes reach the device as they are
        fs_wa = 1.0
        parts["data"] = 1.0
    parts["FTL GC copies"] = fs_wa * (ftl_wa - 1) if ftl_wa > 0 else 0.0
    return parts


def plot_write_amplification(w, runs):
    names = [n for n in ("fs.write_amplification", "ftl.write_amplification", "fs.write_amplification_end_to_end")
             if any(r.value(n) for r in runs)]
    breakdowns = [wa_breakdown(r) for r in runs]
    if not names and not any(breakdowns):
        return
    fig, grid = w.figure(1, 2, scale=(0.9, 1.2))
    left, right = grid[0]
    rows = []
    values = [{n: r.value(n) for n in names} for r in runs]
    for r, v in zip(runs, values):
        rows += [(n, r.label, v[n]) for n in names if v[n] is not None]
    bars(left, names, runs, values, "write amplification by layer", "ratio")
    parts = [label for _, label in ORIGINS] + ["FTL GC copies"]
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
    legend(right)
    right.grid(True, axis="y", alpha=0.3)
    w.save(fig, "write_amplification", "Write amplification", rows)


def plot_activity(w, runs):
    panels = []
    for title, patterns in [("checkpoints by reason", ["fs.cp.reason.*"]),
                            ("FS garbage collection", ["fs.gc.victims_*", "fs.gc.moved_*", "fs.gc.sections_freed"]),
                            ("FTL garbage collection", ["ftl.gc_runs_*", "ftl.gc_copies", "ftl.erases"])]:
        # A statistic zero in every run (no GC in any) says nothing: left out.
        names = sorted({n for r in runs for n in r.stats for p in patterns if fnmatch.fnmatchcase(n, p)
                        and r.value(n) is not None and any(x.value(n) for x in runs)})
        if names:
            panels.append((title, names))
    if not panels:
        return
    fig, axes = w.figure(1, len(panels), scale=(0.8, 1.2))
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
    fig, grid = w.figure(scale=(max(1.0, 0.2 * len(chosen)), 1.2))
    ax = grid[0][0]
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
    """The verdicts.json of each --repro folder (a set's output), or of each
    set in it (the output of `tools/repro.py all`): [(folder, doc)]."""
    out = []
    for f in folders:
        path = os.path.join(f, "verdicts.json")
        paths = [path]
        if not os.path.exists(path) and os.path.isdir(f):
            paths = sorted(os.path.join(f, d, "verdicts.json") for d in os.listdir(f)
                           if os.path.isfile(os.path.join(f, d, "verdicts.json")))
            if not paths:
                paths = [path]
        for path in paths:
            try:
                with open(path) as fh:
                    doc = json.load(fh)
            except OSError:
                raise ReportError(f"{path}: no verdicts (run tools/repro.py run SET {f} first)")
            except ValueError as e:
                raise ReportError(f"{path}: not JSON: {e}")
            if not isinstance(doc, dict) or not isinstance(doc.get("rows"), list):
                raise ReportError(f"{path}: no rows")
            out.append((os.path.dirname(path), doc))
    return out


def write_repro_csv(w, repro):
    with open(os.path.join(w.out, "repro.csv"), "w", newline="") as f:
        c = csv.writer(f)
        c.writerow(["set", "figure", "source", "paper", "flashstack", "verdict", "note"])
        for _, doc in repro:
            for r in doc["rows"]:
                c.writerow([doc.get("title", ""), r.get("figure", ""), r.get("source", ""), r.get("paper", ""),
                            r.get("flashstack", ""), r.get("verdict", ""), r.get("note", "")])


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
    out.append("<h2>Headline numbers</h2><table><tr><th>statistic</th><th>unit</th>" +
               "".join(f"<th>{e(r.label)}</th>" for r in runs) + "</tr>")
    for n in names:
        out.append(f"<tr><td>{e(n)}</td><td>{e(unit_of(runs, n))}</td>" +
                   "".join(f"<td>{e(fmt(r.flat[n]) if n in r.flat else '-')}</td>" for r in runs) + "</tr>")
    out.append("</table>")
    for folder, doc in repro:
        out.append(f"<h2>Paper reproduction: {e(str(doc.get('title', folder)))}</h2>")
        if doc.get("source"):
            out.append(f"<p>{e(str(doc['source']))}</p>")
        if doc.get("size"):
            wall = doc.get("wall_seconds")
            out.append(f"<p>size: {e(str(doc['size']))}" + (f", wall time {wall:.0f} s" if wall is not None else "")
                       + "</p>")
        out.append("<table><tr><th>figure</th><th>paper</th><th>flashstack</th><th>verdict</th><th>note</th></tr>")
        for r in doc["rows"]:
            figure = r.get("figure", "") + (f" [{r['source']}]" if r.get("source") else "")
            out.append("<tr>" + "".join(f"<td>{e(str(c))}</td>" for c in
                                        (figure, r.get("paper", ""), r.get("flashstack", ""), r.get("verdict", ""),
                                         r.get("note", ""))) + "</tr>")
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


def unit_of(runs, name):
    """The unit stats.json gives a headline statistic (name.p99: its histogram's)."""
    for r in runs:
        for n in (name, name.rsplit(".", 1)[0]):
            s = r.stats.get(n)
            if isinstance(s, dict) and s.get("unit"):
                return s["unit"]
    return ""


def parse_size(text):
    try:
        w, h = (float(x) for x in text.lower().split("x"))
    except ValueError:
        raise ReportError(f"--size {text}: WIDTHxHEIGHT in inches, e.g. 6.4x3.6")
    if not (0.5 <= w <= 50 and 0.5 <= h <= 50):
        raise ReportError(f"--size {text}: each side between 0.5 and 50 inches")
    return w, h


def parse_resample(text):
    if text in ("auto", "none"):
        return text
    try:
        v = float(text)
    except ValueError:
        v = -1
    if v <= 0:
        raise ReportError(f"--resample {text}: auto, none or a positive number of seconds")
    return text


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
    p.add_argument("--resample", default="auto",
                   help="series: auto (at most 200 points a line), none, or seconds per point")
    p.add_argument("--agg", default="mean", choices=["mean", "max", "median", "min"],
                   help="series: how the intervals joined into one point combine")
    p.add_argument("--smooth", type=int, default=1, help="series: centred rolling mean over N points (1: none)")
    p.add_argument("--percentiles", default="p50,p99",
                   help="series: the per-interval latency percentiles drawn (comma separated; 'all')")
    p.add_argument("--size", default="6.4x3.6", help="inches of one panel, WIDTHxHEIGHT")
    p.add_argument("--only", default="", help="CDFs and series: only statistics matching these fnmatch patterns")
    a = p.parse_args(argv)
    formats = [f for f in a.format.split(",") if f]
    try:
        for f in formats:
            if f not in ("png", "svg", "pdf"):
                raise ReportError(f"unknown --format {f}; choices: png, svg, pdf")
        size = parse_size(a.size)
        resample = Resample(parse_resample(a.resample), a.agg, a.smooth)
        if a.smooth < 1:
            raise ReportError(f"--smooth {a.smooth}: 1 or more")
        percentiles = [] if a.percentiles == "all" else [q for q in a.percentiles.split(",") if q]
        runs = [Run(f, label) for f, label in zip(a.runs, labels_for(a.runs, a.name))]
        repro = load_repro(a.repro)
        os.makedirs(a.out, exist_ok=True)
        plt.rcParams.update({"svg.fonttype": "none", "svg.hashsalt": "flashstack"})
        w = Writer(a.out, formats, size)
        only = [x for x in a.only.split(",") if x]
        skipped = plot_cdfs(w, runs, only)
        plot_series(w, runs, resample, percentiles, only)
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
