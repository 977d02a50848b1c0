#!/usr/bin/env python3
"""Tests of tools/report.py on small real runs.

    tools/report_test.py FLASHSTACK_BINARY

Runs a short quickstart, two short varmail runs (default F2FS and one in
LFS mode) and the same varmail on ext4, reports them, and checks that the
numbers drawn are the numbers measured: the CDFs are the exported buckets
(their nearest-rank percentiles are stats.json's), the series figures hold
series.csv's values (resampled by the stated rule), the write-amplification
figure holds stats.json's figures and its split by origin the file
system's fs.written_by.* (F2FS and ext4 alike), the activity figure its
counters; that the figures exist and name their series, the headline table
has units, and that bad input exits 2.
"""
import csv
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from pydeps import need  # noqa: E402

need("report_test.py", ["matplotlib", "pandas"])
ROOT = os.path.dirname(HERE)
REPORT = os.path.join(HERE, "report.py")
BINARY = None


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    out = {}
    for r in rows:
        out.setdefault(r["series"], []).append((r["x"], r["y"]))
    return out


def nearest_rank(count, q):
    r = q * count
    return min(max(math.ceil(r - r * 1e-15), 1), count)


def percentile_from_buckets(h, q):
    """The rule flashstack's histograms follow (sim/histogram.cc)."""
    rank = nearest_rank(h["count"], q)
    seen = 0
    for low, high, n in h["buckets"]:
        seen += n
        if seen >= rank:
            return min(max(low + (high - low) // 2, h["min"]), h["max"])
    raise AssertionError("buckets hold fewer samples than count")


class ReportTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        t = cls.tmp.name

        def run(config, out, *sets):
            args = [BINARY, "run", config, "--out", os.path.join(t, out)]
            for s in sets:
                args += ["--set", s]
            subprocess.run(args, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
            return os.path.join(t, out)

        cls.quick = run("configs/quickstart.yaml", "quick", "workload.fio.total_ios=20000",
                        "ftl.precondition.enabled=false")
        cls.mail_a = run("configs/filebench/varmail.yaml", "mail_a", "run.max_time=0.2s")
        cls.mail_b = run("configs/filebench/varmail.yaml", "mail_b", "run.max_time=0.2s", "fs.f2fs.mode=lfs")
        cls.mail_ext4 = run("configs/filebench/varmail.yaml", "mail_ext4", "run.max_time=0.2s", "fs.kind=ext4")
        cls.single = os.path.join(t, "report_single")
        cls.multi = os.path.join(t, "report_multi")
        cls.pair = os.path.join(t, "report_pair")
        cls.coarse = os.path.join(t, "report_coarse")
        for args in ([cls.single, cls.quick], [cls.multi, cls.mail_a, cls.mail_b, "--name", "base", "--name", "lfs"],
                     [cls.pair, cls.mail_a, cls.mail_ext4, "--name", "f2fs", "--name", "ext4", "--format", "png"],
                     [cls.coarse, cls.mail_a, "--resample", "0.05", "--agg", "max", "--percentiles", "p99",
                      "--format", "png", "--size", "5x3"],
                     [os.path.join(t, "report_only"), cls.mail_a, "--only", "fs.op.*,workload.ops", "--format", "png"]):
            p = subprocess.run([sys.executable, REPORT] + args, capture_output=True, text=True)
            if p.returncode != 0:
                raise AssertionError(f"report.py {args} exited {p.returncode}: {p.stderr}")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def stats(self, run):
        with open(os.path.join(run, "stats.json")) as f:
            return json.load(f)["stats"]

    def histograms(self, run):
        return {n: s for n, s in self.stats(run).items() if "count" in s and "value" not in s and s["count"] > 0}

    def cdf_series(self, report):
        out = {}
        for f in sorted(os.listdir(report)):
            if f.startswith("cdf_") and f.endswith(".csv"):
                out.update(read_csv(os.path.join(report, f)))
        return out

    def test_histograms_export_buckets_that_give_their_percentiles(self):
        for run in (self.quick, self.mail_a):
            for name, h in self.histograms(run).items():
                self.assertIn("buckets", h, name)
                self.assertEqual(sum(n for _, _, n in h["buckets"]), h["count"], name)
                for q, key in ((0.5, "p50"), (0.9, "p90"), (0.99, "p99"), (0.999, "p999")):
                    self.assertEqual(percentile_from_buckets(h, q), h[key], f"{name} {key}")

    def test_cdf_is_the_buckets(self):
        for report, runs, prefix in ((self.single, [self.quick], [""]),
                                     (self.multi, [self.mail_a, self.mail_b], ["base: ", "lfs: "])):
            series = self.cdf_series(report)
            for run, pre in zip(runs, prefix):
                hists = {n: h for n, h in self.histograms(run).items() if h["max"] > 0}
                self.assertTrue(hists)
                for name, h in hists.items():
                    pts = [(float(x), float(y)) for x, y in series.get(pre + name, [])]
                    self.assertTrue(pts, f"no CDF for {pre}{name}")
                    xs, ys = [x for x, _ in pts], [y for _, y in pts]
                    self.assertEqual(pts[0], (h["min"], 0.0), name)
                    self.assertEqual(ys[-1], 1.0, name)
                    self.assertEqual(xs[-1], h["max"], name)
                    self.assertEqual(ys, sorted(ys), f"{name}: y not monotone")
                    self.assertEqual(xs, sorted(xs), f"{name}: x not monotone")
                    self.assertEqual(len(pts), len(h["buckets"]) + 1, name)
                    # Nearest rank read off the CDF: the first point whose
                    # fraction reaches the rank; the percentile lies in its
                    # bucket, i.e. above the previous point's x and at most its x.
                    for q, key in ((0.5, "p50"), (0.99, "p99")):
                        rank = nearest_rank(h["count"], q)
                        i = next(i for i, y in enumerate(ys) if round(y * h["count"]) >= rank)
                        self.assertGreaterEqual(i, 1, name)
                        self.assertLessEqual(h[key], xs[i], f"{name} {key}")
                        if i > 1:
                            self.assertGreater(h[key], xs[i - 1], f"{name} {key}")
                        low, high, _ = h["buckets"][i - 1]
                        self.assertEqual(min(max(low + (high - low) // 2, h["min"]), h["max"]), h[key],
                                         f"{name} {key}")

    def test_cdf_layers(self):
        files = set(os.listdir(self.multi))
        for layer in ("workload", "workload_calls", "fs", "device"):
            self.assertIn(f"cdf_{layer}.csv", files)
        fs = read_csv(os.path.join(self.multi, "cdf_fs.csv"))
        self.assertIn("base: fs.fsync.lat_total", fs)
        self.assertIn("lfs: fs.op.fsync.lat", fs)
        self.assertTrue(all(n.split(": ")[1].startswith(("fs.op.", "fs.fsync.lat_")) for n in fs))
        device = read_csv(os.path.join(self.single, "cdf_device.csv"))
        self.assertIn("ssd.latency.write", device)
        self.assertIn("flash.latency.program", device)
        # Empty histograms are left out.
        self.assertNotIn("flash.latency.erase", device)

    def series_figures(self, report):
        out = {}
        for f in sorted(os.listdir(report)):
            if f.startswith("series_") and f.endswith(".csv"):
                out.update(read_csv(os.path.join(report, f)))
        return out

    def series_rows(self, run):
        with open(os.path.join(run, "series.csv"), newline="") as f:
            return list(csv.DictReader(f))

    def test_series_over_time(self):
        for report, runs, prefix in ((self.single, [self.quick], [""]),
                                     (self.multi, [self.mail_a, self.mail_b], ["base: ", "lfs: "]),
                                     (self.pair, [self.mail_a, self.mail_ext4], ["f2fs: ", "ext4: "])):
            got = self.series_figures(report)
            for run, pre in zip(runs, prefix):
                with open(os.path.join(run, "series.csv"), newline="") as f:
                    rows = list(csv.DictReader(f))
                self.assertGreater(len(rows), 5)
                self.assertLessEqual(len(rows), 200)  # auto resampling keeps every interval
                for column in rows[0]:
                    if column == "time_s":
                        continue
                    pts = got.get(pre + column)
                    # Not drawn: the sample counts, and percentiles other than p50 and p99 by default.
                    if column.endswith(".lat.count") or (".lat.p" in column and
                                                         not column.endswith((".p50", ".p99"))):
                        self.assertIsNone(pts, column)
                        continue
                    # A cleaning column zero throughout every run of the report is not drawn.
                    if column in ("ftl.gc_copies", "ftl.erases", "fs.gc.moved", "ftl.gc_copy_rate") and all(
                            all(float(r.get(column) or 0) == 0 for r in self.series_rows(x)) for x in runs):
                        self.assertIsNone(pts, column)
                        continue
                    # Every non-empty cell, in the column's own unit (a column
                    # without any, e.g. reads in a write-only run, has no row).
                    want = [(float(r["time_s"]), float(r[column])) for r in rows if r[column] != ""]
                    self.assertEqual([(float(x), float(y)) for x, y in pts or []], want, f"{pre}{column}")
                # The per-interval latency and write amplification columns are drawn.
                self.assertTrue(any(c.endswith(".lat.p99") for c in rows[0]))
                self.assertIn(pre + "ftl.write_amplification", got)
            # One figure per question.
            for question in ("throughput", "latency", "write_amplification"):
                self.assertTrue(os.path.exists(os.path.join(report, f"series_{question}.csv")), question)

    def test_series_resampled_by_the_stated_rule(self):
        # --resample 0.05 on 10 ms intervals: groups of 5 consecutive rows,
        # each drawn at its last row's time with the max of its non-empty values.
        got = self.series_figures(self.coarse)
        with open(os.path.join(self.mail_a, "series.csv"), newline="") as f:
            rows = list(csv.DictReader(f))
        checked = 0
        for column in rows[0]:
            if column == "time_s" or column.endswith(".lat.count"):
                continue
            if column in ("ftl.gc_copies", "ftl.erases", "fs.gc.moved", "ftl.gc_copy_rate") and all(
                    float(r[column] or 0) == 0 for r in rows):
                self.assertNotIn(column, got)  # no cleaning: not drawn
                continue
            if column.endswith(".lat.p50"):  # --percentiles p99 leaves it out
                self.assertNotIn(column, got)
                continue
            want = []
            for i in range(0, len(rows), 5):
                group = rows[i:i + 5]
                vals = [float(r[column]) for r in group if r[column] != ""]
                if vals:
                    want.append((float(group[-1]["time_s"]), max(vals)))
            pts = [(float(x), float(y)) for x, y in got.get(column, [])]
            self.assertEqual(pts, want, column)
            checked += 1
        self.assertGreater(checked, 5)
        self.assertTrue(any(c.endswith(".lat.p99") for c in got), sorted(got))
        with open(os.path.join(self.coarse, "index.html")) as f:
            self.assertIn("max over 0.05 s", f.read())

    def test_write_amplification_by_origin_for_f2fs_and_ext4(self):
        origins = {"data": "data", "metadata": "FS metadata", "journal": "FS journal", "cleaning": "FS cleaning",
                   "checkpoint": "FS checkpoint"}
        for report, runs in ((self.multi, ((self.mail_a, "base"), (self.mail_b, "lfs"))),
                             (self.pair, ((self.mail_a, "f2fs"), (self.mail_ext4, "ext4")))):
            wa = read_csv(os.path.join(report, "write_amplification.csv"))
            for run, label in runs:
                st = self.stats(run)
                for name in ("fs.write_amplification", "ftl.write_amplification",
                             "fs.write_amplification_end_to_end"):
                    self.assertAlmostEqual(float(dict(wa[name])[label]), st[name]["value"], msg=f"{label} {name}")
                # Each origin's part is its fs.written_by blocks per application block.
                written = {o: st[f"fs.written_by.{o}"]["value"] for o in origins}
                app_blocks = sum(written.values()) / st["fs.write_amplification"]["value"]
                for o, part in origins.items():
                    got = float(dict(wa.get(part, [])).get(label, 0))
                    self.assertAlmostEqual(got, written[o] / app_blocks, msg=f"{label} {o}")
                ftl = float(dict(wa["FTL GC copies"]).get(label, 0)) if "FTL GC copies" in wa else 0.0
                self.assertAlmostEqual(ftl, st["fs.write_amplification"]["value"] *
                                       (st["ftl.write_amplification"]["value"] - 1), msg=label)
                # The parts sum to the end-to-end write amplification.
                parts = sum(float(dict(wa[p]).get(label, 0)) for p in list(origins.values()) + ["FTL GC copies"]
                            if p in wa)
                self.assertAlmostEqual(parts, st["fs.write_amplification_end_to_end"]["value"], msg=label)
        # ext4's journal shows: its split is not all host data.
        wa = read_csv(os.path.join(self.pair, "write_amplification.csv"))
        self.assertGreater(float(dict(wa["FS journal"])["ext4"]), 0.05)
        self.assertLess(float(dict(wa["data"])["ext4"]), self.stats(self.mail_ext4)["fs.write_amplification"]["value"])

    def test_both_file_systems_give_per_call_latency(self):
        fs = read_csv(os.path.join(self.pair, "cdf_fs.csv"))
        for label in ("f2fs", "ext4"):
            for call in ("fsync", "write", "open"):
                self.assertIn(f"{label}: fs.op.{call}.lat", fs)

    def test_activity(self):
        activity = read_csv(os.path.join(self.multi, "activity.csv"))
        for run, label in ((self.mail_a, "base"), (self.mail_b, "lfs")):
            st = self.stats(run)
            for name in ("fs.cp.reason.fsync", "fs.cp.reason.background", "ftl.gc_copies"):
                if name in activity:
                    self.assertEqual(float(dict(activity[name])[label]), st[name]["value"], name)
        # A statistic zero in every run is not drawn.
        for name, pts in activity.items():
            self.assertTrue(any(float(y) != 0 for _, y in pts), name)
        self.assertTrue(activity)

    def test_only_keeps_the_chosen_statistics(self):
        out = os.path.join(self.tmp.name, "report_only")
        cdfs = self.cdf_series(out)
        self.assertTrue(cdfs)
        self.assertTrue(all(n.startswith("fs.op.") for n in cdfs), sorted(cdfs))
        self.assertEqual(set(self.series_figures(out)), {"workload.ops"})

    def test_small_range_log_axis_gets_labels(self):
        sys.path.insert(0, HERE)
        import report
        fig, ax = report.plt.subplots()
        ax.set_xscale("log")
        ax.set_xlim(2000, 9000)
        report.finish_log_axes(ax)
        self.assertIsInstance(ax.xaxis.get_minor_formatter(), report.matplotlib.ticker.LogFormatterSciNotation)
        ax.set_xlim(10, 100000)
        report.finish_log_axes(ax)
        self.assertIsInstance(ax.xaxis.get_minor_formatter(), report.matplotlib.ticker.NullFormatter)
        report.plt.close(fig)

    def test_normalized_comparison(self):
        self.assertFalse(os.path.exists(os.path.join(self.single, "compare.csv")))
        cmp = read_csv(os.path.join(self.multi, "compare.csv"))
        a, b = self.stats(self.mail_a), self.stats(self.mail_b)
        for name in ("workload.ops_per_sec", "fs.write_amplification", "fs.fsync.lat_total",
                     "fs.fsync.lat_total.p99"):
            vals = dict(cmp[name])
            self.assertEqual(float(vals["base"]), 1.0, name)
            stat, field = (name[:-4], "p99") if name.endswith(".p99") else (name, None)
            ref = a[stat][field] if field else a[stat].get("value", a[stat].get("mean"))
            other = b[stat][field] if field else b[stat].get("value", b[stat].get("mean"))
            self.assertAlmostEqual(float(vals["lfs"]), other / ref, name)

    def test_figures_and_page(self):
        for base in ("cdf_fs", "cdf_workload", "series_latency", "write_amplification", "activity", "compare"):
            for ext in ("png", "svg", "csv"):
                path = os.path.join(self.multi, f"{base}.{ext}")
                self.assertTrue(os.path.getsize(path) > 0, path)
        with open(os.path.join(self.multi, "cdf_fs.svg")) as f:
            svg = f.read()
        for text in ("fs.fsync.lat_total", "fs.op.fsync.lat", "base", "lfs"):
            self.assertIn(text, svg)
        with open(os.path.join(self.single, "cdf_device.svg")) as f:
            svg = f.read()
        self.assertIn("ssd.latency.write", svg)
        with open(os.path.join(self.multi, "index.html")) as f:
            page = f.read()
        self.assertIn("fs.f2fs.mode", page)  # the configuration difference
        self.assertIn("varmail", page)
        self.assertIn("<th>complete</th>", page)
        self.assertIn("<td>yes</td>", page)
        self.assertNotIn("a signal stopped it", page)
        for base in ("cdf_fs", "series_throughput", "compare"):
            self.assertIn(f"<img src='{base}.png'", page)
        # The headline table gives each statistic's unit.
        self.assertIn("<td>fs.write_amplification</td><td>ratio</td>", page)
        self.assertIn("<td>fs.fsync.lat_total</td><td>ns</td>", page)

    def test_repro_verdicts_on_the_page(self):
        # A one-check set over the quick run: repro.py table writes
        # verdicts.json beside the results, report.py --repro shows it.
        t = self.tmp.name
        set_dir, set_out = os.path.join(t, "set"), os.path.join(t, "set_out")
        os.makedirs(set_dir, exist_ok=True)
        shutil.copytree(self.quick, os.path.join(set_out, "quick"), dirs_exist_ok=True)
        with open(os.path.join(set_dir, "a.yaml"), "w") as f:
            f.write("name: a\n")
        with open(os.path.join(set_dir, "expected.yaml"), "w") as f:
            f.write("title: Quick check\nsource: a test\nruns:\n  quick: {config: a.yaml}\n"
                    "checks:\n  - {figure: host writes, paper: 20000, measure: {run: quick, stat: workload.ios_total}, "
                    "within: 1.01, note: exact}\n")
        repro_py = os.path.join(os.path.dirname(REPORT), "repro.py")
        p = subprocess.run([sys.executable, repro_py, "table", set_dir, set_out], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("| host writes | 2e+04 | 2e+04 | matches | exact |", p.stdout)
        out = os.path.join(t, "report_repro")
        p = subprocess.run([sys.executable, REPORT, out, self.quick, "--format", "png", "--repro", set_out],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(out, "index.html")) as f:
            page = f.read()
        self.assertIn("Paper reproduction: Quick check", page)
        self.assertIn("<td>host writes</td><td>2e+04</td><td>2e+04</td><td>matches</td>", page)
        with open(os.path.join(out, "repro.csv")) as f:
            lines = f.read().splitlines()
        self.assertEqual(lines[0], "set,figure,source,paper,flashstack,verdict,note")
        self.assertTrue(lines[1].startswith("Quick check,host writes,,2e+04,2e+04,"), lines[1])
        self.assertIn(",matches,exact", lines[1])
        # The output of `repro.py all`: a folder of sets, shown together.
        every = os.path.join(t, "all_sets")
        shutil.copytree(set_out, os.path.join(every, "seed_a"), dirs_exist_ok=True)
        shutil.copytree(set_out, os.path.join(every, "seed_b"), dirs_exist_ok=True)
        out2 = os.path.join(t, "report_repro_all")
        p = subprocess.run([sys.executable, REPORT, out2, self.quick, "--format", "png", "--repro", every],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(out2, "repro.csv")) as f:
            self.assertEqual(len(f.read().splitlines()), 3)
        p = subprocess.run([sys.executable, REPORT, out, self.quick, "--repro", os.path.join(t, "nowhere")],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn("no verdicts", p.stderr)

    def test_without_series_and_bad_input(self):
        t = self.tmp.name
        bare = os.path.join(t, "bare")
        os.makedirs(bare, exist_ok=True)
        with open(os.path.join(self.quick, "stats.json")) as src, open(os.path.join(bare, "stats.json"), "w") as dst:
            # As a run stopped by a signal writes it.
            dst.write(src.read().replace('"complete": true', '"complete": false', 1))
        out = os.path.join(t, "report_bare")
        p = subprocess.run([sys.executable, REPORT, out, bare, "--format", "png"], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(out, "index.html")) as f:
            self.assertIn("<td>no: a signal stopped it</td>", f.read())
        self.assertFalse([f for f in os.listdir(out) if f.startswith("series_")])
        self.assertTrue(os.path.exists(os.path.join(out, "cdf_device.png")))
        self.assertFalse(os.path.exists(os.path.join(out, "cdf_device.svg")))
        for args, message in (([os.path.join(t, "nowhere")], "no such result folder"),
                              ([os.path.join(t, "report_bare")], "no stats.json")):
            p = subprocess.run([sys.executable, REPORT, os.path.join(t, "x")] + args, capture_output=True, text=True)
            self.assertEqual(p.returncode, 2)
            self.assertIn(message, p.stderr)


if __name__ == "__main__":
    if len(sys.argv) < 2 or not os.access(sys.argv[1], os.X_OK):
        sys.exit("usage: report_test.py FLASHSTACK_BINARY")
    BINARY = os.path.abspath(sys.argv.pop(1))
    unittest.main()
