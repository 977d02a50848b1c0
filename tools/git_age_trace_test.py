#!/usr/bin/env python3
"""tools/git_age_trace.py on a small real git repository built here with
git: the trace's working-tree files, loose objects, packs and index against
what git itself wrote and says; a replay of the trace's operations on a
dictionary ends with the repository's tree; the error cases exit 2."""
import os
import random
import struct
import subprocess
import sys
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "git_age_trace.py")
sys.path.insert(0, HERE)
import git_age_trace as gat  # noqa: E402

ENV = dict(os.environ, GIT_AUTHOR_NAME="Ada Tester", GIT_AUTHOR_EMAIL="ada@example.org",
           GIT_COMMITTER_NAME="Ada Tester", GIT_COMMITTER_EMAIL="ada@example.org",
           GIT_AUTHOR_DATE="1700000000 +0100", GIT_COMMITTER_DATE="1700000000 +0100",
           GIT_CONFIG_NOSYSTEM="1", HOME="/nonexistent", LC_ALL="C")


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, *args], check=True, stdout=subprocess.PIPE, env=ENV).stdout


def put(repo, path, data):
    full = os.path.join(repo, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "wb") as f:
        f.write(data)


def commit(repo, msg):
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", msg)
    return git(repo, "rev-parse", "HEAD").decode().strip()


def loose_objects(repo):
    """sha -> (file size, type, content) of every loose object git wrote."""
    out = {}
    objdir = os.path.join(repo, ".git", "objects")
    for d in os.listdir(objdir):
        if len(d) != 2:
            continue
        for f in os.listdir(os.path.join(objdir, d)):
            p = os.path.join(objdir, d, f)
            raw = zlib.decompress(open(p, "rb").read())
            head, content = raw.split(b"\0", 1)
            typ, size = head.split(b" ")
            assert int(size) == len(content)
            out[d + f] = (os.path.getsize(p), typ.decode(), content)
    return out


def index_without_extensions(path):
    """Size of a real .git/index less its extensions, and its entry count (version 2 required)."""
    data = open(path, "rb").read()
    sig, version, n = struct.unpack(">4sII", data[:12])
    assert sig == b"DIRC" and version == 2, (sig, version)
    pos = 12
    for _ in range(n):
        flags = struct.unpack(">H", data[pos + 60:pos + 62])[0]
        name_len = flags & 0xFFF
        pos += (62 + name_len + 8) & ~7
    ext = 0
    while pos + ext < len(data) - 20:
        size = struct.unpack(">I", data[pos + ext + 4:pos + ext + 8])[0]
        ext += 8 + size
    return len(data) - ext, n


def decode(field):
    out = bytearray()
    i = 0
    while i < len(field):
        if field[i] == 0x25:
            out.append(int(field[i + 1:i + 3], 16))
            i += 3
        else:
            out.append(field[i])
            i += 1
    return bytes(out)


def parse(trace):
    """[(commit, [(op, fields...)])] of the trace, checking every line's shape."""
    pulls = []
    lines = open(trace, "rb").read().split(b"\n")
    assert lines[0] == b"# flashstack git-aging trace v1", lines[0]
    assert lines[-1] == b""
    for line in lines[:-1]:
        if line.startswith(b"#"):
            continue
        f = line.split(b" ")
        for x in f:
            assert x and all(b > 0x20 and b != 0x7F for b in x), line
        op = f[0].decode()
        want = {"pull": 3, "mkdir": 2, "rmdir": 2, "write": 3, "append": 3, "unlink": 2, "rename": 3}[op]
        assert len(f) == want, line
        if op == "pull":
            assert int(f[1]) == len(pulls), line
            pulls.append((f[2].decode(), []))
        else:
            fields = [decode(x) for x in f[1:]]
            if op in ("write", "append"):
                fields[1] = int(fields[1])
            pulls[-1][1].append((op, *fields))
    return pulls


class Fs:
    """The trace's operations on a dictionary, strict about what must exist."""

    def __init__(self):
        self.files, self.dirs = {}, {b""}

    def parent_ok(self, p):
        par = p.rsplit(b"/", 1)[0] if b"/" in p else b""
        assert par in self.dirs, p

    def apply(self, op, *a):
        if op == "mkdir":
            self.parent_ok(a[0])
            assert a[0] not in self.dirs and a[0] not in self.files, a
            self.dirs.add(a[0])
        elif op == "rmdir":
            assert a[0] in self.dirs and not any(x.startswith(a[0] + b"/") for x in list(self.files) + list(self.dirs)), a
            self.dirs.remove(a[0])
        elif op == "write":
            self.parent_ok(a[0])
            assert a[0] not in self.dirs
            self.files[a[0]] = a[1]
        elif op == "append":
            self.parent_ok(a[0])
            self.files[a[0]] = self.files.get(a[0], 0) + a[1]
        elif op == "unlink":
            assert a[0] in self.files, a
            del self.files[a[0]]
        elif op == "rename":
            assert a[0] in self.files, a
            self.parent_ok(a[1])
            self.files[a[1]] = self.files.pop(a[0])


def tree_of(repo, commit):
    """path -> size of the work tree git checks out for commit (gitlinks as directories: size None)."""
    out = {}
    for rec in git(repo, "ls-tree", "-r", "-l", "-z", commit).split(b"\0"):
        if not rec:
            continue
        meta, path = rec.split(b"\t", 1)
        mode, typ, _, size = meta.split()
        out[path] = None if typ == b"commit" else int(size)
    return out


def run_tool(*args):
    return subprocess.run([sys.executable, TOOL, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def main():
    rng = random.Random(4)
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "src repo")
        os.makedirs(src)
        git(src, "init", "-q", "-b", "master")
        git(src, "config", "gc.auto", "0")
        commits = []
        put(src, "README", b"hello\n")
        put(src, "a/b/c.txt", b"x" * 5000)
        put(src, "with space.txt", b"spaced out\n")
        put(src, "pct%name", b"percent\n")
        commits.append(commit(src, "first"))
        put(src, "a/b/c.txt", b"y" * 7000)              # modify
        put(src, "a/d/e/f.bin", bytes(rng.randrange(256) for _ in range(3000)))  # nested add
        os.remove(os.path.join(src, "README"))          # delete
        commits.append(commit(src, "second"))
        os.rename(os.path.join(src, "a/d/e/f.bin"), os.path.join(src, "moved.bin"))  # rename
        commits.append(commit(src, "rename; a/d/e left empty"))
        os.chmod(os.path.join(src, "with space.txt"), 0o755)  # mode only
        os.symlink("a/b/c.txt", os.path.join(src, "link"))
        commits.append(commit(src, "mode and symlink"))
        for k in range(120):                            # > 100 objects: the pack path
            put(src, "many/dir%d/file%03d" % (k % 7, k), ("%d\n" % k).encode() * (k + 1))
        commits.append(commit(src, "many files"))
        put(src, "many/dir0/file000", b"changed\n")
        commits.append(commit(src, "small change after the pack"))
        src_objects = loose_objects(src)

        trace = os.path.join(tmp, "out.trace")
        r = run_tool(src, "-o", trace)
        assert r.returncode == 0, r.stderr
        pulls = parse(trace)
        assert [c for c, _ in pulls] == commits
        header = open(trace, "rb").read().split(b"\n")[:3]
        assert header[1] == b"# source: src%20repo" and header[2] == b"# commits: 6", header

        fs = Fs()
        prev = None
        for i, (c, ops) in enumerate(pulls):
            new_objs = git(src, "rev-list", "--objects", c, *(["^" + prev] if prev else [])).split(b"\n")
            new_objs = [x.split(b" ")[0].decode() for x in new_objs if x]
            for op in ops:
                fs.apply(*op)
            writes = {o[1]: o[2] for o in ops if o[0] == "write"}
            # Fetched objects: loose (their sizes are git's own loose files) or one pack.
            loose = {p.decode().replace(".git/objects/", "").replace("/", ""): s for p, s in writes.items()
                     if p.startswith(b".git/objects/") and not p.startswith(b".git/objects/pack/") and
                     len(p) == len(".git/objects/xx/") + 38}
            packs = [p for p in writes if p.startswith(b".git/objects/pack/")]
            if len(new_objs) < 100:
                assert sorted(loose) == sorted(new_objs), (i, sorted(loose), sorted(new_objs))
                assert not packs
                for sha, size in loose.items():
                    real_size, typ, content = src_objects[sha]
                    mine = len(zlib.compress(typ.encode() + b" %d\0" % len(content) + content, 1))
                    assert size == mine, (sha, size, mine)
                    assert size == real_size, ("loose size differs from git's file", sha, size, real_size)
            else:
                assert i == 4 and not loose
                assert len(packs) == 2 and packs[0].endswith(b".pack") and packs[1].endswith(b".idx"), packs
                assert writes[packs[1]] == 8 + 1024 + 28 * len(new_objs) + 40
                content_bytes = sum(len(src_objects[s][2]) for s in new_objs)
                # Each object's zlib stream plus header: larger than nothing, within the raw bytes + overhead.
                assert 12 + 20 + len(new_objs) * 3 < writes[packs[0]] < 12 + 20 + content_bytes + 16 * len(new_objs)
            # The index: the real format's size for commit i's tree (checked against git's own file below).
            tree = tree_of(src, c)
            want_index = 12 + sum((62 + len(p) + 8) & ~7 for p in tree) + 20
            assert writes[b".git/index.lock"] == want_index, (i, writes[b".git/index.lock"], want_index)
            assert ("rename", b".git/index.lock", b".git/index") in ops
            assert ("rename", b".git/refs/heads/master.lock", b".git/refs/heads/master") in ops
            appends = [o for o in ops if o[0] == "append"]
            assert [o[1] for o in appends] == [b".git/logs/refs/heads/master", b".git/logs/HEAD"]
            line = b"%s %s Ada Tester <ada@example.org> 1700000000 +0100\tpull --no-edit -q -s recursive -X theirs " \
                   b"src%%20repo %s: %s\n" % ((prev or "0" * 40).encode(), c.encode(), c.encode(),
                                             b"initial pull" if prev is None else b"Fast-forward")
            assert appends[0][2] == len(line), (appends[0][2], len(line))
            # The working tree equals the commit's.
            work = {p: s for p, s in fs.files.items() if not p.startswith(b".git/")}
            assert work == {p: s for p, s in tree.items() if s is not None}, (i, work, tree)
            if i == 0:
                assert b"with space.txt" in work and b"pct%name" in work
            prev = c
        # Directories: a/d/e and a/d were removed when their last file moved away.
        assert b"a/d/e" not in fs.dirs and b"a/d" not in fs.dirs and b"a/b" in fs.dirs
        ops2 = pulls[2][1]
        assert ("rmdir", b"a/d/e") in ops2 and ("rmdir", b"a/d") in ops2
        assert ops2.index(("unlink", b"a/d/e/f.bin")) < ops2.index(("rmdir", b"a/d/e"))
        # Mode-only change rewrites the file; the symlink is a file of its target's length.
        ops3 = pulls[3][1]
        assert ("unlink", b"with space.txt") in ops3 and ("write", b"with space.txt", 11) in ops3
        assert ("write", b"link", len("a/b/c.txt")) in ops3
        # The escaped names in the raw trace.
        raw = open(trace, "rb").read()
        assert b"write with%20space.txt 11\n" in raw and b"write pct%25name 8\n" in raw

        # The index size against git's real index of the last commit.
        real, entries = index_without_extensions(os.path.join(src, ".git", "index"))
        last_index = [o for o in pulls[-1][1] if o[0] == "write" and o[1] == b".git/index.lock"][0][2]
        assert entries == len(tree_of(src, commits[-1]))
        assert last_index == real, (last_index, real)

        # --pulls and --first-parent; byte-identical reruns.
        r = run_tool(src, "-o", trace + "2", "--pulls", "3", "--first-parent")
        assert r.returncode == 0, r.stderr
        assert [c for c, _ in parse(trace + "2")] == commits[:3]
        r = run_tool(src, "-o", trace + "3")
        assert open(trace, "rb").read() == open(trace + "3", "rb").read()

        # A merge: first-parent pulls the merge commit once, with the branch's objects.
        git(src, "checkout", "-q", "-b", "side", commits[1])
        put(src, "side.txt", b"side\n")
        side = commit(src, "side")
        git(src, "checkout", "-q", "master")
        git(src, "merge", "-q", "--no-edit", "side")
        merge = git(src, "rev-parse", "HEAD").decode().strip()
        r = run_tool(src, "-o", trace + "4", "--first-parent")
        assert r.returncode == 0, r.stderr
        fp = parse(trace + "4")
        assert [c for c, _ in fp] == commits + [merge]
        objs = [o[1] for o in fp[-1][1] if o[0] == "write" and o[1].startswith(b".git/objects/")]
        assert b".git/objects/%s/%s" % (side[:2].encode(), side[2:].encode()) in objs
        assert ("write", b"side.txt", 5) in fp[-1][1]
        r = run_tool(src, "-o", trace + "5")
        all_commits = [c for c, _ in parse(trace + "5")]
        assert len(all_commits) == len(commits) + 2 and side in all_commits and all_commits[-1] == merge

        # Errors: not a repository, no commits, bad flag: exit 2 with a message naming the path.
        plain = os.path.join(tmp, "plain")
        os.makedirs(plain)
        r = run_tool(plain, "-o", os.path.join(tmp, "x"))
        assert r.returncode == 2 and b"not a git repository" in r.stderr, r
        empty = os.path.join(tmp, "empty")
        os.makedirs(empty)
        git(empty, "init", "-q")
        r = run_tool(empty, "-o", os.path.join(tmp, "x"))
        assert r.returncode == 2 and b"no commits" in r.stderr and empty.encode() in r.stderr, r
        r = run_tool(os.path.join(tmp, "missing"), "-o", os.path.join(tmp, "x"))
        assert r.returncode == 2 and b"no such directory" in r.stderr, r
        r = run_tool(src, "-o", os.path.join(tmp, "x"), "--pulls", "-1")
        assert r.returncode == 2, r
        assert not os.path.exists(os.path.join(tmp, "x"))

        # Path escaping round-trips every byte.
        for _ in range(200):
            p = bytes(rng.randrange(1, 256) for _ in range(rng.randrange(1, 30)))
            e = gat.encode_path(p)
            assert all(b > 0x20 and b != 0x7F for b in e) and decode(e) == p
    print("git_age_trace_test: ok")


if __name__ == "__main__":
    main()
