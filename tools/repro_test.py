#!/usr/bin/env python3
"""Tests of tools/repro.py: set files are checked, measures read the right
statistics, verdicts follow the paper's sign and tolerance, and every
shipped set under configs/repro/ loads."""
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import repro  # noqa: E402


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def stats_json(path, stats):
    write(path, json.dumps({"stats": stats}))


class ReproTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.set = os.path.join(self.tmp.name, "set")
        self.out = os.path.join(self.tmp.name, "out")
        write(os.path.join(self.set, "a.yaml"), "name: a\n")

    def tearDown(self):
        self.tmp.cleanup()

    def expected(self, text):
        write(os.path.join(self.set, "expected.yaml"), text)

    def test_values_changes_and_verdicts(self):
        self.expected("""
title: T
runs:
  base: {config: a.yaml, set: {x: 1}}
  new: {config: a.yaml}
checks:
  - {figure: visited, paper: 100, measure: {run: base, stat: v, per: n}, within: 1.5}
  - {figure: far, paper: 1000, measure: {run: base, stat: v, per: n}, within: 1.5}
  - {figure: share, paper: "2%", measure: {run: base, stat: w, per: v}, within: 2}
  - {figure: lat, paper: "-30%", measure: {change: [base, new], stat: lat.mean}, within: 10}
  - {figure: lat wide, paper: "-60%", measure: {change: [base, new], stat: lat.mean}, within: 10}
  - {figure: thr, paper: "+20%", measure: {change: [base, new], stat: lat.mean}, within: 10}
  - {figure: flat, paper: "+20%", measure: {change: [base, base], stat: lat.mean}}
""")
        stats_json(os.path.join(self.out, "base", "stats.json"),
                   {"v": {"value": 1200}, "n": {"value": 10}, "w": {"value": 30},
                    "lat": {"count": 3, "mean": 100.0, "p50": 90}})
        stats_json(os.path.join(self.out, "new", "stats.json"),
                   {"v": {"value": 1}, "n": {"value": 1}, "w": {"value": 1},
                    "lat": {"count": 3, "mean": 75.0, "p50": 70}})
        folder, spec = repro.load_set(self.set)
        rows = repro.table(folder, spec, self.out).splitlines()
        body = {r.split("|")[1].strip(): [c.strip() for c in r.split("|")[2:6]] for r in rows if r.startswith("| ")}
        self.assertEqual(body["visited"], ["100", "120", "matches", ""])
        self.assertEqual(body["far"], ["1000", "120", "differs (x 0.12)", ""])
        self.assertEqual(body["share"], ["2%", "2.5%", "matches", ""])
        self.assertEqual(body["lat"], ["-30%", "-25.0%", "reproduced", ""])
        self.assertEqual(body["lat wide"], ["-60%", "-25.0%", "direction only", ""])
        self.assertEqual(body["thr"], ["+20%", "-25.0%", "opposite", ""])
        self.assertEqual(body["flat"], ["+20%", "+0.0%", "no effect", ""])

    def test_bad_sets_and_missing_results_are_errors(self):
        cases = {
            "title: T\nchecks: []\n": "missing 'runs'",
            "title: T\nruns: {a: {config: nope.yaml}}\nchecks: [{figure: f, paper: 1, measure: {run: a, stat: s}}]\n":
                "no file nope.yaml",
            "title: T\nruns: {a: {config: a.yaml}}\nchecks: [{figure: f, paper: 1, measure: {run: b, stat: s}}]\n":
                "names a run the set does not have",
            "title: T\nruns: {a: {config: a.yaml}}\nchecks: [{figure: f, paper: -3, "
            "measure: {change: [a, a], stat: s}}]\n": "a change is written with %",
            "title: T\nruns: {a: {config: a.yaml}}\nchecks: [{figure: f, paper: 1, measure: {stat: s}}]\n":
                "{run, stat[, per]} or {change",
            "title: [unclosed\n": "expected.yaml",
        }
        for text, message in cases.items():
            self.expected(text)
            with self.assertRaises(repro.SetError) as e:
                repro.load_set(self.set)
            self.assertIn(message, str(e.exception))
        self.expected("title: T\nruns: {a: {config: a.yaml}}\nchecks: [{figure: f, paper: 1, "
                      "measure: {run: a, stat: s}}]\n")
        folder, spec = repro.load_set(self.set)
        with self.assertRaises(repro.SetError) as e:
            repro.table(folder, spec, self.out)
        self.assertIn("missing (run the set first", str(e.exception))
        self.assertIn("| f | 1 | not run | - |", repro.table(folder, spec, self.out, partial=True))
        stats_json(os.path.join(self.out, "a", "stats.json"), {"t": {"value": 1}})
        with self.assertRaises(repro.SetError) as e:
            repro.table(folder, spec, self.out)
        self.assertIn("no statistic 's'", str(e.exception))
        self.assertEqual(repro.main(["table", os.path.join(self.tmp.name, "nothing"), self.out]), 2)

    def test_run_only_and_resume(self):
        self.expected("""
title: T
runs:
  a: {config: a.yaml}
  b: {config: a.yaml}
checks:
  - {figure: fa, paper: 1, measure: {run: a, stat: s}}
  - {figure: fb, paper: 1, measure: {run: b, stat: s}}
""")
        folder, spec = repro.load_set(self.set)
        fake = os.path.join(self.tmp.name, "fake_bin")
        # A stand-in for flashstack: writes stats.json into --out and logs its calls.
        write(fake, "#!/bin/sh\nwhile [ $# -gt 0 ]; do [ \"$1\" = --out ] && o=$2; shift; done\n"
                    "mkdir -p \"$o\" && echo '{\"stats\": {\"s\": {\"value\": 1}}}' > \"$o/stats.json\"\n"
                    "echo \"$o\" >> \"" + os.path.join(self.tmp.name, "calls") + "\"\n")
        os.chmod(fake, 0o755)
        calls = lambda: open(os.path.join(self.tmp.name, "calls")).read().split()
        repro.run_set(folder, spec, self.out, fake, [], only=["a"])
        self.assertEqual([os.path.basename(c) for c in calls()], ["a"])
        self.assertIn("| fb | 1 | not run | - |", repro.table(folder, spec, self.out, partial=True))
        repro.run_set(folder, spec, self.out, fake, [], resume=True)
        self.assertEqual([os.path.basename(c) for c in calls()], ["a", "b"], "a kept, b run")
        # A run a signal cut short is run again.
        write(os.path.join(self.out, "b", "stats.json"), '{"complete": false, "stats": {"s": {"value": 1}}}')
        repro.run_set(folder, spec, self.out, fake, [], resume=True)
        self.assertEqual([os.path.basename(c) for c in calls()], ["a", "b", "b"], "incomplete b run again")
        with self.assertRaises(repro.SetError) as e:
            repro.run_set(folder, spec, self.out, fake, [], only=["zz"])
        self.assertIn("--only names runs the set does not have: zz", str(e.exception))

    def test_shipped_sets_load(self):
        root = os.path.join(repro.ROOT, "configs", "repro")
        names = sorted(n for n in os.listdir(root) if os.path.isdir(os.path.join(root, n)))
        self.assertIn("seed001", names)
        for n in names:
            repro.load_set(n)


if __name__ == "__main__":
    unittest.main()
