#!/usr/bin/env python3
"""Prints a markdown table comparing result folders of the ParaFS matrix
(tools/parafs_matrix.sh): throughput, flash pages written (host + FTL GC
copies), the file system's cleaning moves, erases, write amplification.
Reads only each folder's stats.json."""
import json
import os
import sys


def main(dirs):
    if not dirs:
        print("usage: parafs_table.py RESULT_DIR...", file=sys.stderr)
        return 2
    rows = []
    for d in dirs:
        with open(os.path.join(d, "stats.json")) as f:
            stats = json.load(f)["stats"]
        g = lambda k: (stats.get(k) or {}).get("value") or 0
        flash_pages = g("ftl.host_writes") + g("ftl.gc_copies")
        rows.append((os.path.basename(d.rstrip("/")), g("workload.ops_per_sec"), flash_pages,
                     g("fs.io.written.gc_data") + g("fs.io.written.gc_node"), g("ftl.gc_copies"), g("ftl.erases"),
                     g("fs.io.pad_blocks")))
    base = rows[0]
    print("| run | ops/s | vs first | flash pages written | FS cleaning moves (4 KiB) | FTL GC copies (pages) "
          "| erases | padding (4 KiB) |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        rel = r[1] / base[1] if base[1] else 0
        print(f"| {r[0]} | {r[1]:.0f} | {rel:.2f}x | {r[2]:.0f} | {r[3]:.0f} | {r[4]:.0f} | {r[5]:.0f} | {r[6]:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
