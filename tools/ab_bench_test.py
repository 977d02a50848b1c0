#!/usr/bin/env python3
"""Tests of tools/ab_bench.py with stand-in builds (shell scripts that print
flashstack's timing lines): the alternating order, the medians and ranges
of the table, `run` results kept apart per build, and exit code 2 with a
message for bad arguments and failing builds."""
import os
import stat
import subprocess
import sys
import tempfile
import unittest

TOOL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ab_bench.py")


def tool(*args):
    return subprocess.run([sys.executable, TOOL, *args], capture_output=True, text=True)


class AbBenchTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.t = self.tmp.name
        self.log = os.path.join(self.t, "order.log")

    def tearDown(self):
        self.tmp.cleanup()

    def fake(self, name, setups, runs, rate=None, rc=0, silent=False, what="host I/Os"):
        """A build whose k-th call prints setups[k] and runs[k] (cycling)."""
        path = os.path.join(self.t, name)
        counter = os.path.join(self.t, name + ".n")
        rate_text = f" | {rate} {what} per wall-second" if rate else ""
        body = [
            "#!/bin/bash",
            f'n=$(cat "{counter}" 2>/dev/null || echo 0); echo $((n + 1)) > "{counter}"',
            f'echo "{name} $*" >> "{self.log}"',
            f"setups=({' '.join(setups)}); runs=({' '.join(runs)}); n=$((n % ${{#setups[@]}}))",
        ]
        if not silent:
            body += [
                'if [ "$1" = bench ]; then',
                f'  echo "x: setup ${{setups[$n]}} s | run ${{runs[$n]}} s wall, 1s simulated{rate_text}"',
                "else",
                '  echo "wall time ${setups[$n]} s setup (formatting, preconditioning) + ${runs[$n]} s run, 9 events"',
                "fi",
            ]
        body.append(f"exit {rc}")
        with open(path, "w") as f:
            f.write("\n".join(body) + "\n")
        os.chmod(path, os.stat(path).st_mode | stat.S_IEXEC)
        return path

    def calls(self):
        with open(self.log) as f:
            return [line.split() for line in f]

    def test_alternates_and_reports_medians(self):
        a = self.fake("a", ["1.0", "3.0", "2.0"], ["0.5", "0.7", "0.6"], rate=1000)
        b = self.fake("b", ["0.4", "0.6", "0.5"], ["0.2", "0.1", "0.3"], rate=3000)
        p = tool("--rounds", "3", f"before={a}", f"after={b}", "--", "bench", "cfg.yaml", "--set", "x=1")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual([c[0] for c in self.calls()], ["a", "b", "b", "a", "a", "b"])
        self.assertEqual(self.calls()[0][1:], ["bench", "cfg.yaml", "--set", "x=1"])
        self.assertIn("| before | 3 | 2.000 s (1.000 s–3.000 s) | 0.600 s (0.500 s–0.700 s) | 1,000 |", p.stdout)
        self.assertIn("| after | 3 | 0.500 s (0.400 s–0.600 s) | 0.200 s (0.100 s–0.300 s) | 3,000 |", p.stdout)

    def test_file_system_operations_are_a_rate_too(self):
        a = self.fake("a", ["0.1"], ["4.0"], rate=950000, what="file-system operations")
        b = self.fake("b", ["0.1"], ["2.0"], rate=1900000, what="file-system operations")
        p = tool("--rounds", "2", f"A={a}", f"B={b}", "--", "bench", "cfg.yaml")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("| A | 2 | 0.100 s (0.100 s–0.100 s) | 4.000 s (4.000 s–4.000 s) | 950,000 |", p.stdout)
        self.assertIn("| B | 2 | 0.100 s (0.100 s–0.100 s) | 2.000 s (2.000 s–2.000 s) | 1,900,000 |", p.stdout)

    def test_run_results_go_to_a_folder_per_build(self):
        a = self.fake("a", ["0.1", "0.1"], ["2.0", "4.0"])
        b = self.fake("b", ["0.1", "0.1"], ["1.0", "1.0"])
        p = tool("--rounds", "2", f"A={a}", f"B={b}", "--", "run", "cfg.yaml")
        self.assertEqual(p.returncode, 0, p.stderr)
        outs = {c[0]: c[c.index("--out") + 1] for c in self.calls()}
        self.assertNotEqual(outs["a"], outs["b"])
        self.assertIn("| A | 2 | 0.100 s (0.100 s–0.100 s) | 3.000 s (2.000 s–4.000 s) | — |", p.stdout)
        # An --out of the caller's is kept as given.
        os.remove(self.log)
        p = tool("--rounds", "1", f"A={a}", f"B={b}", "--", "run", "cfg.yaml", "--out", "mine")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(all(c.count("--out") == 1 and c[-1] == "mine" for c in self.calls()))

    def test_bad_input_exits_2_with_a_message(self):
        a = self.fake("a", ["1"], ["1"])
        failing = self.fake("f", ["1"], ["1"], rc=3)
        mute = self.fake("m", ["1"], ["1"], silent=True)
        cases = [
            ((f"a={a}", f"b={a}", "bench", "c.yaml"), "separate the builds"),
            ((f"a={a}", "--", "bench", "c.yaml"), "at least two builds"),
            ((f"a={a}", f"a={a}", "--", "bench", "c.yaml"), "given twice"),
            ((f"a={a}", "nonsense", "--", "bench", "c.yaml"), "is not NAME=BINARY"),
            ((f"a={a}", f"b={self.t}/missing", "--", "bench", "c.yaml"), "not an executable file"),
            ((f"a={a}", f"b={a}", "--", "explain", "c.yaml"), "must start with 'bench' or 'run'"),
            (("--rounds", "0", f"a={a}", f"b={a}", "--", "bench", "c.yaml"), "at least 1"),
            ((f"a={a}", f"f={failing}", "--", "bench", "c.yaml"), "f: '"),
            ((f"a={a}", f"m={mute}", "--", "bench", "c.yaml"), "printed no timing line"),
        ]
        for args, message in cases:
            p = tool(*args)
            self.assertEqual(p.returncode, 2, (args, p.stdout, p.stderr))
            self.assertIn(message, p.stderr, args)


if __name__ == "__main__":
    unittest.main()
