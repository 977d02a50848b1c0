#!/usr/bin/env python3
"""Paper reproduction sets: run a seed paper's experiments and print
paper | flashstack | verdict.

A set is a folder under configs/repro/ holding the configs it runs and an
expected.yaml:

  title: ...                      # what the set reproduces
  source: ...                     # the paper, its setup (kernel, machine)
  runs:                           # result folders, each one `flashstack run`
    NAME: {config: FILE, set: {KEY: VALUE, ...}}
  checks:                         # one table row each
    - figure: "Table 1 (fio): node pages visited per fsync"
      paper: 520                  # a number, or a change such as "-31%"
      measure: ...                # see below
      within: 2.0                 # value: a factor; change: percentage points
      note: ...                   # why the size differs, when it does

A measure is either a value of one run,
  {run: NAME, stat: STAT, per: STAT}        (per: optional divisor)
or the relative change from one run to another,
  {change: [FROM, TO], stat: STAT}          (TO / FROM - 1, in percent)
STAT names a stats.json entry ("fs.fsync.calls"), optionally with the field
to read ("fs.fsync.lat_total.mean"; counters and formulas read "value",
a histogram named alone its "mean").

Verdicts. A value: "matches" within the factor `within` of the paper's,
else "differs (x R)". A change: "reproduced" when it has the paper's sign
and lies within `within` percentage points of it, "direction only" when
only the sign agrees, "opposite" or "no effect" (under 1 % either way)
otherwise.

Usage:
  tools/repro.py run SET OUT [--bin BIN] [--set KEY=VALUE ...] [--only RUN,...] [--resume]
  tools/repro.py table SET OUT [--partial]
SET is a folder (configs/repro/seed001) or its name (seed001). `run` runs
every run of the set (with --only, the runs named) into OUT/NAME, replacing
earlier results (with --resume, a run whose OUT/NAME/stats.json exists and
is not marked "complete": false, i.e. cut short by a signal, is kept), and prints the table (partial when runs were left out); `table` prints it from results already in OUT (with --partial,
a row whose runs have no results yet says "not run" instead of failing). Markdown on
stdout, and the same rows in OUT/verdicts.json (which `tools/report.py
--repro OUT` shows); exit code 2 on a bad set file or missing results.
"""
import json
import math
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import debian_python  # noqa: E402

debian_python.require(["yaml"], "python3-yaml")

import yaml  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NO_EFFECT = 1.0  # percent


class SetError(Exception):
    pass


def load_set(arg):
    folder = arg if os.path.isdir(arg) else os.path.join(ROOT, "configs", "repro", arg)
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
    for key in ("title", "runs", "checks"):
        if key not in spec:
            raise SetError(f"{path}: missing '{key}'")
    runs = spec["runs"]
    if not isinstance(runs, dict) or not runs:
        raise SetError(f"{path}: runs: a mapping of run names to {{config, set}}")
    for name, r in runs.items():
        if not isinstance(r, dict) or "config" not in r:
            raise SetError(f"{path}: runs.{name}: needs 'config'")
        if not os.path.isfile(os.path.join(folder, r["config"])):
            raise SetError(f"{path}: runs.{name}.config: no file {r['config']} in {folder}")
        if not isinstance(r.get("set", {}), dict):
            raise SetError(f"{path}: runs.{name}.set: a mapping of keys to values")
    if not isinstance(spec["checks"], list) or not spec["checks"]:
        raise SetError(f"{path}: checks: a list")
    for i, c in enumerate(spec["checks"]):
        where = f"{path}: checks[{i}]"
        if not isinstance(c, dict) or not {"figure", "paper", "measure"} <= set(c):
            raise SetError(f"{where}: needs figure, paper and measure")
        m = c["measure"]
        if not isinstance(m, dict) or "stat" not in m or ("run" in m) == ("change" in m):
            raise SetError(f"{where}.measure: {{run, stat[, per]}} or {{change: [FROM, TO], stat}}")
        named = [m["run"]] if "run" in m else m["change"]
        if not isinstance(named, list) or not all(n in runs for n in named) or len(named) not in (1, 2):
            raise SetError(f"{where}.measure: names a run the set does not have: {named}")
        parse_paper(c["paper"], where, "change" in m)
    return folder, spec


def parse_paper(p, where, is_change):
    """The paper's figure as a float (a change in percent)."""
    if is_change:
        if not (isinstance(p, str) and p.strip().endswith("%")):
            raise SetError(f"{where}.paper: a change is written with %, e.g. -31%")
        try:
            return float(p.strip()[:-1])
        except ValueError:
            raise SetError(f"{where}.paper: not a percentage: {p}")
    if isinstance(p, str) and p.strip().endswith("%"):
        try:
            return float(p.strip()[:-1]) / 100
        except ValueError:
            raise SetError(f"{where}.paper: not a number: {p}")
    if isinstance(p, (int, float)):
        return float(p)
    raise SetError(f"{where}.paper: not a number: {p}")


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


def measure(m, out, where):
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


def fmt_value(v, percent_of_one):
    if math.isnan(v):
        return "n/a"
    if percent_of_one:
        return f"{v * 100:.3g}%"
    return f"{v:.4g}"


def verdict(paper, value, is_change, within):
    if math.isnan(value):
        return "n/a"
    if is_change:
        if abs(value) < NO_EFFECT:
            return "no effect"
        if (value > 0) != (paper > 0):
            return "opposite"
        if within is not None and abs(value - paper) <= within:
            return "reproduced"
        return "direction only"
    if paper == 0 or value <= 0:
        return "matches" if value == paper else "differs"
    r = value / paper
    factor = within if within is not None else 1.0
    if max(r, 1 / r) <= factor:
        return "matches"
    return f"differs (x {r:.2g})"


def rows(folder, spec, out, partial=False):
    """The table's rows: dicts of figure, paper, flashstack, verdict, note."""
    result = []
    for i, c in enumerate(spec["checks"]):
        where = f"checks[{i}] ({c['figure']})"
        m = c["measure"]
        is_change = "change" in m
        paper = parse_paper(c["paper"], where, is_change)
        runs = [m["run"]] if "run" in m else m["change"]
        missing = [r for r in runs if not os.path.isfile(os.path.join(out, r, "stats.json"))]
        if partial and missing:
            result.append({"figure": c["figure"], "paper": str(c["paper"]), "flashstack": "not run",
                           "verdict": "-", "note": ""})
            continue
        value = measure(m, out, where)
        percent_of_one = not is_change and isinstance(c["paper"], str)
        shown_paper = c["paper"] if isinstance(c["paper"], str) else fmt_value(paper, False)
        shown = f"{value:+.1f}%" if is_change and not math.isnan(value) else fmt_value(value, percent_of_one)
        note = " ".join(str(c.get("note", "")).split())
        result.append({"figure": c["figure"], "paper": str(shown_paper), "flashstack": shown,
                       "verdict": verdict(paper, value, is_change, c.get("within")), "note": note})
    return result


def table(folder, spec, out, partial=False):
    lines = [f"**{spec['title']}**", ""]
    if spec.get("source"):
        lines += [str(spec["source"]).strip(), ""]
    lines += ["| figure | paper | flashstack | verdict | note |", "|---|---|---|---|---|"]
    for r in rows(folder, spec, out, partial):
        lines.append(f"| {r['figure']} | {r['paper']} | {r['flashstack']} | {r['verdict']} | {r['note']} |")
    return "\n".join(lines) + "\n"


def write_verdicts(folder, spec, out, partial=False):
    """OUT/verdicts.json: the set's title, source and rows, for tools/report.py --repro."""
    doc = {"title": spec["title"], "source": " ".join(str(spec.get("source", "")).split()),
           "rows": rows(folder, spec, out, partial)}
    with open(os.path.join(out, "verdicts.json"), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


def finished(path):
    """A stats.json of a run that ran to its end (a signal marks it "complete": false)."""
    try:
        with open(path) as f:
            return json.load(f).get("complete", True) is not False
    except (OSError, ValueError):
        return False


def run_set(folder, spec, out, binary, sets, only=None, resume=False):
    if only:
        unknown = sorted(set(only) - set(spec["runs"]))
        if unknown:
            raise SetError(f"--only names runs the set does not have: {', '.join(unknown)} "
                           f"(runs: {', '.join(spec['runs'])})")
    os.makedirs(out, exist_ok=True)
    for name, r in spec["runs"].items():
        if only and name not in only:
            continue
        if resume and finished(os.path.join(out, name, "stats.json")):
            print(f"kept {name}", file=sys.stderr)
            continue
        cmd = [binary, "run", os.path.join(folder, r["config"]), "--noprogress", "--out", os.path.join(out, name)]
        for k, v in (r.get("set") or {}).items():
            cmd += ["--set", f"{k}={v}"]
        for s in sets:
            cmd += ["--set", s]
        log = os.path.join(out, name + ".log")
        with open(log, "w") as f:
            rc = subprocess.call(cmd, stdout=f, stderr=subprocess.STDOUT)
        if rc != 0:
            raise SetError(f"run {name} failed (exit {rc}): see {log}")
        print(f"ran {name}", file=sys.stderr)


def main(argv):
    if len(argv) < 3 or argv[0] not in ("run", "table"):
        print(__doc__.split("Usage:")[1].split("SET is")[0].rstrip(), file=sys.stderr)
        return 2
    cmd, set_arg, out = argv[0], argv[1], argv[2]
    binary = os.path.join(ROOT, "build", "app", "flashstack")
    sets = []
    partial = False
    only = None
    resume = False
    rest = argv[3:]
    while rest:
        if rest[0] == "--bin" and len(rest) > 1 and cmd == "run":
            binary, rest = rest[1], rest[2:]
        elif rest[0] == "--set" and len(rest) > 1 and cmd == "run":
            sets.append(rest[1])
            rest = rest[2:]
        elif rest[0] == "--only" and len(rest) > 1 and cmd == "run":
            only = [n for n in rest[1].split(",") if n]
            rest = rest[2:]
        elif rest[0] == "--resume" and cmd == "run":
            resume, rest = True, rest[1:]
        elif rest[0] == "--partial" and cmd == "table":
            partial, rest = True, rest[1:]
        else:
            print(f"repro.py: unknown argument {rest[0]}", file=sys.stderr)
            return 2
    try:
        folder, spec = load_set(set_arg)
        if cmd == "run":
            run_set(folder, spec, out, binary, sets, only, resume)
            partial = bool(only)
        sys.stdout.write(table(folder, spec, out, partial))
        write_verdicts(folder, spec, out, partial)
    except SetError as e:
        print(f"repro.py: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
