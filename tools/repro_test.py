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
        self.assertEqual(body["lat wide"], ["-60%", "-25.0%", "direction only (smaller)", ""])
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

    def test_ratios_ranges_bounds_and_best(self):
        P = repro.parse_paper
        judge = lambda paper, values, within=None, best=False: repro.judge(P(paper, "t", False), values, within, best)
        self.assertEqual(judge("1.6x-3.1x", [1.9, 2.5]), "reproduced")
        self.assertEqual(judge("1.6x-3.1x", [1.05, 1.04]), "direction only (smaller)")
        self.assertEqual(judge("1.6x-3.1x", [9.0, 12.0]), "direction only (larger)")
        self.assertEqual(judge("1.6x-3.1x", [1.9, 0.8]), "mixed (1 of 2)")
        self.assertEqual(judge("1.6x-3.1x", [0.7]), "opposite")
        self.assertEqual(judge("1.6x-3.1x", [1.001]), "no effect")
        self.assertEqual(judge("24x", [2.0, 30.0], best=True), "reproduced")
        self.assertEqual(judge("24x", [2.0, 3.0], best=True), "direction only (smaller)")
        self.assertEqual(judge("-35%", [-60.7, 31.6], best=True), "mixed (1 of 2)")
        self.assertEqual(judge("-35%", [-20.0, -40.0], best=True), "reproduced")
        self.assertEqual(judge("1.0x", [1.05], within=1.1), "reproduced")
        self.assertEqual(judge("1.0x", [1.3], within=1.1), "differs")
        self.assertEqual(judge("1.004x", [1.01], within=1.1), "reproduced")
        self.assertEqual(judge(">240", [300, 100]), "differs (1 of 2)")
        self.assertEqual(judge(">240", [300, 100], best=True), "matches")
        self.assertEqual(judge("<1x", [0.5, 0.9]), "matches")
        self.assertEqual(judge("<1x", [float("nan")]), "n/a")
        self.assertEqual(judge(0, [0.0]), "matches")
        self.assertEqual(judge(0, [3.0]), "differs")
        with self.assertRaises(repro.SetError):
            P("fast", "t", False)

    def test_random_paper_figures_and_set_files_never_crash(self):
        # Any text as a paper figure or a set file: a value or SetError, never another exception.
        import random
        rng = random.Random(37)
        alphabet = "0123456789.+-%x<> ..eE-abc:{}[],'\"\n"
        for _ in range(3000):
            text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 9)))
            for is_change in (False, True):
                try:
                    p = repro.parse_paper(text, "t", is_change)
                    repro.judge(p, [rng.uniform(-5, 5), rng.uniform(0.1, 5)], rng.choice([None, 1.5]),
                                rng.random() < 0.5)
                except repro.SetError:
                    pass
        good = ("title: T\nruns: {a: {config: a.yaml, set: {x: 1}}}\nsizes: {quick: {set: {y: 2}, only: [a], wall: w}}\n"
                "checks: [{figure: f, paper: '1.5x-2x', measure: {run: a, stat: s, per: n}}, "
                "{figure: g, paper: '-3%', measure: {change: [a, a], stat: s}}]\n")
        for _ in range(2000):
            chars = list(good)
            for _ in range(rng.randrange(1, 4)):
                chars[rng.randrange(len(chars))] = rng.choice(alphabet)
            self.expected("".join(chars))
            try:
                repro.load_set(self.set)
            except repro.SetError:
                pass

    def test_driver_set_sizes_all_and_doc(self):
        # A driver: a stand-in comparison tool that records its arguments and
        # writes figures.json into its OUT.
        tool = os.path.join(repro.ROOT, "tools", "repro_test_driver.py")
        self.expected("""
title: Driven
source: a test
driver: {tool: repro_test_driver.py, args: [--base]}
sizes:
  quick: {args: [--small], wall: "seconds"}
checks:
  - {figure: speedup, source: "slide 3", paper: "2x-3x", measure: {figure: speedup}}
  - {figure: one, paper: 10, within: 1.5, measure: {figure: one}, note: why}
""")
        write(tool, "import json, os, sys\nout = sys.argv[1]\nos.makedirs(out, exist_ok=True)\n"
                    "json.dump({'speedup': [['a', 2.5], ['b', 2.9]], 'one': 30, 'args': sys.argv[2:]},"
                    " open(os.path.join(out, 'figures.json'), 'w'))\n")
        try:
            folder, spec = repro.load_set(self.set)
            self.assertEqual(repro.main(["run", self.set, self.out, "--quick", "--driver-arg", "--extra"]), 0)
            with open(os.path.join(self.out, "figures.json")) as f:
                self.assertEqual(json.load(f)["args"][:3], ["--base", "--small", "--extra"])
            with open(os.path.join(self.out, "verdicts.json")) as f:
                doc = json.load(f)
            self.assertEqual(doc["size"], "quick")
            self.assertIsNotNone(doc["wall_seconds"])
            rows = {r["figure"]: r for r in doc["rows"]}
            self.assertEqual(rows["speedup"]["verdict"], "reproduced")
            self.assertEqual(rows["speedup"]["flashstack"], "2.5x (a) .. 2.9x (b), 2 groups")
            self.assertEqual(rows["speedup"]["values"], [["a", 2.5], ["b", 2.9]])
            self.assertEqual(rows["one"]["verdict"], "differs (x 3)")
            self.assertIn("| speedup [slide 3] | 2x-3x |", repro.table(folder, spec, self.out))
            # The doc page gathers the sets' tables.
            page = os.path.join(self.tmp.name, "REPRODUCTION.md")
            sets = os.path.join(self.tmp.name, "sets")
            os.makedirs(os.path.join(sets, "seed001"))
            os.rename(os.path.join(self.out, "verdicts.json"), os.path.join(sets, "seed001", "verdicts.json"))
            repro.write_doc(sets, page, "all OUT")
            with open(page) as f:
                text = f.read()
            self.assertIn("Generated by `tools/repro.py all OUT`", text)
            self.assertIn("## seed001: Driven", text)
            self.assertIn("| seed001 | quick |", text)
            self.assertIn("| one | 10 | 30 | differs (x 3) | why |", text)
        finally:
            os.remove(tool)
        with self.assertRaises(repro.SetError) as e:
            repro.write_doc(os.path.join(self.tmp.name, "empty"), page, "all OUT")
        self.assertIn("no set results", str(e.exception))

    def test_a_tool_says_in_one_line_what_python_it_needs(self):
        import subprocess
        code = ("import sys; sys.path.insert(0, %r); import pydeps; pydeps.need('tool.py', ['json']); "
                "print('has json'); pydeps.need('tool.py', ['no_such_module_zz'])" % os.path.dirname(repro.__file__))
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertEqual(p.stdout, "has json\n")
        self.assertEqual(len(p.stderr.splitlines()), 1)
        self.assertIn("tool.py: needs Python modules no_such_module_zz", p.stderr)

    def test_shipped_sets_load(self):
        root = os.path.join(repro.ROOT, "configs", "repro")
        names = sorted(n for n in os.listdir(root) if os.path.isdir(os.path.join(root, n)))
        self.assertEqual(names, ["seed000", "seed001", "seed002", "seed003", "seed004"])
        for n in names:
            _, spec = repro.load_set(n)
            # Every set has a quick size and says what the full one costs;
            # every check says where in the paper its figure is.
            self.assertIn("wall", spec["sizes"]["quick"], n)
            self.assertIn("wall", spec["sizes"]["full"], n)
            for c in spec["checks"]:
                self.assertTrue(c.get("source"), f"{n}: {c['figure']}")


if __name__ == "__main__":
    unittest.main()
