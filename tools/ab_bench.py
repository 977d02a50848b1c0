#!/usr/bin/env python3
"""Interleaved A/B timing of flashstack builds: the before/after figures of
BENCHMARKS.md on a machine whose speed drifts.

    tools/ab_bench.py [--rounds N] NAME=BINARY NAME=BINARY ... -- ARGS...

runs `BINARY ARGS...` for every build, round after round, alternating the
order (A B, then B A, ...) so a drift of the machine's speed falls on every
build alike. ARGS is a flashstack command line: `bench CONFIG [--set ...]`,
or `run CONFIG [--set ...]` (each build then writes its results to a folder
of its own under a temporary directory unless ARGS gives --out). From each
run it reads the setup and run wall times and the host I/Os per
wall-second that flashstack prints, and prints a Markdown table of the
medians with the ranges. Uses only the standard library.

Exit codes: 0 on success; 2 on bad arguments, or when a build fails or
prints no timing line (the message names the build and the command).
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

# `flashstack bench`: "<name>: setup 1.45 s | run 0.020 s wall, ... | 50408 host I/Os per wall-second | ..."
BENCH_RE = re.compile(r"setup ([0-9.]+) s \| run ([0-9.]+) s wall")
# `flashstack run`: "wall time 0.139 s setup (...) + 30.634 s run, ..."
RUN_RE = re.compile(r"wall time ([0-9.]+) s setup .*?\+ ([0-9.]+) s run")
# ... "-> 1002345 host I/Os per wall-second", or on a file system
# "-> 963624 file-system operations per wall-second".
RATE_RE = re.compile(r"([0-9]+) (?:host I/Os|file-system operations) per wall-second")


class UsageError(Exception):
    pass


def parse_builds(specs):
    builds = []
    for spec in specs:
        name, sep, binary = spec.partition("=")
        if not sep or not name or not binary:
            raise UsageError(f"'{spec}' is not NAME=BINARY")
        if any(name == n for n, _ in builds):
            raise UsageError(f"build name '{name}' given twice")
        if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
            raise UsageError(f"{name}: '{binary}' is not an executable file")
        builds.append((name, binary))
    if len(builds) < 2:
        raise UsageError("give at least two builds (NAME=BINARY)")
    return builds


def parse_timing(text):
    """(setup s, run s, host I/Os per wall-second or None), or None."""
    m = BENCH_RE.search(text) or RUN_RE.search(text)
    if not m:
        return None
    rate = RATE_RE.search(text)
    return float(m.group(1)), float(m.group(2)), int(rate.group(1)) if rate else None


def order(builds, round_index):
    return builds if round_index % 2 == 0 else list(reversed(builds))


def spread(values, fmt):
    med = statistics.median(values)
    return f"{fmt(med)} ({fmt(min(values))}–{fmt(max(values))})"


def table(builds, results):
    lines = [
        "| build | runs | setup, median (range) | run wall, median (range) | host I/Os or file-system operations per wall-second, median |",
        "|---|---|---|---|---|",
    ]
    for name, _ in builds:
        rs = results[name]
        setups = [r[0] for r in rs]
        runs = [r[1] for r in rs]
        rates = [r[2] for r in rs if r[2] is not None]
        rate = f"{statistics.median(rates):,.0f}" if rates else "—"
        lines.append(f"| {name} | {len(rs)} | {spread(setups, lambda v: f'{v:.3f} s')} | "
                     f"{spread(runs, lambda v: f'{v:.3f} s')} | {rate} |")
    return "\n".join(lines)


def main(argv):
    if "--" not in argv:
        raise UsageError("separate the builds from the flashstack arguments with --")
    cut = argv.index("--")
    p = argparse.ArgumentParser(prog="ab_bench.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=3, help="runs of each build (default 3)")
    p.add_argument("builds", nargs="+", help="NAME=BINARY")
    args = p.parse_args(argv[:cut])
    fs_args = argv[cut + 1:]
    if args.rounds < 1:
        raise UsageError("--rounds must be at least 1")
    if not fs_args or fs_args[0] not in ("bench", "run"):
        raise UsageError("the flashstack arguments after -- must start with 'bench' or 'run'")
    builds = parse_builds(args.builds)
    results = {name: [] for name, _ in builds}
    with tempfile.TemporaryDirectory(prefix="ab_bench.") as tmp:
        for r in range(args.rounds):
            for name, binary in order(builds, r):
                cmd = [binary, *fs_args]
                if fs_args[0] == "run" and "--out" not in fs_args:
                    cmd += ["--out", os.path.join(tmp, name)]
                p = subprocess.run(cmd, capture_output=True, text=True)
                if p.returncode != 0:
                    tail = (p.stderr or p.stdout).strip().splitlines()[-3:]
                    raise UsageError(f"{name}: '{' '.join(cmd)}' exited with {p.returncode}: " + " / ".join(tail))
                t = parse_timing(p.stdout + "\n" + p.stderr)
                if t is None:
                    raise UsageError(f"{name}: '{' '.join(cmd)}' printed no timing line")
                results[name].append(t)
                print(f"round {r + 1}: {name} setup {t[0]:.3f} s, run {t[1]:.3f} s", file=sys.stderr)
    print(table(builds, results))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except UsageError as e:
        print(f"ab_bench.py: {e}", file=sys.stderr)
        sys.exit(2)
