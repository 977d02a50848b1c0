#!/usr/bin/env python3
"""Paper reproduction sets: run a seed paper's experiments and print
paper | flashstack | verdict | note.

A set is a folder under configs/repro/ holding an expected.yaml and, for a
set of its own runs, the configs it runs:

  title: ...                      # what the set reproduces
  source: ...                     # the paper, its setup (kernel, machine)
  runs:                           # result folders, each one `flashstack run`
    NAME: {config: FILE, set: {KEY: VALUE, ...}}
  driver:                         # instead of runs: a comparison tool of
    tool: f2fsj_compare.py        # tools/ that runs its experiments into OUT
    args: [ARG, ...]              # and writes OUT/figures.json
  sizes:                          # optional; full is what runs without --quick
    quick: {set: {KEY: VALUE}, args: [...], only: [RUN, ...], wall: "..."}
    full: {set: {...}, args: [...], wall: "..."}
  notes: ...                      # optional markdown shown under the table
                                  # (how to run the set at another scale)
  checks:                         # one table row each
    - figure: "Table 1 (fio): node pages visited per fsync"
      source: "Table 1"           # where in the paper (slide, table, figure)
      paper: 520                  # see below
      measure: ...                # see below
      within: 2.0                 # tolerance, see below
      best: true                  # "up to": judge the most favourable value
      note: ...                   # why the size differs, when it does

A measure is a value of one run,
  {run: NAME, stat: STAT, per: STAT}        (per: optional divisor)
the relative change from one run to another,
  {change: [FROM, TO], stat: STAT}          (TO / FROM - 1, in percent)
or a figure the driver measured,
  {figure: NAME}                            (OUT/figures.json: a number, or
                                             [label, number] pairs, one per
                                             workload or group)
STAT names a stats.json entry ("fs.fsync.calls"), optionally with the field
to read ("fs.fsync.lat_total.mean"; counters and formulas read "value",
a histogram named alone its "mean").

The paper's figure says how it is judged:
  520, "0.19%"        a value (a share): "matches" within the factor
                      `within` (default 1), else "differs (x R)"
  "-31%", "+170%"     a change in percent (a change measure, or a figure
                      written with its sign); "L%..H%" a range
  "24x", "1.6x-3.1x"  a ratio (a range)
  "<240", ">240"      a bound: "matches" when every value keeps it
A change or ratio is "reproduced" when every value has the paper's
direction (above or below no change) and the values' range overlaps the
paper's widened by `within` (percentage points for a change, default 10; a
factor for a ratio, default 1.5); with `best`, the most favourable value
must reach it. Otherwise "direction only (smaller|larger)", "mixed (K of
N)", "opposite", or "no effect" (every value within 1 % of no change). A
paper figure of no change ("1.0x", "0%", or within 1 % of it) is
"reproduced" when every value lies within the tolerance of it, else
"differs".

Usage:
  tools/repro.py run SET OUT [--quick] [--bin BIN] [--set KEY=VALUE ...] [--only RUN,...] [--resume]
                             [--driver-arg ARG ...]
  tools/repro.py table SET OUT [--partial]
  tools/repro.py all OUT [--quick] [--jobs N] [--bin BIN] [--doc FILE]
  tools/repro.py doc OUT FILE
SET is a folder (configs/repro/seed001) or its name (seed001). `run` runs
the set (--quick: its quick size) into OUT (a run set: each run into
OUT/NAME, replacing earlier results; with --resume, a run whose
OUT/NAME/stats.json exists and is not marked "complete": false is kept; a
driver set: the tool, which keeps the complete runs it finds in OUT, with
the size's arguments and then each --driver-arg) and
prints the table (partial when runs were left out); `table` prints it from
results already in OUT (with --partial, a row whose runs have no results yet
says "not run" instead of failing). Markdown on stdout, and the same rows in
OUT/verdicts.json (which `tools/report.py --repro OUT` shows). `all` runs
every set of configs/repro/ into OUT/SET, N sets at a time (each set's log
in OUT/SET.log, its wall time in OUT/SET/verdicts.json), then writes
OUT/REPRODUCTION.md (and FILE with --doc) from their tables; `doc` writes
that page from results already in OUT. Exit code 2 on a bad set file,
missing results or a failed run.
"""
import json
import math
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pydeps import need  # noqa: E402

need("repro.py", ["yaml"])
import yaml  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SETS = os.path.join(ROOT, "configs", "repro")
NO_EFFECT = 1.0  # percent
DEFAULT_WITHIN = {"change": 10.0, "ratio": 1.5, "value": 1.0}


class SetError(Exception):
    pass


class Paper:
    """The paper's figure: kind (value, change, ratio, bound), its range
    [lo, hi] (lo == hi for one number) and, for a bound, its side."""

    def __init__(self, kind, lo, hi=None, side=None, shown=None):
        self.kind, self.lo, self.hi, self.side, self.shown = kind, lo, lo if hi is None else hi, side, shown


def number(text, where):
    try:
        return float(text)
    except ValueError:
        raise SetError(f"{where}.paper: not a number: {text}")


def parse_paper(p, where, is_change):
    """The paper's figure (see the module's doc). is_change: the measure is
    a change, so the figure must be one."""
    shown = p if isinstance(p, str) else None
    if isinstance(p, bool) or not isinstance(p, (str, int, float)):
        raise SetError(f"{where}.paper: not a number: {p}")
    if is_change and not (isinstance(p, str) and p.strip().endswith("%")):
        raise SetError(f"{where}.paper: a change is written with %, e.g. -31%")
    if isinstance(p, (int, float)):
        return Paper("value", float(p))
    t = p.strip().replace(" ", "")
    if t[:1] in "<>":
        return Paper("bound", number(t[1:].rstrip("x"), where), side=t[0], shown=shown)
    if t.endswith("x") or ("x-" in t and t.endswith("x")):
        lo, _, hi = t[:-1].partition("-")
        return Paper("ratio", number(lo.rstrip("x"), where), number(hi, where) if hi else None, shown=shown)
    if t.endswith("%"):
        signed = t[0] in "+-"
        if is_change or signed:
            lo, _, hi = t.partition("..")
            lo_v = number(lo.rstrip("%"), where)
            return Paper("change", lo_v, number(hi.rstrip("%"), where) if hi else None, shown=shown)
        return Paper("value", number(t[:-1], where) / 100, shown=shown)
    return Paper("value", number(t, where), shown=shown)


def load_set(arg):
    folder = arg if os.path.isdir(arg) else os.path.join(SETS, arg)
    path = os.path.join(folder, "expected.yaml")
    if not os.path.isfile(path):
        raise SetError(f"{arg}: no such reproduction set (expected {path})")
    with open(path) as f:
        try:
            spec = yaml.safe_load(f)
        except yaml.YAMLError as e:
            raise SetError(f"{path}: {e}")
    if not isinstance(spec, dict):
        raise SetError(f"{path}: not a mapping")
    for key in ("title", "checks"):
        if key not in spec:
            raise SetError(f"{path}: missing '{key}'")
    if ("runs" in spec) == ("driver" in spec):
        raise SetError(f"{path}: missing 'runs' (or 'driver', not both)")
    runs = spec.get("runs") or {}
    if "runs" in spec:
        if not isinstance(runs, dict) or not runs:
            raise SetError(f"{path}: runs: a mapping of run names to {{config, set}}")
        for name, r in runs.items():
            if not isinstance(r, dict) or not isinstance(r.get("config"), str) or not r["config"]:
                raise SetError(f"{path}: runs.{name}: needs 'config' (a file name)")
            if not os.path.isfile(os.path.join(folder, r["config"])):
                raise SetError(f"{path}: runs.{name}.config: no file {r['config']} in {folder}")
            if not isinstance(r.get("set", {}), dict):
                raise SetError(f"{path}: runs.{name}.set: a mapping of keys to values")
    else:
        d = spec["driver"]
        if not isinstance(d, dict) or not isinstance(d.get("tool"), str):
            raise SetError(f"{path}: driver: {{tool: NAME, args: [...]}}")
        if not os.path.isfile(os.path.join(ROOT, "tools", d["tool"])):
            raise SetError(f"{path}: driver.tool: no tools/{d['tool']}")
        if not isinstance(d.get("args", []), list):
            raise SetError(f"{path}: driver.args: a list")
    sizes = spec.get("sizes") or {}
    if not isinstance(sizes, dict) or set(sizes) - {"quick", "full"}:
        raise SetError(f"{path}: sizes: a mapping with quick and full")
    for name, size in sizes.items():
        if not isinstance(size, dict) or set(size) - {"set", "args", "only", "wall"}:
            raise SetError(f"{path}: sizes.{name}: a mapping of set, args, only, wall")
        if not isinstance(size.get("set", {}), dict) or not isinstance(size.get("args", []), list):
            raise SetError(f"{path}: sizes.{name}: set is a mapping, args a list")
        if not isinstance(size.get("only", []), list) or not all(isinstance(r, str) for r in size.get("only", [])):
            raise SetError(f"{path}: sizes.{name}.only: a list of run names")
        unknown = [r for r in size.get("only", []) if r not in runs]
        if unknown:
            raise SetError(f"{path}: sizes.{name}.only: names runs the set does not have: {unknown}")
    if not isinstance(spec["checks"], list) or not spec["checks"]:
        raise SetError(f"{path}: checks: a list")
    for i, c in enumerate(spec["checks"]):
        where = f"{path}: checks[{i}]"
        if not isinstance(c, dict) or not {"figure", "paper", "measure"} <= set(c):
            raise SetError(f"{where}: needs figure, paper and measure")
        m = c["measure"]
        kinds = [k for k in ("run", "change", "figure") if isinstance(m, dict) and k in m]
        if len(kinds) != 1 or ("figure" not in m and "stat" not in m):
            raise SetError(f"{where}.measure: {{run, stat[, per]}} or {{change: [FROM, TO], stat}} or {{figure}}")
        if not all(isinstance(m[k], str) for k in ("run", "stat", "per", "figure") if k in m):
            raise SetError(f"{where}.measure: run, stat, per and figure are names")
        if "figure" in m:
            if "driver" not in spec:
                raise SetError(f"{where}.measure: a figure needs a driver")
        else:
            named = [m["run"]] if "run" in m else m["change"]
            if not isinstance(named, list) or not all(isinstance(n, str) and n in runs for n in named) \
                    or len(named) not in (1, 2):
                raise SetError(f"{where}.measure: names a run the set does not have: {named}")
        parse_paper(c["paper"], where, "change" in m)
    return folder, spec


def stat(stats, name, where):
    if name in stats:
        e = stats[name]
        return float(e["value"] if "value" in e else e["mean"])
    base, _, field = name.rpartition(".")
    if base in stats and field in stats[base]:
        return float(stats[base][field])
    raise SetError(f"{where}: no statistic '{name}' in the results")


def read_stats(out, run):
    path = os.path.join(out, run, "stats.json")
    if not os.path.isfile(path):
        raise SetError(f"{path}: missing (run the set first: tools/repro.py run SET {out})")
    with open(path) as f:
        return json.load(f)["stats"]


def read_figures(out):
    path = os.path.join(out, "figures.json")
    if not os.path.isfile(path):
        raise SetError(f"{path}: missing (run the set first: tools/repro.py run SET {out})")
    with open(path) as f:
        try:
            return json.load(f)
        except ValueError as e:
            raise SetError(f"{path}: not JSON: {e}")


def measure(m, out, where):
    """A number, or [[label, number], ...] for a figure over groups."""
    if "figure" in m:
        figs = read_figures(out)
        if m["figure"] not in figs:  # the driver did not measure it at this size
            return None
        v = figs[m["figure"]]
        if isinstance(v, list):
            return [[str(label), math.nan if x is None else float(x)] for label, x in v]
        return math.nan if v is None else float(v)
    if "run" in m:
        s = read_stats(out, m["run"])
        v = stat(s, m["stat"], where)
        if "per" in m:
            d = stat(s, m["per"], where)
            v = v / d if d else math.nan
        return v
    a = stat(read_stats(out, m["change"][0]), m["stat"], where)
    b = stat(read_stats(out, m["change"][1]), m["stat"], where)
    return (b / a - 1) * 100 if a else math.nan


def fmt_value(v, paper):
    if math.isnan(v):
        return "n/a"
    if math.isinf(v):
        return "inf"
    if paper.kind == "change":
        return f"{v:+.1f}%"
    if paper.kind == "ratio" or (paper.kind == "bound" and paper.shown and paper.shown.strip().endswith("x")):
        return f"{v:.3g}x"
    if paper.kind == "value" and paper.shown and paper.shown.strip().endswith("%"):
        return f"{v * 100:.3g}%"
    return f"{v:.4g}"


def judge(paper, values, within, best=False):
    """The verdict on `values` (floats, NaN left out) against the paper."""
    values = [v for v in values if not math.isnan(v)]
    if not values:
        return "n/a"
    if paper.kind == "bound":
        if best:  # some value keeps it: the most favourable one
            values = [min(values) if paper.side == "<" else max(values)]
        bad = [v for v in values if not (v < paper.lo if paper.side == "<" else v > paper.lo)]
        if not bad:
            return "matches"
        return "differs" if len(values) == 1 else f"differs ({len(bad)} of {len(values)})"
    if paper.kind == "value":
        factor = within if within is not None else DEFAULT_WITHIN["value"]
        worst = None
        for v in values:
            if paper.lo == 0 or v <= 0:
                if v != paper.lo:
                    return "differs"
                continue
            r = v / paper.lo
            if max(r, 1 / r) > factor and (worst is None or max(r, 1 / r) > max(worst, 1 / worst)):
                worst = r
        return "matches" if worst is None else f"differs (x {worst:.2g})"
    change = paper.kind == "change"
    tol = within if within is not None else DEFAULT_WITHIN[paper.kind]
    # Distance from "no change", in the paper's direction: percentage
    # points for a change, log factor for a ratio.
    if change:
        d = lambda x: x
        window = (paper.lo - tol, paper.hi + tol)
        flat = lambda x: abs(x) < NO_EFFECT
    else:
        if any(v <= 0 for v in values) or paper.lo <= 0:
            return "n/a"
        d = lambda x: math.log(x)
        window = (paper.lo / tol, paper.hi * tol)
        flat = lambda x: abs(x - 1) < NO_EFFECT / 100
    inside = lambda x: window[0] <= x <= window[1]
    mid = (d(paper.lo) + d(paper.hi)) / 2
    if flat(paper.lo) and flat(paper.hi):  # the paper: no change (within 1 %)
        return "reproduced" if all(inside(v) for v in values) else "differs"
    if all(flat(v) for v in values):
        return "no effect"
    ahead = [v for v in values if (d(v) > 0) == (mid > 0) and not flat(v)]
    if not ahead:
        return "opposite"
    if len(ahead) < len(values):
        return f"mixed ({len(ahead)} of {len(values)})"
    if best:
        top = max(values, key=lambda v: abs(d(v)))
        if inside(top) or abs(d(top)) > abs(mid):
            return "reproduced"
        return "direction only (smaller)"
    if max(values) >= window[0] and min(values) <= window[1]:
        return "reproduced"
    if abs(d(max(values, key=lambda v: abs(d(v))))) < min(abs(d(window[0])), abs(d(window[1]))):
        return "direction only (smaller)"
    return "direction only (larger)"


def verdict(paper, value, is_change, within):
    """The verdict on one value (kept for callers of one number)."""
    if not isinstance(paper, Paper):
        paper = Paper("change" if is_change else "value", float(paper))
    return judge(paper, [value], within)


def shown_measure(value, paper, best):
    if not isinstance(value, list):
        return fmt_value(value, paper)
    vals = [(label, v) for label, v in value if not math.isnan(v)]
    if not vals:
        return "n/a"
    if len(vals) == 1:
        return f"{fmt_value(vals[0][1], paper)} ({vals[0][0]})"
    lo = min(vals, key=lambda lv: lv[1])
    hi = max(vals, key=lambda lv: lv[1])
    text = f"{fmt_value(lo[1], paper)} ({lo[0]}) .. {fmt_value(hi[1], paper)} ({hi[0]}), {len(vals)} groups"
    return text


def rows(folder, spec, out, partial=False):
    """The table's rows: dicts of figure, source, paper, flashstack, verdict,
    note (and values: the measured [label, value] pairs of a figure over
    groups)."""
    result = []
    for i, c in enumerate(spec["checks"]):
        where = f"checks[{i}] ({c['figure']})"
        m = c["measure"]
        is_change = "change" in m
        paper = parse_paper(c["paper"], where, is_change)
        shown_paper = c["paper"] if isinstance(c["paper"], str) else fmt_value(paper.lo, paper)
        row = {"figure": c["figure"], "source": str(c.get("source", "")), "paper": str(shown_paper)}
        if "figure" in m:
            missing = not os.path.isfile(os.path.join(out, "figures.json"))
        else:
            runs = [m["run"]] if "run" in m else m["change"]
            missing = any(not os.path.isfile(os.path.join(out, r, "stats.json")) for r in runs)
        if partial and missing:
            row.update({"flashstack": "not run", "verdict": "-", "note": ""})
            result.append(row)
            continue
        value = measure(m, out, where)
        if value is None:
            row.update({"flashstack": "not measured at this size", "verdict": "n/a",
                        "note": " ".join(str(c.get("note", "")).split())})
            result.append(row)
            continue
        values = [v for _, v in value] if isinstance(value, list) else [value]
        note = " ".join(str(c.get("note", "")).split())
        row.update({"flashstack": shown_measure(value, paper, c.get("best")),
                    "verdict": judge(paper, values, c.get("within"), bool(c.get("best"))), "note": note})
        if isinstance(value, list):
            row["values"] = [[label, None if math.isnan(v) else v] for label, v in value]
        result.append(row)
    return result


def figure_cell(r):
    return f"{r['figure']} [{r['source']}]" if r.get("source") else r["figure"]


def table_md(doc, heading="**"):
    lines = [f"{heading}{doc['title']}{'**' if heading == '**' else ''}", ""]
    if doc.get("source"):
        lines += [doc["source"], ""]
    if doc.get("size"):
        lines += [f"Size: {doc['size']}" + (f"; wall time {doc['wall_seconds']:.0f} s"
                                             if doc.get("wall_seconds") is not None else "") + ".", ""]
    lines += ["| figure | paper | flashstack | verdict | note |", "|---|---|---|---|---|"]
    for r in doc["rows"]:
        lines.append(f"| {figure_cell(r)} | {r['paper']} | {r['flashstack']} | {r['verdict']} | {r['note']} |")
    if doc.get("sizes"):
        lines += [""] + [f"- {k} size: {v}" for k, v in doc["sizes"].items() if v]
    if doc.get("notes"):
        lines += ["", doc["notes"]]
    return "\n".join(lines) + "\n"


def verdicts_doc(folder, spec, out, partial=False, size=None, wall=None):
    return {"set": os.path.basename(os.path.normpath(folder)), "title": spec["title"],
            "source": " ".join(str(spec.get("source", "")).split()), "size": size, "wall_seconds": wall,
            "sizes": {k: str(v.get("wall", "")) for k, v in (spec.get("sizes") or {}).items()},
            "notes": str(spec.get("notes", "")).strip(),
            "rows": rows(folder, spec, out, partial)}


def table(folder, spec, out, partial=False):
    return table_md(verdicts_doc(folder, spec, out, partial))


def write_verdicts(folder, spec, out, partial=False, size=None, wall=None):
    """OUT/verdicts.json: the set's title, source, size, wall time and rows,
    for tools/report.py --repro and `repro.py doc`. Returns the document."""
    doc = verdicts_doc(folder, spec, out, partial, size, wall)
    with open(os.path.join(out, "verdicts.json"), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    return doc


def finished(path):
    """A stats.json of a run that ran to its end (a signal marks it "complete": false)."""
    try:
        with open(path) as f:
            return json.load(f).get("complete", True) is not False
    except (OSError, ValueError):
        return False


def size_of(spec, quick):
    return (spec.get("sizes") or {}).get("quick" if quick else "full") or {}


def run_set(folder, spec, out, binary, sets, only=None, resume=False, quick=False, driver_args=()):
    size = size_of(spec, quick)
    if only:
        unknown = sorted(set(only) - set(spec.get("runs") or {}))
        if unknown:
            raise SetError(f"--only names runs the set does not have: {', '.join(unknown)} "
                           f"(runs: {', '.join(spec.get('runs') or {})})")
    os.makedirs(out, exist_ok=True)
    if "driver" in spec:
        return run_driver(spec, out, binary, sets, size, driver_args)
    only = only or size.get("only")
    for name, r in spec["runs"].items():
        if only and name not in only:
            continue
        if resume and finished(os.path.join(out, name, "stats.json")):
            print(f"kept {name}", file=sys.stderr)
            continue
        cmd = [binary, "run", os.path.join(folder, r["config"]), "--noprogress", "--out", os.path.join(out, name)]
        for k, v in (r.get("set") or {}).items():
            cmd += ["--set", f"{k}={v}"]
        for k, v in (size.get("set") or {}).items():
            cmd += ["--set", f"{k}={v}"]
        for s in sets:
            cmd += ["--set", s]
        log = os.path.join(out, name + ".log")
        with open(log, "w") as f:
            rc = subprocess.call(cmd, stdout=f, stderr=subprocess.STDOUT)
        if rc != 0:
            raise SetError(f"run {name} failed (exit {rc}): see {log}")
        print(f"ran {name}", file=sys.stderr)
    return bool(only)


def run_driver(spec, out, binary, sets, size, extra=()):
    """Runs the set's comparison tool into OUT (it writes OUT/figures.json)."""
    d = spec["driver"]
    tool = os.path.join(ROOT, "tools", d["tool"])
    cmd = ([sys.executable] if tool.endswith(".py") else ["bash"]) + [tool, os.path.abspath(out)]
    cmd += [str(a) for a in d.get("args", [])] + [str(a) for a in size.get("args", [])] + list(extra)
    cmd += ["--bin", binary]
    for k, v in (size.get("set") or {}).items():
        cmd += ["--set", f"{k}={v}"]
    for s in sets:
        cmd += ["--set", s]
    log = os.path.join(out, "driver.log")
    with open(log, "w") as f:
        f.write(" ".join(cmd) + "\n")
        f.flush()
        rc = subprocess.call(cmd, stdout=f, stderr=subprocess.STDOUT, cwd=ROOT)
    if rc != 0:
        raise SetError(f"{d['tool']} failed (exit {rc}): see {log}")
    print(f"ran {d['tool']}", file=sys.stderr)
    return False


def set_names():
    return sorted(n for n in os.listdir(SETS) if os.path.isfile(os.path.join(SETS, n, "expected.yaml")))


DOC_HEAD = """# Reproducing the seed papers

Generated by `tools/repro.py {command}`; do not edit by hand. Each section
is one set of `configs/repro/` (its `expected.yaml` holds the paper's
figures and where in the paper they are), run with `tools/repro.py run SET
OUT` (`--quick` for the quick size; the table below says which size and
how long each set took). After a change to the models, regenerate the page
with one command, `tools/repro.py all OUT --jobs 2 --doc
docs/REPRODUCTION.md` (add `--quick` for the quick sizes, about 5 minutes
each), and every figure below is rerun. Verdicts: a value
"matches" within its tolerance or "differs (x R)"; a change or ratio is
"reproduced" when it has the paper's direction and size, "direction only"
when only the direction agrees, otherwise "mixed", "opposite" or "no
effect" (tools/repro.py says exactly how). A "differs" row's note gives the
measured cause.

"""


def write_doc(out, path, command):
    docs = []
    for n in set_names():
        p = os.path.join(out, n, "verdicts.json")
        if os.path.isfile(p):
            with open(p) as f:
                d = json.load(f)
            d["set"] = n
            docs.append(d)
    if not docs:
        raise SetError(f"{out}: no set results (OUT/SET/verdicts.json); run tools/repro.py all {out} first")
    if command.startswith("doc "):
        quick = all(d.get("size") == "quick" for d in docs)
        command += f"` from the results of `tools/repro.py all OUT{' --quick' if quick else ''}"
    parts = [DOC_HEAD.format(command=command)]
    parts.append("| set | size | wall time | verdicts |\n|---|---|---|---|\n")
    for d in docs:
        counts = {}
        for r in d["rows"]:
            k = r["verdict"].split(" (")[0]
            counts[k] = counts.get(k, 0) + 1
        wall = f"{d['wall_seconds']:.0f} s" if d.get("wall_seconds") is not None else "-"
        parts.append(f"| {d.get('set', '')} | {d.get('size') or '-'} | {wall} | "
                     + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())) + " |\n")
    parts.append("\n")
    for d in docs:
        parts.append(table_md(d, heading=f"## {d.get('set', '')}: ") + "\n")
    with open(path, "w") as f:
        f.write("".join(parts).rstrip("\n") + "\n")


def run_all(out, binary, quick, jobs, doc):
    """Runs every set into OUT/SET as its own `repro.py run` process, `jobs`
    at a time; returns 0 when all succeeded."""
    os.makedirs(out, exist_ok=True)
    pending = set_names()
    running = {}
    failed = []
    while pending or running:
        while pending and len(running) < jobs:
            n = pending.pop(0)
            cmd = [sys.executable, os.path.abspath(__file__), "run", n, os.path.join(out, n), "--bin", binary]
            if quick:
                cmd.append("--quick")
            log = open(os.path.join(out, n + ".log"), "w")
            running[n] = (subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT), log, time.time())
            print(f"started {n}", file=sys.stderr)
        time.sleep(0.2)
        for n, (p, log, t0) in list(running.items()):
            if p.poll() is None:
                continue
            log.close()
            del running[n]
            print(f"{n}: {'done' if p.returncode == 0 else 'FAILED'} in {time.time() - t0:.0f} s", file=sys.stderr)
            if p.returncode != 0:
                failed.append(n)
    command = f"all OUT{' --quick' if quick else ''} --jobs {jobs}" + (f" --doc {os.path.relpath(doc, ROOT)}"
                                                                       if doc else "")
    write_doc(out, os.path.join(out, "REPRODUCTION.md"), command)
    if doc:
        write_doc(out, doc, command)
    with open(os.path.join(out, "REPRODUCTION.md")) as f:
        sys.stdout.write(f.read())
    if failed:
        print(f"repro.py: sets failed: {', '.join(failed)} (see OUT/SET.log)", file=sys.stderr)
        return 2
    return 0


def main(argv):
    cmds = {"run": 3, "table": 3, "all": 2, "doc": 3}
    if not argv or argv[0] not in cmds or len(argv) < cmds[argv[0]]:
        print(__doc__.split("Usage:")[1].split("SET is")[0].rstrip(), file=sys.stderr)
        return 2
    cmd = argv[0]
    binary = os.path.join(ROOT, "build", "app", "flashstack")
    sets, partial, only, resume, quick, jobs, doc, driver_args = [], False, None, False, False, 1, None, []
    n = cmds[cmd]
    rest = argv[n:]
    while rest:
        if rest[0] == "--bin" and len(rest) > 1 and cmd in ("run", "all"):
            binary, rest = os.path.abspath(rest[1]), rest[2:]
        elif rest[0] == "--set" and len(rest) > 1 and cmd == "run":
            sets.append(rest[1])
            rest = rest[2:]
        elif rest[0] == "--only" and len(rest) > 1 and cmd == "run":
            only = [x for x in rest[1].split(",") if x]
            rest = rest[2:]
        elif rest[0] == "--resume" and cmd == "run":
            resume, rest = True, rest[1:]
        elif rest[0] == "--driver-arg" and len(rest) > 1 and cmd == "run":
            driver_args.append(rest[1])
            rest = rest[2:]
        elif rest[0] == "--quick" and cmd in ("run", "all"):
            quick, rest = True, rest[1:]
        elif rest[0] == "--partial" and cmd == "table":
            partial, rest = True, rest[1:]
        elif rest[0] == "--jobs" and len(rest) > 1 and cmd == "all":
            try:
                jobs = int(rest[1])
            except ValueError:
                jobs = 0
            if jobs < 1:
                print(f"repro.py: --jobs {rest[1]}: a number >= 1", file=sys.stderr)
                return 2
            rest = rest[2:]
        elif rest[0] == "--doc" and len(rest) > 1 and cmd == "all":
            doc, rest = os.path.abspath(rest[1]), rest[2:]
        else:
            print(f"repro.py: unknown argument {rest[0]}", file=sys.stderr)
            return 2
    try:
        if cmd == "all":
            return run_all(os.path.abspath(argv[1]), binary, quick, jobs, doc)
        if cmd == "doc":
            write_doc(argv[1], argv[2], f"doc OUT {os.path.relpath(os.path.abspath(argv[2]), ROOT)}")
            return 0
        folder, spec = load_set(argv[1])
        out = argv[2]
        wall = None
        if cmd == "run":
            t0 = time.time()
            if driver_args and "driver" not in spec:
                raise SetError("--driver-arg: the set has no driver")
            partial = run_set(folder, spec, out, binary, sets, only, resume, quick, driver_args)
            wall = time.time() - t0
        size = "quick" if quick else "full"
        if cmd == "table":  # keep the size and wall time the run recorded
            try:
                with open(os.path.join(out, "verdicts.json")) as f:
                    old = json.load(f)
                size, wall = old.get("size"), old.get("wall_seconds")
            except (OSError, ValueError):
                size = None
        d = write_verdicts(folder, spec, out, partial, size, wall)
        sys.stdout.write(table_md(d))
    except SetError as e:
        print(f"repro.py: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
