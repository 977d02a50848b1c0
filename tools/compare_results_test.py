#!/usr/bin/env python3
"""Tests of tools/compare_results.py on synthetic result folders: the side by
side view (config differences, changes, incomplete runs), --identical (same,
statistics-only differences, a differing statistic) and --table."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

TOOL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "compare_results.py")


def write_run(folder, stats, config, complete=True):
    os.makedirs(folder, exist_ok=True)
    doc = {"complete": complete, "stats": {k: {"value": v} for k, v in stats.items()}, "config": config}
    with open(os.path.join(folder, "stats.json"), "w") as f:
        json.dump(doc, f, indent=1)


def tool(*args):
    return subprocess.run([sys.executable, TOOL, *args], capture_output=True, text=True)


class CompareResultsTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.t = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def test_side_by_side(self):
        a, b = os.path.join(self.t, "a"), os.path.join(self.t, "b")
        write_run(a, {"workload.iops": 100.0, "ftl.erases": 10}, {"ftl": {"op": 0.07}})
        write_run(b, {"workload.iops": 150.0, "ftl.erases": 10}, {"ftl": {"op": 0.28}}, complete=False)
        p = tool(a, b)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(f"INCOMPLETE: {b}", p.stdout)
        self.assertNotIn(f"INCOMPLETE: {a}", p.stdout)
        self.assertIn("ftl.op: 0.07 | 0.28", p.stdout)
        self.assertIn("workload.iops: 100 | 150 (+50.0%)", p.stdout)

    def test_identical_trees_and_table(self):
        before, after = os.path.join(self.t, "before"), os.path.join(self.t, "after")
        for tree in (before, after):
            write_run(os.path.join(tree, "x"), {"s": 1}, {"k": 1})
            write_run(os.path.join(tree, "y"), {"s": 2}, {"k": 1})
        p = tool("--identical", before, after)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("2 of 2 byte-identical", p.stdout)
        write_run(os.path.join(after, "y"), {"s": 2}, {"k": 2})  # only the configuration dump differs
        p = tool("--identical", before, after)
        self.assertEqual(p.returncode, 1)
        self.assertIn("y: every statistic identical; config keys differ: k", p.stdout)
        write_run(os.path.join(after, "x"), {"s": 3}, {"k": 1})  # a statistic differs
        p = tool("--identical", before, after)
        self.assertEqual(p.returncode, 1)
        self.assertIn("s", p.stdout)
        p = tool("--table", before, after, "--stats", "s")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("1 -> 3", p.stdout)


if __name__ == "__main__":
    unittest.main()
