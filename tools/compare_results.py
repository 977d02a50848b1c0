#!/usr/bin/env python3
"""Compare flashstack result folders: statistics and configuration.

    tools/compare_results.py RUN_A RUN_B [RUN_C ...] [--stats a.b,c.*] [--all]
    tools/compare_results.py --identical DIR_A DIR_B
    tools/compare_results.py --table DIR_A DIR_B --stats a.b,c.*

The first form prints the configuration keys whose values differ between the
runs, then the headline statistics (or those matched by --stats, with * as a
wildcard) side by side with the change relative to the first run. --all lists
every statistic that differs.

--identical compares two trees of result folders (for example the results of
every shipped config before and after a change): each stats.json under DIR_A
must exist under DIR_B and be byte-identical. It prints one line per run
(for a run whose statistics are all identical but whose configuration dump
differs, e.g. after a key moved, the keys that differ) and exits 1 when any
file differs, naming the first differing statistic.

--table prints a markdown table over two such trees: a row per run found
under both, a column per statistic matched by --stats (in the order given),
each cell "A -> B (change)" or just the value when it did not change.

Reads only result files (stats.json); needs nothing beyond Python 3.
"""
import argparse
import fnmatch
import json
import os
import sys

HEADLINE = [
    "workload.iops", "workload.bw", "workload.ops_per_sec", "workload.read.lat", "workload.write.lat",
    "fs.write_amplification", "fs.write_amplification_end_to_end", "fs.cp.count", "fs.fsync.lat_total",
    "ftl.write_amplification", "ftl.gc_copies", "ftl.erases", "flash.die_utilization",
]


def load(folder):
    path = os.path.join(folder, "stats.json") if os.path.isdir(folder) else folder
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        sys.exit(f"compare_results: {path}: {e.strerror}")
    try:
        return raw, json.loads(raw)
    except json.JSONDecodeError as e:
        sys.exit(f"compare_results: {path}:{e.lineno}: not JSON: {e.msg}")


def flat_stats(doc):
    """name -> scalar value (histograms: their mean as name, plus name.p99)."""
    out = {}
    for name, s in doc.get("stats", {}).items():
        if not isinstance(s, dict):
            continue
        if "value" in s and not isinstance(s["value"], dict):
            out[name] = s["value"]
            continue
        h = s.get("value", s)
        if isinstance(h, dict):
            if "mean" in h:
                out[name] = h["mean"]
            if "p99" in h:
                out[f"{name}.p99"] = h["p99"]
    return out


def flat_config(node, prefix=""):
    out = {}
    if isinstance(node, dict):
        for k, v in node.items():
            out.update(flat_config(v, f"{prefix}.{k}" if prefix else k))
    else:
        out[prefix] = node
    return out


def fmt(v):
    if isinstance(v, float):
        return f"{v:.6g}"
    return str(v)


def compare(runs, patterns, show_all):
    docs = [load(r)[1] for r in runs]
    for r, d in zip(runs, docs):
        if d.get("complete", True) is False:
            print(f"INCOMPLETE: {r}: a signal stopped the run; its statistics cover only part of it")
    configs = [flat_config(d.get("config", {})) for d in docs]
    keys = sorted(set().union(*configs))
    diff = [k for k in keys if len({json.dumps(c.get(k)) for c in configs}) > 1]
    print("configuration differences:" if diff else "configuration: identical")
    for k in diff:
        print(f"  {k}: " + " | ".join(fmt(c.get(k, "-")) for c in configs))
    stats = [flat_stats(d) for d in docs]
    names = sorted(set().union(*stats))
    if show_all:
        chosen = [n for n in names if len({json.dumps(s.get(n)) for s in stats}) > 1]
    else:
        pats = patterns or HEADLINE
        chosen = [n for n in names if any(fnmatch.fnmatchcase(n, p) for p in pats)]
    print("statistics:")
    for n in chosen:
        base = stats[0].get(n)
        cells = [fmt(base) if base is not None else "-"]
        for s in stats[1:]:
            v = s.get(n)
            cell = fmt(v) if v is not None else "-"
            if isinstance(base, (int, float)) and isinstance(v, (int, float)) and base != 0:
                cell += f" ({(v - base) / abs(base) * 100:+.1f}%)"
            cells.append(cell)
        print(f"  {n}: " + " | ".join(cells))
    return 0


def identical(dir_a, dir_b):
    failures = 0
    found = 0
    stats_same = 0
    for root, _, files in sorted(os.walk(dir_a)):
        if "stats.json" not in files:
            continue
        found += 1
        rel = os.path.relpath(root, dir_a)
        other = os.path.join(dir_b, rel, "stats.json")
        raw_a, doc_a = load(os.path.join(root, "stats.json"))
        if not os.path.exists(other):
            print(f"MISSING  {rel}")
            failures += 1
            continue
        raw_b, doc_b = load(other)
        if raw_a == raw_b:
            print(f"same     {rel}")
            continue
        failures += 1
        if doc_a.get("stats") == doc_b.get("stats"):
            ca, cb = flat_config(doc_a.get("config", {})), flat_config(doc_b.get("config", {}))
            keys = [k for k in sorted(set(ca) | set(cb)) if ca.get(k) != cb.get(k)]
            stats_same += 1
            print(f"CONFIG   {rel}: every statistic identical; config keys differ: {', '.join(keys) or 'layout'}")
            continue
        sa, sb = flat_stats(doc_a), flat_stats(doc_b)
        first = next((n for n in sorted(set(sa) | set(sb)) if sa.get(n) != sb.get(n)), None)
        if first is None:
            ca, cb = flat_config(doc_a.get("config", {})), flat_config(doc_b.get("config", {}))
            first = next((f"config {k}" for k in sorted(set(ca) | set(cb)) if ca.get(k) != cb.get(k)), "layout")
            print(f"DIFFERS  {rel}: {first}")
        else:
            print(f"DIFFERS  {rel}: {first}: {fmt(sa.get(first))} -> {fmt(sb.get(first))}")
    if found == 0:
        sys.exit(f"compare_results: no stats.json under {dir_a}")
    print(f"{found - failures} of {found} byte-identical; {stats_same} more with identical statistics "
          "and a different configuration dump")
    return 1 if failures else 0


def table(dir_a, dir_b, patterns):
    rows = []
    for root, _, files in sorted(os.walk(dir_a)):
        if "stats.json" not in files:
            continue
        rel = os.path.relpath(root, dir_a)
        other = os.path.join(dir_b, rel, "stats.json")
        if os.path.exists(other):
            rows.append((rel, flat_stats(load(os.path.join(root, "stats.json"))[1]), flat_stats(load(other)[1])))
    if not rows:
        sys.exit(f"compare_results: no run under both {dir_a} and {dir_b}")
    names = []
    for pat in patterns:
        for n in sorted(set().union(*(set(a) | set(b) for _, a, b in rows))):
            if fnmatch.fnmatchcase(n, pat) and n not in names:
                names.append(n)
    print("| run | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for rel, a, b in rows:
        cells = []
        for n in names:
            va, vb = a.get(n), b.get(n)
            if va == vb:
                cells.append(fmt(va) if va is not None else "-")
                continue
            cell = f"{fmt(va) if va is not None else '-'} -> {fmt(vb) if vb is not None else '-'}"
            if isinstance(va, (int, float)) and isinstance(vb, (int, float)) and va != 0:
                cell += f" ({(vb - va) / abs(va) * 100:+.1f}%)"
            cells.append(cell)
        print(f"| {rel} | " + " | ".join(cells) + " |")
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("runs", nargs="+", help="result folders (or stats.json files)")
    p.add_argument("--stats", help="comma-separated statistic names or patterns (* wildcard)")
    p.add_argument("--all", action="store_true", help="every statistic that differs")
    p.add_argument("--identical", action="store_true", help="byte-compare two trees of result folders")
    p.add_argument("--table", action="store_true", help="markdown table of --stats over two trees")
    a = p.parse_args()
    if a.table:
        if len(a.runs) != 2 or not a.stats:
            p.error("--table takes two folders and --stats")
        return table(a.runs[0], a.runs[1], a.stats.split(","))
    if a.identical:
        if len(a.runs) != 2:
            p.error("--identical takes two folders")
        return identical(*a.runs)
    if len(a.runs) < 2:
        p.error("give at least two runs")
    return compare(a.runs, a.stats.split(",") if a.stats else None, a.all)


if __name__ == "__main__":
    sys.exit(main())
