#!/usr/bin/env python3
"""tools/aging_compare.py with the real simulator on a tiny generated
git-aging trace: the file systems it picks by itself (those that read from
the device), one aged run and one clean run per grep point, the table's
rows and ratios against the runs' stats, the CSV, the plot, the --doc block,
reuse of complete runs, and its exit code 2 on bad input.

  aging_compare_test.py BIN"""
import csv
import json
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "aging_compare.py")


def tiny_trace(path, pulls=5):
    rng = random.Random(5)
    lines = ["# flashstack git-aging trace v1", "# source: tiny"]
    live = set()
    for p in range(pulls):
        lines.append(f"pull {p} c{p}")
        if p == 0:
            lines += ["mkdir .git", "mkdir .git/objects", "mkdir src"]
        for k in range(30):
            name = f"src/f{rng.randrange(40)}"
            if name in live:
                lines.append(f"unlink {name}")
            live.add(name)
            lines.append(f"write .git/objects/o{p}_{k} {rng.randrange(100, 3000)}")
            lines.append(f"write {name} {rng.randrange(1000, 40000)}")
        lines += [f"write .git/index.lock {100 + p}", "rename .git/index.lock .git/index"]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def stats(d):
    with open(os.path.join(d, "stats.json")) as f:
        return json.load(f)["stats"]


def main():
    bin_path = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "tiny.trace")
        tiny_trace(trace)
        doc = os.path.join(tmp, "docs", "AGING.md")
        os.makedirs(os.path.dirname(doc))
        with open(doc, "w") as f:
            f.write("# Aging\n\nprose\n\n<!-- aging-table begin -->\nold table\n<!-- aging-table end -->\n\nafter\n")
        out = os.path.join(tmp, "out")
        cmd = [sys.executable, TOOL, out, "--bin", bin_path, "--trace", trace, "--grep-every", "2", "--doc", doc]
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert r.returncode == 0, r.stderr
        # memfs reads nothing from the device: only ext4 and f2fs are compared.
        dirs = sorted(d for d in os.listdir(out) if os.path.isdir(os.path.join(out, d)) and d != "probe")
        assert dirs == ["ext4-mqsim", "ext4-sdcard", "f2fs-mqsim", "f2fs-sdcard"], dirs
        assert os.path.isdir(os.path.join(out, "probe", "memfs-mqsim")), os.listdir(os.path.join(out, "probe"))
        # Grep points after pulls 0, 2 and 4 (the last): 1, 3, 5 pulls replayed; a clean run for each.
        for d in dirs:
            runs = sorted(os.listdir(os.path.join(out, d)))
            runs = [x for x in runs if not x.endswith(".log")]
            assert runs == ["aged", "clean-1", "clean-3", "clean-5"], runs
        rows = list(csv.DictReader(open(os.path.join(out, "aging.csv"))))
        assert len(rows) == 12, rows
        for row in rows:
            d = os.path.join(out, f"{row['fs']}-{row['device']}")
            aged = stats(os.path.join(d, "aged"))
            k = [1, 3, 5].index(int(row["pulls"]))
            clean = stats(os.path.join(d, f"clean-{row['pulls']}"))
            a = aged[f"workload.aging.grep.{k}.s_per_GiB"]["value"]
            c = clean["workload.aging.grep.0.s_per_GiB"]["value"]
            assert abs(float(row["aged_s_per_GiB"]) - a) < 1e-9 and abs(float(row["clean_s_per_GiB"]) - c) < 1e-9
            assert abs(float(row["aged_over_clean"]) - a / c) < 1e-9, row
            assert float(row["dls_aged"]) == aged[f"workload.aging.grep.{k}.dls"]["value"]
            assert float(row["dls_clean"]) == clean["workload.aging.grep.0.dls"]["value"]
            # The same tree both ways.
            assert int(row["bytes"]) == clean["workload.aging.grep.0.bytes"]["value"] > 0
            assert clean["workload.aging.grep.0.pulls"]["value"] == int(row["pulls"])
        table = open(os.path.join(out, "table.md")).read()
        for fs in ("ext4", "f2fs"):
            assert f"**{fs} on the MQSim-like SSD" in table and f"**{fs} on the SD-card-like device" in table, table
        assert table.count("\n| 5 |") == 4 and "| pulls | bytes | aged s/GiB | clean s/GiB | aged/clean |" in table
        text = open(doc).read()
        assert text.startswith("# Aging\n\nprose\n\n<!-- aging-table begin -->\n") and "old table" not in text
        assert text.endswith("<!-- aging-table end -->\n\nafter\n") and table in text
        assert os.path.getsize(os.path.join(tmp, "docs", "aging.png")) > 1000
        # A second call reuses every complete run.
        info = os.path.join(out, "f2fs-mqsim", "aged", "run_info.json")
        before = os.path.getmtime(info)
        r = subprocess.run(cmd + ["--fs", "f2fs", "--device", "mqsim"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        assert r.returncode == 0, r.stderr
        assert os.path.getmtime(info) == before
        # Bad input: exit 2 with a message.
        r = subprocess.run([sys.executable, TOOL, out, "--bin", bin_path, "--trace", os.path.join(tmp, "nope")],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert r.returncode == 2 and "no such file" in r.stderr, r
    print("aging_compare_test: ok")


if __name__ == "__main__":
    main()
