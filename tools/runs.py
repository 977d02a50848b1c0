"""Shared by the comparison tools (f2fsj_compare.py, exf2fs_compare.py):
running one flashstack config into a folder, reusing a complete run there,
and reading its statistics."""
import json
import os
import subprocess
import sys


def replace_marked_block(doc_path, tag, text):
    """Replaces what stands between the "<!-- TAG begin -->" and
    "<!-- TAG end -->" lines of doc_path with text; exits naming the file
    when the markers are missing."""
    begin, end = f"<!-- {tag} begin -->", f"<!-- {tag} end -->"
    with open(doc_path) as f:
        doc = f.read()
    if begin not in doc or end not in doc:
        sys.exit(f"{doc_path}: no {begin} / {end} markers")
    head, rest = doc.split(begin, 1)
    _, tail = rest.split(end, 1)
    with open(doc_path, "w") as f:
        f.write(head + begin + "\n" + text + end + tail)


def run_config(bin_path, cfg, out, sets, accept=(0,)):
    """`flashstack run cfg --out out --set s ...`, unless out already holds a
    complete run (run_info.json "complete"); an incomplete one is redone.
    Exits with the command and its log on failure: an exit code not in
    `accept` (3: the device refused some requests, which the results count
    in ssd.errors)."""
    info = os.path.join(out, "run_info.json")
    if os.path.exists(info):
        with open(info) as f:
            if json.load(f).get("complete"):
                return
        subprocess.run(["rm", "-rf", out], check=True)
    cmd = [bin_path, "run", cfg, "--noprogress", "--out", out]
    for s in sets:
        cmd += ["--set", s]
    log = out + ".log"
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(log, "w") as f:
        try:
            r = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT)
        except OSError as e:
            sys.exit(f"cannot run {bin_path}: {e}")
    if r.returncode not in accept:
        sys.exit(f"run failed ({r.returncode}): {' '.join(cmd)}; see {log}")


def load_stats(out):
    """The "stats" object of out/stats.json."""
    with open(os.path.join(out, "stats.json")) as f:
        return json.load(f)["stats"]


def stat(s, k, field="value", default=0.0):
    """Field `field` of statistic `k` (default when absent or null)."""
    v = s.get(k)
    if v is None:
        return default
    return v.get(field, default) or 0.0


def write_figures(out, figures):
    """OUT/figures.json: a comparison tool's measured headline figures by
    name, for tools/repro.py (its expected.yaml names them with
    measure: {figure: NAME}). A figure is a number, or a list of
    [label, number] pairs (one per workload, group or point; repro.py
    judges their range). NaN is written as null."""
    def clean(v):
        if isinstance(v, float) and v != v:
            return None
        if isinstance(v, (list, tuple)):
            return [clean(x) for x in v]
        return v
    with open(os.path.join(out, "figures.json"), "w") as f:
        json.dump({k: clean(v) for k, v in figures.items()}, f, indent=1, sort_keys=True)
        f.write("\n")
