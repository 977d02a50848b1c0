#!/usr/bin/env python3
"""tools/f2fsj_compare.py on synthetic result folders: the rows, the verdicts
and the --doc insertion (runs already complete are reused, never rerun)."""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def hist(count, mean, p90=0, p99=0):
    return {"type": "histogram", "count": count, "mean": mean, "p90": p90, "p99": p99}


def counter(v):
    return {"type": "counter", "value": v}


def write_run(path, cps, cp_mean_ns, lat_mean_ns, journal_bytes=0, cp_calls=0, cp_call_p90_ns=0):
    os.makedirs(path)
    stats = {
        "workload.fs.during_checkpoint.lat": hist(cp_calls, cp_call_p90_ns, p90=cp_call_p90_ns),
        "workload.ops_per_sec": counter(1000),
        "fs.cp.count": counter(cps),
        "fs.cp.duration": hist(cps, cp_mean_ns, p90=cp_mean_ns),
        "fs.cp.stall_total": counter(cps * cp_mean_ns),
        "workload.fs.open.lat": hist(100, lat_mean_ns, p99=2 * lat_mean_ns),
        "workload.fs.close.lat": hist(10, lat_mean_ns),
        "fs.journal.bytes": counter(journal_bytes),
        "fs.write_amplification": counter(1.5),
    }
    with open(os.path.join(path, "stats.json"), "w") as f:
        json.dump({"stats": stats}, f)
    with open(os.path.join(path, "run_info.json"), "w") as f:
        json.dump({"complete": True}, f)


def main():
    with tempfile.TemporaryDirectory() as out:
        # alpha: F2FS checkpoints 10 x 200 ms, F2FS-J 2 x 400 ms (2.5x less);
        # beta: never checkpoints (left out of the checkpoint verdict).
        # Calls overlapping checkpoints: P90 300 ms with F2FS, 5 ms with F2FS-J.
        write_run(os.path.join(out, "alpha", "checkpoint"), 10, 200e6, 1000, cp_calls=50, cp_call_p90_ns=300e6)
        write_run(os.path.join(out, "alpha", "journal"), 2, 400e6, 600, journal_bytes=2 << 20, cp_calls=9,
                  cp_call_p90_ns=5e6)
        write_run(os.path.join(out, "beta", "checkpoint"), 0, 0, 500)
        write_run(os.path.join(out, "beta", "journal"), 0, 0, 550)
        # The artifact's F2FS-J: alpha 4 x 100 ms (5x less), latency 50 % lower.
        write_run(os.path.join(out, "alpha", "journal_artifact"), 4, 100e6, 500, journal_bytes=1 << 20)
        write_run(os.path.join(out, "beta", "journal_artifact"), 0, 0, 450)
        doc = os.path.join(out, "doc.md")
        with open(doc, "w") as f:
            f.write("head\n<!-- f2fsj-table begin -->\nold\n<!-- f2fsj-table end -->\ntail\n")
        r = subprocess.run([sys.executable, os.path.join(HERE, "f2fsj_compare.py"), out, "--bin", "/nonexistent",
                            "--doc", doc, "x/alpha.yaml", "x/beta.yaml"], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        t = r.stdout
        assert "| alpha | checkpoint | 1000 | 10 | 2.00 | 200.0 | 2.00 | 300.0 (50) | 1.0 |" in t, t
        assert "| alpha | journal | 1000 | 2 | 0.80 | 400.0 | 0.80 | 5.0 (9) | 0.6 |" in t, t
        assert "| 2.0 (0) |" in t, t
        assert "2.50x (alpha) to 2.50x (alpha) lower, median 2.50x over the 1 workloads" in t, t
        assert "checkpointing time 1.7x-4.9x lower" in t and "| reproduced |" in t, t
        # Latency: alpha 40 % lower, beta 10 % higher.
        assert "from -10.0 % (beta) to 40.0 % (alpha) lower" in t, t
        # The paper's stall measure: F2FS above 240 ms in alpha, F2FS-J below;
        # beta had no call during a checkpoint.
        line = next(l for l in t.splitlines() if l.startswith("| F2FS: P90 latency > 240 ms"))
        assert "F2FS above 240 ms in 1 of 1 workloads (alpha), F2FS-J at or below it in 1 of those" in line, line
        assert "lower with F2FS-J in 1 of 1" in line and line.endswith("| reproduced |"), line
        # The checkpoint itself: the journal's p90 (400 ms) is not shorter than F2FS's (200 ms).
        line = next(l for l in t.splitlines() if l.startswith("| (the checkpoint itself)"))
        assert "shorter with F2FS-J in 0 of 1 workloads" in line and line.endswith("| not shorter |"), line
        assert "| alpha | journal_artifact | 1000 | 4 | 0.40 | 100.0 |" in t, t
        assert "journal = F2FS-J, paper-faithful; journal_artifact = F2FS-J, artifact-faithful" in t, t
        line = next(l for l in t.splitlines() if l.startswith("| (artifact-faithful F2FS-J) checkpointing time"))
        assert "5.00x (alpha) to 5.00x (alpha) lower" in line and line.endswith("| reproduced |"), line
        line = next(l for l in t.splitlines() if l.startswith("| (artifact-faithful F2FS-J) operation latency"))
        assert "from 10.0 % (beta) to 50.0 % (alpha) lower" in line, line
        # --modes checkpoint,journal leaves the artifact's rows out.
        r2 = subprocess.run([sys.executable, os.path.join(HERE, "f2fsj_compare.py"), out, "--bin", "/nonexistent",
                             "--modes", "checkpoint,journal", "x/alpha.yaml"], capture_output=True, text=True)
        assert r2.returncode == 0 and "journal_artifact" not in r2.stdout, r2.stdout + r2.stderr
        r2 = subprocess.run([sys.executable, os.path.join(HERE, "f2fsj_compare.py"), out, "--modes", "journal"],
                            capture_output=True, text=True)
        assert r2.returncode == 2 and "--modes" in r2.stderr, r2.stderr
        # The artifact profile's keys become --set options.
        sys.path.insert(0, HERE)
        import f2fsj_compare
        os.chdir(os.path.dirname(HERE))
        sets = f2fsj_compare.mode_sets("journal_artifact")
        for want in ("fs.f2fs.durability=journal", "fs.f2fs.journal.records=namespace",
                     "fs.f2fs.journal.commit_wait=false", "fs.f2fs.journal.fsync=rollforward",
                     "fs.f2fs.journal.barrier=false", "fs.f2fs.journal.checkpoint_after_commit=true"):
            assert want in sets, sets
        with open(doc) as f:
            d = f.read()
        assert d.startswith("head\n<!-- f2fsj-table begin -->\n") and d.endswith("<!-- f2fsj-table end -->\ntail\n")
        assert "old" not in d and "| alpha | journal |" in d
        # A run that is not complete is rerun: with no binary, that fails clearly.
        with open(os.path.join(out, "beta", "journal", "run_info.json"), "w") as f:
            json.dump({"complete": False}, f)
        r = subprocess.run([sys.executable, os.path.join(HERE, "f2fsj_compare.py"), out, "--bin", "/nonexistent",
                            "x/beta.yaml"], capture_output=True, text=True)
        assert r.returncode != 0 and "cannot run /nonexistent" in r.stderr, r.stderr
    print("ok")


if __name__ == "__main__":
    main()
