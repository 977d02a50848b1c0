#!/usr/bin/env python3
"""Write the project's synthetic example traces (traces/examples/).

    tools/gen_example_traces.py [--out DIR]      write the traces into DIR
    tools/gen_example_traces.py --check [--out DIR]

The traces are invented, not recordings: each is drawn from a small model of
a workload with a fixed seed, so every run writes the same bytes.

  server.msr.csv        MSR Cambridge CSV: an enterprise server's disk 0
                        (13.6 GB; a hot region, sequential log streams and
                        random I/O, write-dominated, bursty) and a few
                        requests to its disk 1
  tpcc.mqsim.trace      MQSim (DiskSim ASCII, ns): a TPC-C-like OLTP load on
                        16 devices of 200 GB (random 8 KiB pages, read-heavy;
                        device 15 holds the sequential redo log)
  app_session.mobigen   MobiGen syscall trace: an Android feed-reader app's
                        session (startup, feed syncs in SQLite transactions
                        with a rollback journal, an image cache, preferences
                        rewrites, a log file), six threads

--check regenerates the traces in memory and compares them with the files in
DIR: it prints the files that differ or are missing and exits 1 if any do.
The default DIR is traces/examples beside this tool's folder.

Only integer arithmetic is used (a SplitMix64 generator, no floating point),
so the output does not depend on the Python version or the platform.
Needs nothing beyond Python 3.
"""
import argparse
import os
import sys

MASK = (1 << 64) - 1
KIB = 1024
MIB = 1024 * 1024
TOOL = "tools/gen_example_traces.py"


class Rng:
    """SplitMix64: a small generator whose sequence is fixed by its seed."""

    def __init__(self, seed):
        self.state = seed & MASK

    def next64(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def below(self, n):
        """An integer in [0, n)."""
        return self.next64() % n

    def between(self, lo, hi):
        """An integer in [lo, hi]."""
        return lo + self.below(hi - lo + 1)

    def chance(self, percent):
        return self.below(100) < percent

    def weighted(self, table):
        """A value from [(weight, value), ...], in proportion to the weights."""
        r = self.below(sum(w for w, _ in table))
        for w, v in table:
            if r < w:
                return v
            r -= w
        raise AssertionError("unreachable")


def header(fmt, what):
    return [
        f"# Synthetic {fmt} trace: {what}.",
        f"# Invented values, not a recording. Written by {TOOL}; regenerate with that tool, do not edit.",
    ]


# --- MSR Cambridge -----------------------------------------------------------

MSR_START = 133485408000000000  # FILETIME (100 ns ticks since 1601) of 2024-01-01 00:00 UTC
MSR_HOST = "app"
MSR_DISK0_BYTES = 13600 * 1000 * 1000  # 13.6 GB
MSR_DISK1_BYTES = 4000 * 1000 * 1000
MSR_DISK0_REQUESTS = 3000
MSR_HOT_START = 2 * 1024 * MIB
MSR_HOT_BYTES = 512 * MIB
MSR_STREAMS = [  # (start, length) of the sequential log extents
    (8 * 1024 * MIB, 256 * MIB),
    (11 * 1024 * MIB, 512 * MIB),
    (12 * 1024 * MIB + 512 * MIB, 128 * MIB),
]
MSR_SIZES = [(55, 4 * KIB), (18, 8 * KIB), (10, 16 * KIB), (7, 32 * KIB), (5, 64 * KIB), (5, 0)]


def msr_size(rng):
    size = rng.weighted(MSR_SIZES)
    if size == 0:  # a small, sector-aligned request
        size = rng.weighted([(2, 512), (2, 1024), (1, 2048)])
    return size


def msr_place(rng, size, capacity, lo=0, hi=None):
    """An offset for `size` bytes in [lo, hi): 4 KiB-aligned, 512-aligned for small requests."""
    hi = capacity if hi is None else hi
    align = 4 * KIB if size >= 4 * KIB else 512
    return lo + rng.below((hi - lo - size) // align + 1) * align


def gen_msr():
    rng = Rng(0x4D5352)  # "MSR"
    stream_pos = [0] * len(MSR_STREAMS)
    lines = header("MSR Cambridge", "an enterprise server's disks 0 and 1, about 2 minutes") + [
        "# Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime"
    ]
    t = MSR_START
    disk0 = 0
    while disk0 < MSR_DISK0_REQUESTS:
        burst = rng.between(*rng.weighted([(40, (1, 8)), (45, (9, 40)), (15, (41, 120))]))
        for _ in range(burst):
            if disk0 == MSR_DISK0_REQUESTS:
                break
            t += rng.between(20, 1500) * 10  # 20 us .. 1.5 ms apart within a burst
            if rng.chance(8):
                size = rng.weighted([(3, 4 * KIB), (1, 8 * KIB)])
                disk, write = 1, rng.chance(40)
                offset = msr_place(rng, size, MSR_DISK1_BYTES)
            else:
                disk0 += 1
                disk = 0
                kind = rng.weighted([(45, "hot"), (25, "seq"), (30, "random")])
                if kind == "hot":
                    # Metadata and index pages: most of the traffic to the first eighth.
                    size = rng.weighted([(70, 4 * KIB), (25, 8 * KIB), (5, 16 * KIB)])
                    span = MSR_HOT_BYTES // 8 if rng.chance(80) else MSR_HOT_BYTES
                    offset = msr_place(rng, size, 0, MSR_HOT_START, MSR_HOT_START + span)
                    write = rng.chance(75)
                elif kind == "seq":
                    s = rng.weighted([(5, 0), (3, 1), (2, 2)])
                    start, length = MSR_STREAMS[s]
                    size = rng.weighted([(30, 8 * KIB), (30, 16 * KIB), (25, 32 * KIB), (15, 64 * KIB)])
                    if stream_pos[s] + size > length:
                        stream_pos[s] = 0
                    offset = start + stream_pos[s]
                    stream_pos[s] += size
                    write = rng.chance(95)
                else:
                    size = msr_size(rng)
                    offset = msr_place(rng, size, MSR_DISK0_BYTES)
                    write = rng.chance(45)
            response = rng.between(300, 6000) if write else rng.between(800, 20000)
            op = "Write" if write else "Read"
            lines.append(f"{t},{MSR_HOST},{disk},{op},{offset},{size},{response}")
        t += rng.between(50, 2200) * 10000  # 50 ms .. 2.2 s of quiet between bursts
    return lines


# --- MQSim / DiskSim ---------------------------------------------------------

MQ_REQUESTS = 5000
MQ_DEVICES = 16
MQ_LOG_DEVICE = 15
MQ_DEVICE_SECTORS = 200 * 1000 * 1000 * 1000 // 512  # 200 GB
MQ_PAGE_SECTORS = 16  # 8 KiB database pages


def gen_mqsim():
    rng = Rng(0x5450434343)  # "TPCC"
    lines = header("MQSim (DiskSim ASCII, ns)", "TPC-C-like OLTP on 16 devices of 200 GB, about 136 ms") + [
        "# arrival_ns device start_sector sector_count type(1=read,0=write)"
    ]
    pages = MQ_DEVICE_SECTORS // MQ_PAGE_SECTORS
    hot_pages = pages // 5
    log_pos = rng.below(MQ_DEVICE_SECTORS // 2)
    t = 1000000
    for _ in range(MQ_REQUESTS):
        t += rng.below(54400)  # 27.2 us apart on average
        if rng.chance(8):
            # Redo log: sequential appends of 0.5-16 KiB.
            dev = MQ_LOG_DEVICE
            sectors = rng.weighted([(10, 1), (15, 4), (35, 8), (30, 16), (10, 32)])
            lba = log_pos
            log_pos += sectors
            typ = 0
        else:
            dev = rng.below(MQ_DEVICES - 1)
            # Skewed access: 70 % of the pages touched lie in the hottest fifth.
            page = rng.below(hot_pages) if rng.chance(70) else rng.below(pages)
            lba = page * MQ_PAGE_SECTORS
            if rng.chance(3):
                sectors = rng.weighted([(2, 32), (1, 64)])  # a short scan
                lba = min(lba, MQ_DEVICE_SECTORS - sectors)
                typ = 1
            else:
                sectors = MQ_PAGE_SECTORS
                typ = 1 if rng.chance(65) else 0
        lines.append(f"{t} {dev} {lba} {sectors} {typ}")
    return lines


# --- MobiGen -----------------------------------------------------------------

APP = "com.example.feedreader"
DATA = f"/data/data/{APP}"
DB = f"{DATA}/databases/feed.db"
JOURNAL = DB + "-journal"
PREFS = f"{DATA}/shared_prefs/settings.xml"
PREFS_BAK = PREFS + ".bak"
LOG = f"{DATA}/files/events.log"
APK = f"/data/app/{APP}-1.apk"
APK_BYTES = 6 * MIB
FONT = "/system/fonts/Roboto-Regular.ttf"
FRAMEWORK = "/system/framework/framework-res.apk"
DB_PAGE = 4096
JOURNAL_HEADER = 512
SESSION_US = 60 * 1000 * 1000

T_MAIN, T_SYNC, T_QUERY, T_IMAGES, T_PREFS, T_TRIM = 0, 1, 2, 3, 4, 5
FD_BASE = {T_MAIN: 30, T_SYNC: 50, T_QUERY: 70, T_IMAGES: 90, T_PREFS: 110, T_TRIM: 130}


class Thread:
    """One traced thread: its lines, its clock (us) and its descriptors.

    Descriptors are process-wide in a real trace; each thread here draws its
    own from a separate range (lowest free first) so that a timed replay,
    where one thread may run late, never sees two threads race for a number.
    """

    def __init__(self, tid, rng):
        self.tid = tid
        self.rng = rng
        self.t = 0
        self.lines = []
        self.free = []
        self.next_fd = FD_BASE[tid]

    def call(self, text, gap=(40, 400)):
        self.t += self.rng.between(*gap)
        self.lines.append((self.t, f"{self.tid} {self.t} {text}"))

    def open(self, path, flags):
        fd = min(self.free) if self.free else self.next_fd
        if self.free:
            self.free.remove(fd)
        else:
            self.next_fd += 1
        self.call(f'open "{path}" {flags} {fd}')
        return fd

    def close(self, fd, gap=(40, 400)):
        self.call(f"close {fd} 0", gap)
        self.free.append(fd)


class App:
    """The state the threads share, with the time each change took effect."""

    def __init__(self):
        self.db_pages = 0
        self.db_grown = []  # (us, pages) after each commit
        self.images = []  # (us the file was closed, name, bytes)
        self.next_image = 0

    def db_pages_at(self, t):
        pages = 0
        for when, n in self.db_grown:
            if when <= t:
                pages = n
        return pages


def sqlite_transaction(th, app, db_fd, new_pages, touched_pages):
    """A rollback-journal commit: journal the old pages, write the new, delete the journal.

    A gap after an fsync stands for the time the fsync took (the trace times
    when calls start).
    """
    old = sorted({th.rng.below(app.db_pages) for _ in range(touched_pages)}) if app.db_pages else []
    fd = th.open(JOURNAL, "O_RDWR|O_CREAT|O_LARGEFILE")
    th.call(f"fstat64 {fd} 0")
    th.call(f"pwrite {fd} 0 {JOURNAL_HEADER}")
    off = JOURNAL_HEADER
    for _ in old:  # page number, page image, checksum
        th.call(f"pwrite {fd} {off} 4", gap=(10, 40))
        th.call(f"pwrite {fd} {off + 4} {DB_PAGE}", gap=(10, 40))
        th.call(f"pwrite {fd} {off + 4 + DB_PAGE} 4", gap=(10, 40))
        off += DB_PAGE + 8
    th.call(f"fsync {fd} 0", gap=(50, 300))
    th.call(f"pwrite {fd} 0 {JOURNAL_HEADER}", gap=(1500, 5500))  # the header, with the record count
    th.call(f"fsync {fd} 0", gap=(50, 300))
    pages = old + list(range(app.db_pages, app.db_pages + new_pages))
    for i, p in enumerate(pages):
        th.call(f"pwrite {db_fd} {p * DB_PAGE} {DB_PAGE}", gap=(1500, 5500) if i == 0 else (15, 60))
    th.call(f"fsync {db_fd} 0", gap=(50, 300))
    th.close(fd, gap=(1500, 5500))
    th.call(f'unlink "{JOURNAL}" 0', gap=(50, 400))
    app.db_pages += new_pages
    app.db_grown.append((th.t, app.db_pages))


def gen_mobigen():
    rng = Rng(0x4D4F4249)  # "MOBI"
    app = App()
    threads = {tid: Thread(tid, rng) for tid in FD_BASE}

    # Main thread: startup, then resources and fonts as screens are drawn.
    m = threads[T_MAIN]
    m.call(f'stat64 "{FRAMEWORK}" 0', gap=(0, 0))
    m.call(f'stat64 "{APK}" 0')
    m.call(f'access "{DATA}/files/events.log" 0')
    apk = m.open(APK, "O_RDONLY|O_LARGEFILE")
    m.call(f"fstat64 {apk} 0")
    m.call(f"pread {apk} {APK_BYTES - 22} 22")  # the zip's end-of-directory record
    m.call(f"pread {apk} {APK_BYTES - 64 * KIB} {64 * KIB}")
    prefs = m.open(PREFS, "O_RDONLY|O_LARGEFILE")
    m.call(f"fstat64 {prefs} 0")
    m.call(f"read {prefs} 2304")
    m.call(f"read {prefs} 0")
    m.close(prefs)
    font = m.open(FONT, "O_RDONLY|O_LARGEFILE")
    m.call(f"fstat64 {font} 0")
    for _ in range(6):
        m.call(f"read {font} 8192", gap=(20, 80))
    m.close(font)
    while m.t < SESSION_US - 1500000:
        m.t += rng.between(300000, 1500000)  # a screen change
        for _ in range(rng.between(2, 10)):
            offset = rng.below((APK_BYTES - 64 * KIB) // 512) * 512
            m.call(f"pread {apk} {offset} {rng.weighted([(3, 4096), (2, 16384), (1, 65536)])}")
        if rng.chance(30):
            m.call(f'stat64 "{APK}" 0')

    # Sync worker: opens the database, creates the schema, then fetches the
    # feed every few seconds: one transaction of new items and some images.
    s = threads[T_SYNC]
    s.t = 180000
    s.call(f'stat64 "{DATA}/databases" 0')
    db = s.open(DB, "O_RDWR|O_CREAT|O_LARGEFILE")
    s.call(f"fstat64 {db} 0")
    sqlite_transaction(s, app, db, new_pages=8, touched_pages=0)
    while s.t < SESSION_US - 4000000:
        s.t += rng.between(2500000, 6000000)
        images = rng.between(1, 5)
        for _ in range(images):
            name = f"{DATA}/cache/img_{app.next_image:04d}.jpg"
            app.next_image += 1
            size = rng.between(6, 120) * KIB
            fd = s.open(name, "O_WRONLY|O_CREAT|O_TRUNC|O_LARGEFILE")
            left = size
            while left:
                n = min(left, 16 * KIB)
                s.call(f"write {fd} {n}", gap=(200, 3000))  # as the download arrives
                left -= n
            s.close(fd)
            app.images.append((s.t, name, size))
        sqlite_transaction(s, app, db, new_pages=rng.between(1, 6), touched_pages=rng.between(1, 4))
    s.close(db)

    # Query thread: a read-only connection that loads lists from the database.
    q = threads[T_QUERY]
    q.t = 900000
    rdb = q.open(DB, "O_RDONLY|O_LARGEFILE")
    q.call(f"fstat64 {rdb} 0")
    while q.t < SESSION_US - 1000000:
        q.t += rng.between(200000, 1200000)
        pages = app.db_pages_at(q.t - 5000)
        if pages == 0:
            continue
        q.call(f"fstat64 {rdb} 0")
        q.call(f"pread {rdb} 0 100", gap=(20, 60))
        for _ in range(rng.between(3, 20)):
            q.call(f"pread {rdb} {rng.below(pages) * DB_PAGE} {DB_PAGE}", gap=(15, 120))
    q.close(rdb)

    # Image loader: shows cached images some time after they were written.
    g = threads[T_IMAGES]
    g.t = 1200000
    while g.t < SESSION_US - 2000000:  # done before the cache trimmer starts
        g.t += rng.between(150000, 900000)
        ready = [i for i in app.images if i[0] + 20000 <= g.t]
        if not ready:
            continue
        _, name, size = ready[-1] if rng.chance(60) else ready[rng.below(len(ready))]
        g.call(f'stat64 "{name}" 0')
        fd = g.open(name, "O_RDONLY|O_LARGEFILE")
        g.call(f"fstat64 {fd} 0")
        left = size
        while left:
            n = min(left, 16 * KIB)
            g.call(f"read {fd} {n}", gap=(20, 120))
            left -= n
        g.close(fd)

    # Preferences and event log: appends with an occasional fdatasync, and
    # settings rewritten by writing a backup, the new file, then dropping
    # the backup.
    p = threads[T_PREFS]
    p.t = 600000
    log = p.open(LOG, "O_WRONLY|O_CREAT|O_APPEND|O_LARGEFILE")
    n = 0
    while p.t < SESSION_US - 500000:
        p.t += rng.between(80000, 700000)
        p.call(f"write {log} {rng.between(60, 400)}")
        n += 1
        if n % 8 == 0:
            p.call(f"fdatasync {log} 0", gap=(30, 100))
        if rng.chance(6):
            bak = p.open(PREFS_BAK, "O_WRONLY|O_CREAT|O_TRUNC|O_LARGEFILE")
            p.call(f"write {bak} 2304")
            p.close(bak)
            fd = p.open(PREFS, "O_WRONLY|O_CREAT|O_TRUNC|O_LARGEFILE")
            p.call(f"write {fd} {rng.between(2200, 2600)}")
            p.call(f"fsync {fd} 0", gap=(50, 200))
            p.close(fd)
            p.call(f'unlink "{PREFS_BAK}" 0', gap=(100, 500))
    p.call(f"fsync {log} 0")
    p.close(log)

    # Cache trimmer: near the end, deletes the oldest third of the images.
    c = threads[T_TRIM]
    c.t = SESSION_US - 900000
    c.call(f'stat64 "{DATA}/cache" 0')
    for t, name, _ in app.images[: len(app.images) // 3]:
        if t + 20000 <= c.t:
            c.call(f'stat64 "{name}" 0')
            c.call(f'unlink "{name}" 0', gap=(20, 100))

    out = []
    for tid in sorted(threads):  # MobiGen groups lines by thread, in time order
        out += [text for _, text in threads[tid].lines]
    return out


TRACES = [
    ("server.msr.csv", gen_msr),
    ("tpcc.mqsim.trace", gen_mqsim),
    ("app_session.mobigen", gen_mobigen),
]


def render(gen):
    return ("\n".join(gen()) + "\n").encode("ascii")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description="Write (or --check) the synthetic example traces.")
    ap.add_argument("--out", default=os.path.normpath(os.path.join(here, "..", "traces", "examples")),
                    help="folder of the traces")
    ap.add_argument("--check", action="store_true", help="compare with the files in --out instead of writing")
    args = ap.parse_args()
    stale = []
    for name, gen in TRACES:
        data = render(gen)
        path = os.path.join(args.out, name)
        if args.check:
            try:
                with open(path, "rb") as f:
                    same = f.read() == data
            except OSError:
                same = False
            if not same:
                stale.append(path)
        else:
            os.makedirs(args.out, exist_ok=True)
            with open(path, "wb") as f:
                f.write(data)
    if stale:
        for path in stale:
            print(f"{path}: missing or differs from what {TOOL} writes; run {TOOL}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
