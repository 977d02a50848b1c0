#!/usr/bin/env python3
"""tools/power_cut_table.py on synthetic result folders: a row's figures,
a run without cuts refused, and the --doc insertion (complete runs are
reused, never rerun)."""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import power_cut_table  # noqa: E402


def counter(v):
    return {"type": "counter", "value": v}


def stats(cuts=4, violations=0):
    s = {
        "cuts": cuts, "cut_time_mean": 2.5, "ops_before_cut": 4000 * cuts, "mount_failures": 0,
        "checker_failures": 1, "violations": violations, "lost_acknowledged.bytes": 0,
        "acknowledged.files": 40 * cuts, "acknowledged.bytes": 2 * 1048576 * cuts,
        "acknowledged.fsyncs": 100 * cuts, "acknowledged.commits": 0, "acknowledged.syncs": 0,
        "at_cut.bytes": 10 * 1048576 * cuts, "lost.bytes": 1048576 * cuts, "lost.names": 3 * cuts,
        "lost.names_back": 1 * cuts, "recovery.time_mean": 0.0125,
    }
    return {"power_cut." + k: counter(v) for k, v in s.items()}


def write_run(path, s):
    os.makedirs(path)
    with open(os.path.join(path, "stats.json"), "w") as f:
        json.dump({"stats": s}, f)
    with open(os.path.join(path, "run_info.json"), "w") as f:
        json.dump({"complete": True}, f)


def main():
    r = power_cut_table.row("fsync-heavy: varmail", "F2FS", {k: v for k, v in stats().items()})
    want = ("| fsync-heavy: varmail | F2FS | 4 | 2.50 s | 4000 | 40, 2.00 | 100 | 0 (0.00 MiB) | 4, 3 | "
            "1.00 MiB per cut (10.0 % of the linked bytes) | 3.0 | 1.0 | 12.5 ms |")
    assert r == want, f"\n{r}\n{want}"
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "out")
        for w in ("varmail", "createfiles"):
            for fs in ("f2fs", "f2fsj", "f2fsj_artifact", "ext4"):
                write_run(os.path.join(out, f"{w}_{fs}"), stats())
        doc = os.path.join(d, "doc.md")
        with open(doc, "w") as f:
            f.write("intro\n<!-- power-cut-table begin -->\nold\n<!-- power-cut-table end -->\nafter\n")
        p = subprocess.run([sys.executable, os.path.join(HERE, "power_cut_table.py"), out, "--bin", "/nonexistent",
                            "--cuts", "4", "--doc", doc], capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        text = open(doc).read()
        assert "old" not in text and text.startswith("intro\n") and text.endswith("after\n"), text
        assert text.count("| metadata-heavy: createfiles |") == 4, text
        assert "| F2FS-J (paper-faithful) |" in text and "--cuts 4" in text, text
        assert "| F2FS-J (artifact profile) |" in text and "configs/f2fs/journal_artifact.yaml" in text, text
        # The artifact row runs with the profile's journal keys.
        sets = dict(kv.split("=", 1) for name, _label, s in power_cut_table.FILE_SYSTEMS for kv in s
                    if name == "f2fsj_artifact")
        assert sets["fs.f2fs.durability"] == "journal" and sets["fs.f2fs.journal.fsync"] == "rollforward", sets
        assert sets["fs.f2fs.journal.barrier"] == "false" and sets["fs.f2fs.journal.records"] == "namespace", sets
        # A run that made no cut is refused with its name.
        bad = os.path.join(d, "bad")
        write_run(os.path.join(bad, "varmail_f2fs"), {})
        p = subprocess.run([sys.executable, os.path.join(HERE, "power_cut_table.py"), bad, "--bin", "/nonexistent"],
                           capture_output=True, text=True)
        assert p.returncode != 0 and "made no power cut" in p.stderr, p.stderr
    print("ok")


if __name__ == "__main__":
    main()
