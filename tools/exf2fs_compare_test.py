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
MODES = ["delete", "truncate", "persist", "wal", "fs_tx", "persist_lfs", "fs_tx_lfs"]


def write_run(path, tps, lat_ns, device_bytes, txns=100, trim_bytes=0, pending_blocks=0):
    os.makedirs(path)
    stats = {
        "workload.txns": {"type": "counter", "value": txns},
        "workload.txn_per_s": {"type": "formula", "value": tps},
        "workload.txn.lat": {"type": "histogram", "count": txns, "mean": lat_ns, "p99": 2 * lat_ns},
        "workload.bytes_written_per_txn": {"type": "formula", "value": 8192},
        "workload.fsyncs_per_txn": {"type": "formula", "value": 3},
        "ssd.bytes.write": {"type": "counter", "value": device_bytes * txns},
        "ssd.bytes.trim": {"type": "counter", "value": trim_bytes * txns},
        "fs.discard.pending_blocks": {"type": "formula", "value": pending_blocks},
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
                ex = m.startswith("fs_tx")
                tps = 50.0 * (tx_speedup if ex else 1.0)
                lat = 20e6 / (tx_speedup if ex else 1.0)
                dev = 4096 * (2 if ex else 100)
                # Discards: F2FS 100 KiB per transaction issued plus 100
                # blocks queued at the end (4 KiB per transaction over
                # 100), exF2FS none; mode=lfs: F2FS 200 KiB more written.
                trim = 0 if ex else 100 * 1024
                pending = 0 if ex else 100
                if m == "persist_lfs":
                    dev += 200 * 1024
                write_run(os.path.join(out, f"{m}-{dbs}db"), tps, lat, dev, trim_bytes=trim, pending_blocks=pending)
        doc = os.path.join(out, "doc.md")
        with open(doc, "w") as f:
            f.write("before\n<!-- exf2fs-table begin -->\nold\n<!-- exf2fs-table end -->\nafter\n")
        r = subprocess.run([sys.executable, os.path.join(HERE, "exf2fs_compare.py"), out, "--bin", "/nonexistent",
                            "--dbs", "3,5", "--doc", doc, "--no-micro"], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        t = r.stdout
        # 3 databases: throughput 10x, latency 1/10, device bytes 1/50.
        assert "| 3 | 50.0 | 50.0 | 50.0 | 50.0 | 500.0 | 50.0 | 500.0 | 10.0x |" in t, t
        assert "| 5 | 50.0 | 50.0 | 50.0 | 50.0 | 1500.0 | 50.0 | 1500.0 | 30.0x |" in t, t
        assert "10.0x .. 30.0x (3..5 databases) | reproduced |" in t, t
        assert "| write volume 1/45 | 1/50.0 (device bytes per transaction, 3 databases) | reproduced |" in t, t
        assert "| transaction latency 1/30 | 1/10.0 (mean, 3 databases) | direction reproduced, smaller |" in t, t
        assert "| F2FS, PERSIST | 50.0 | 20.00 / 40.00 | 8.0 KiB | 400.0 KiB | 504.0 KiB | 3.00 | 2.00 | 1.00 |" in t, t
        assert "| F2FS, PERSIST, mode=lfs | 50.0 | 20.00 / 40.00 | 8.0 KiB | 600.0 KiB | 704.0 KiB |" in t, t
        # Discards counted as writes: 504 / 8 KiB.
        assert "| write volume 1/45, discards counted as writes (Linux < 4.19 disk statistics) | 1/63.0 | " \
               "reproduced |" in t, t
        assert "| (both mounted mode=lfs) write volume 1/45 | 1/75.0; with discards 1/88.0 | reproduced |" in t, t
        assert "| (both mounted mode=lfs, as the artifact's scripts) throughput ~24x | 10.0x .. 30.0x |" in t, t
        with open(doc) as f:
            d = f.read()
        assert d.startswith("before\n<!-- exf2fs-table begin -->\n#### Every mode, 3 databases"), d
        assert d.endswith("<!-- exf2fs-table end -->\nafter\n") and "old" not in d, d
        # A slower exF2FS is "not reproduced".
        write_run(os.path.join(out, "slow", "fs_tx-3db"), 10.0, 40e6, 4096)
        write_run(os.path.join(out, "slow", "fs_tx_lfs-3db"), 10.0, 40e6, 4096)
        for m in MODES:
            if not m.startswith("fs_tx"):
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
