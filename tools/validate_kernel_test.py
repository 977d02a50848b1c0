#!/usr/bin/env python3
"""tools/validate_kernel.py without the real kernel: why it skips (not root,
no f2fs in the kernel) with exit 0, its MobiGen and git-aging replays on a
plain directory (the calls the model replays too), the one-thread rewrite
of a trace, the shipped validation traces against --make-traces, and its
model side (--model-only) on the sequential-write trace with the real
simulator.

  validate_kernel_test.py BIN"""
import io
import os
import subprocess
import sys
import tempfile
from contextlib import redirect_stdout

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import validate_kernel as vk  # noqa: E402

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def test_skips(tmp):
    real_euid = os.geteuid
    try:
        os.geteuid = lambda: 1000
        check("not root" in vk.real_unavailable("ext4"), "a non-root user is told it needs root")
        out = io.StringIO()
        with redirect_stdout(out):
            rc = vk.main(["traces/validation/seqwrite.mobigen"])
        check(rc == 0 and out.getvalue().startswith("skipped: not root"), f"skip exits 0: {rc} {out.getvalue()!r}")
    finally:
        os.geteuid = real_euid
    if os.geteuid() == 0:
        fake = os.path.join(tmp, "filesystems")
        with open(fake, "w") as f:
            f.write("nodev\tproc\n\text4\n")
        why = vk.real_unavailable("f2fs", fake)
        check(why is not None and "no f2fs" in why, f"a kernel without f2fs is named: {why}")


def test_mobigen_replay(tmp):
    trace = os.path.join(tmp, "t.mobigen")
    with open(trace, "w") as f:
        f.write('0 0 open "/data/app.apk" O_RDONLY 5\n'
                "0 10 pread 5 1000 3000\n"
                "0 20 close 5 0\n"
                "0 30 open data/data O_RDWR|O_CREAT 3\n"
                "0 40 write 3 5000\n"
                "0 50 fsync 3 0\n"
                "0 60 close 3 0\n"
                "0 70 write 7 100\n"
                '0 80 unlink "/mobigen/temp_0_0.dat" 0\n')
    root = os.path.join(tmp, "root")
    os.makedirs(root)
    issued = os.path.join(tmp, "issued.mobigen")
    failed, late = vk.replay_mobigen(trace, root, True, issued)
    check(failed == 0, f"every call succeeds ({failed} failed)")
    check(os.path.getsize(os.path.join(root, "data/app.apk")) == 4000, "prepare sizes a file to what is read")
    check(not os.path.exists(os.path.join(root, "mobigen/temp_0_0.dat")), "the unlink ran")
    check(os.path.getsize(os.path.join(root, "mobigen/implicit_0_7_0.dat")) == 100,
          "a descriptor used without an open gets an implicit file")
    times = [int(line.split()[1]) for line in open(issued)]
    check(len(times) == 9 and times == sorted(times) and times[-1] >= 80, f"issued times: {times}")


def test_one_thread(tmp):
    src, dst = os.path.join(tmp, "mt.mobigen"), os.path.join(tmp, "ot.mobigen")
    with open(src, "w") as f:
        f.write('1 20 stat64 "/b" 0\n0 10 stat64 "/a" 0\n1 5 stat64 "/c" 0\n')
    vk.one_thread(src, dst, 6_000_000)
    lines = open(dst).read().splitlines()
    check(lines == ['0 5 stat64 "/c" 0', '0 10 stat64 "/a" 0', '0 20 stat64 "/b" 0', '0 6000020 stat64 "/" 0'],
          f"one thread in time order, then the quiesce line: {lines}")


def test_aging_replay(tmp):
    trace = os.path.join(tmp, "a.trace")
    with open(trace, "w") as f:
        f.write("# flashstack git-aging trace v1\npull 0 c0\nmkdir src\nwrite src/a%20b 70000\n"
                "write x.lock 10\npull 1 c1\nappend src/a%20b 5\nrename x.lock x\nmkdir d\nrmdir d\n")
    root = os.path.join(tmp, "aroot")
    os.makedirs(root)
    vk.replay_aging(trace, root, 1000, drop=False)
    check(os.path.getsize(os.path.join(root, "src/a b")) == 70005, "write then append, with an escaped name")
    check(os.path.getsize(os.path.join(root, "x")) == 10 and not os.path.exists(os.path.join(root, "d")),
          "rename and rmdir")


def test_shipped_traces(tmp):
    out = os.path.join(tmp, "traces")
    vk.make_traces(out)
    for name in sorted(os.listdir(out)):
        shipped = os.path.join(ROOT, "traces/validation", name)
        check(os.path.exists(shipped) and open(shipped).read() == open(os.path.join(out, name)).read(),
              f"traces/validation/{name} is what --make-traces writes")


def test_model_side(binary):
    r = subprocess.run([sys.executable, os.path.join(HERE, "validate_kernel.py"), "--model-only", "--no-prepare",
                        "--flashstack", binary, os.path.join(ROOT, "traces/validation/seqwrite.mobigen")],
                       capture_output=True, text=True)
    check(r.returncode == 0, f"--model-only exits 0: {r.stderr[-500:]}")
    rows = {}
    for line in r.stdout.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 4 and cells[1] not in ("model", "---:"):
            rows[cells[0]] = cells[1:]
    written = int(rows.get("bytes written", ["0"])[0].replace(",", ""))
    requests = int(rows.get("write requests", ["0"])[0].replace(",", ""))
    check(64 << 20 <= written < 68 << 20, f"64 MiB of data plus a little metadata: {written}")
    check(128 <= requests < 140, f"512 KiB requests (max_io): {requests}")
    check(rows.get("journal commits", ["0"])[0] == "1", f"one commit: {rows.get('journal commits')}")
    check(rows.get("bytes written", ["", "x"])[1] == "n/a", "no real column")


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build/app/flashstack")
    with tempfile.TemporaryDirectory() as tmp:
        test_skips(tmp)
        test_mobigen_replay(tmp)
        test_one_thread(tmp)
        test_aging_replay(tmp)
        test_shipped_traces(tmp)
    test_model_side(binary)
    print("FAILED" if failures else "OK")
    return 1 if failures else 0


if __name__ == "__main__":
    os.chdir(ROOT)
    sys.exit(main())
