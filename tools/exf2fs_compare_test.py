#!/usr/bin/env python3
"""tools/exf2fs_compare.py on synthetic result folders: the per-transaction
figures, the ratios against PERSIST, the verdicts and the --doc insertion
(complete runs are reused, never rerun: --bin points at nothing)."""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
MODES = ["delete", "truncate", "persist", "wal", "fs_tx"]


def write_run(path, tps, lat_ns, device_bytes, txns=100):
    os.makedirs(path)
    stats = {
        "workload.txns": {"type": "counter", "value": txns},
        "workload.txn_per_s": {"type": "formula", "value": tps},
        "workload.txn.lat": {"type": "histogram", "count": txns, "mean": lat_ns, "p99": 2 * lat_ns},
        "workload.bytes_written_per_txn": {"type": "formula", "value": 8192},
        "workload.fsyncs_per_txn": {"type": "formula", "value": 3},
        "ssd.bytes.write": {"type": "counter", "value": device_bytes * txns},
        "ssd.ops.flush": {"type": "counter", "value": 2 * txns},
        "fs.cp.count": {"type": "counter", "value": txns},
    }
    with open(os.path.join(path, "stats.json"), "w") as f:
        json.dump({"stats": stats}, f)
    with open(os.path.join(path, "run_info.json"), "w") as f:
        json.dump({"complete": True}, f)


def main():
    with tempfile.TemporaryDirectory() as out:
        for dbs, tx_speedup in ((3, 10.0), (5, 30.0)):
            for m in MODES:
                tps = 50.0 * (tx_speedup if m == "fs_tx" else 1.0)
                lat = 20e6 / (tx_speedup if m == "fs_tx" else 1.0)
                dev = 4096 * (2 if m == "fs_tx" else 100)
                write_run(os.path.join(out, f"{m}-{dbs}db"), tps, lat, dev)
        doc = os.path.join(out, "doc.md")
        with open(doc, "w") as f:
            f.write("before\n<!-- exf2fs-table begin -->\nold\n<!-- exf2fs-table end -->\nafter\n")
        r = subprocess.run([sys.executable, os.path.join(HERE, "exf2fs_compare.py"), out, "--bin", "/nonexistent",
                            "--dbs", "3,5", "--doc", doc, "--no-micro"], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        t = r.stdout
        # 3 databases: throughput 10x, latency 1/10, device bytes 1/50.
        assert "| 3 | 50.0 | 50.0 | 50.0 | 50.0 | 500.0 | 10.0x |" in t, t
        assert "| 5 | 50.0 | 50.0 | 50.0 | 50.0 | 1500.0 | 30.0x |" in t, t
        assert "10.0x .. 30.0x (3..5 databases) | reproduced |" in t, t
        assert "| write volume 1/45 | 1/50.0 (device bytes per transaction, 3 databases) | reproduced |" in t, t
        assert "| transaction latency 1/30 | 1/10.0 (mean, 3 databases) | direction reproduced, smaller |" in t, t
        assert "| F2FS, PERSIST | 50.0 | 20.00 / 40.00 | 8.0 KiB | 400.0 KiB | 3.00 | 2.00 | 1.00 |" in t, t
        with open(doc) as f:
            d = f.read()
        assert d.startswith("before\n<!-- exf2fs-table begin -->\n#### Every mode, 3 databases"), d
        assert d.endswith("<!-- exf2fs-table end -->\nafter\n") and "old" not in d, d
        # A slower exF2FS is "not reproduced".
        write_run(os.path.join(out, "slow", "fs_tx-3db"), 10.0, 40e6, 4096)
        for m in MODES[:-1]:
            write_run(os.path.join(out, "slow", f"{m}-3db"), 50.0, 20e6, 4096)
        r = subprocess.run([sys.executable, os.path.join(HERE, "exf2fs_compare.py"), os.path.join(out, "slow"),
                            "--bin", "/nonexistent", "--dbs", "3", "--no-micro"], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        assert "0.2x .. 0.2x (3..3 databases) | not reproduced |" in r.stdout, r.stdout
        # Bad --dbs is a clear error.
        r = subprocess.run([sys.executable, os.path.join(HERE, "exf2fs_compare.py"), out, "--dbs", "x"],
                           capture_output=True, text=True)
        assert r.returncode == 2 and "--dbs" in r.stderr, r.stderr
    print("ok")


if __name__ == "__main__":
    main()
