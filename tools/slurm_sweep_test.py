#!/usr/bin/env python3
"""Tests of tools/slurm_sweep.sh against a stand-in sbatch.

The stand-in runs each submitted job at once (every task of an array, with
its SLURM_ARRAY_TASK_ID) and logs its arguments, so the tool's submissions
and the tabulated sweep are checked without a Slurm cluster. The real thing
ran through tools/slurm_local.sh (docs/DESIGN.md, "Sweeps").

    tools/slurm_sweep_test.py BINARY
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOL = os.path.join(ROOT, "tools", "slurm_sweep.sh")
BINARY = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(ROOT, "build", "app", "flashstack")

SBATCH = r"""#!/bin/bash
# Stand-in sbatch: runs the job now, prints its id (--parsable).
state=$(dirname "$0")
id=$(( $(cat "$state/next_id" 2>/dev/null || echo 100) + 1 ))
echo $id > "$state/next_id"
printf '%s\n' "$*" >> "$state/calls"
array="" out="" wrap=""
while [ $# -gt 0 ]; do
  case "$1" in
    --array=*) array=${1#--array=} ;;
    --output=*) out=${1#--output=} ;;
    --wrap) wrap=$2; shift ;;
  esac
  shift
done
if [ -n "$array" ]; then
  range=${array%%%*}
  for i in $(seq "${range%-*}" "${range#*-}"); do
    SLURM_ARRAY_TASK_ID=$i bash -c "$wrap" > "${out//%a/$i}" 2>&1
  done
else
  bash -c "$wrap" > "$out" 2>&1
fi
echo $id
"""


class SlurmSweepTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.bin = os.path.join(self.tmp, "bin")
        os.makedirs(self.bin)
        for name, text in (("sbatch", SBATCH), ("squeue", "#!/bin/sh\n")):
            path = os.path.join(self.bin, name)
            with open(path, "w") as f:
                f.write(text)
            os.chmod(path, 0o755)
        self.config = os.path.join(self.tmp, "sweep.yaml")
        with open(self.config, "w") as f:
            f.write(f"include: {ROOT}/configs/examples/tiny.yaml\nworkload:\n  fio:\n    total_ios: 2000\n"
                    "sweep:\n  ftl.victim: [greedy, fifo]\n  ftl.op: [10%, 28%]\n")
        self.env = dict(os.environ, PATH=self.bin + os.pathsep + os.environ["PATH"])

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def tool(self, *args, env=None):
        return subprocess.run(["/bin/bash", TOOL, *args], env=env or self.env, capture_output=True, text=True)

    def calls(self):
        with open(os.path.join(self.bin, "calls")) as f:
            return f.read().splitlines()

    def test_array_then_tabulation_gives_the_local_sweep(self):
        out = os.path.join(self.tmp, "out")
        r = self.tool(self.config, out, "--bin", BINARY, "--max_running", "3", "--sbatch", "--time=10",
                      "--wait")
        self.assertEqual(r.returncode, 0, r.stderr + r.stdout)
        self.assertIn("slurm_sweep: 4 points: job array 101, then job 102 tabulates", r.stdout)
        calls = self.calls()
        self.assertEqual(len(calls), 2)
        self.assertIn("--array=0-3%3", calls[0])
        self.assertIn("--time=10", calls[0])
        self.assertIn("--point $SLURM_ARRAY_TASK_ID", calls[0])
        self.assertIn("--dependency=afterany:101", calls[1])
        self.assertIn(" --resume ", calls[1])
        # The same points and table as one local run.
        local = os.path.join(self.tmp, "local")
        subprocess.run([BINARY, "run", self.config, "--quiet", "--noprogress", "--out", local], check=True,
                       stdout=subprocess.DEVNULL)
        with open(os.path.join(local, "sweep.csv")) as f:
            table = f.read()
        self.assertIn(table, r.stdout)
        for point in sorted(os.listdir(local)):
            if point.endswith(".csv"):
                continue
            with open(os.path.join(local, point, "stats.json"), "rb") as a, \
                    open(os.path.join(out, point, "stats.json"), "rb") as b:
                self.assertEqual(a.read(), b.read(), point)
        self.assertEqual(sorted(os.listdir(out + ".slurm")),
                         ["point_0.log", "point_1.log", "point_2.log", "point_3.log", "tabulate.log", "tabulate.rc"])

    def test_bad_config_is_refused_before_submitting(self):
        bad = os.path.join(self.tmp, "bad.yaml")
        with open(bad, "w") as f:
            f.write(f"include: {ROOT}/configs/examples/tiny.yaml\nftl:\n  victm: fifo\n")
        r = self.tool(bad, os.path.join(self.tmp, "out"), "--bin", BINARY)
        self.assertEqual(r.returncode, 2)
        self.assertIn("unknown key", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.bin, "calls")))
        r = self.tool(self.config, os.path.join(self.tmp, "out"), "--bin", BINARY, "--max_running", "0")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--max_running needs a positive whole number", r.stderr)

    def test_without_sbatch_it_says_how_to_get_slurm(self):
        r = self.tool(self.config, os.path.join(self.tmp, "out"), env=dict(os.environ, PATH="/nonexistent"))
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("slurm_sweep: sbatch not found", r.stderr)
        self.assertIn("tools/slurm_local.sh start", r.stderr)


if __name__ == "__main__":
    unittest.main()
