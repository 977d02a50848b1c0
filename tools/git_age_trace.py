#!/usr/bin/env python3
"""Turns the history of a local git repository into a flashstack aging trace.

File-system aging by git history (Conway et al., FAST'17): a target
repository on the file system under test pulls the source's commits one at a
time, oldest first. For pull i this tool writes what the target's file system
experiences when commit i is pulled onto a checkout of commit i-1 (git gc
off):

  .git/objects   the objects new in commit i (`git rev-list --objects i ^i-1`):
                 fewer than 100 (transfer.unpackLimit's default) are loose
                 object files .git/objects/xx/<38 hex>, each the zlib level-1
                 (core.loosecompression's default) stream of
                 "<type> <size>\\0<content>"; otherwise one pack
                 .git/objects/pack/pack-<name>.pack (12-byte header, per
                 object its type/size header and the zlib default-level stream
                 of its content, 20-byte trailer; deltas are not modelled, so
                 packs are larger than git's) and its version-2 .idx
                 (8 + 1024 + 28 per object + 40 bytes).
  .git/FETCH_HEAD, .git/ORIG_HEAD   rewritten.
  working tree   each changed path's old file unlinked and the new one
                 written whole; added paths created (parent directories made);
                 deleted paths unlinked and directories left empty removed.
                 A symlink is a file of its target's length, a submodule
                 (gitlink) an empty directory.
  .git/index     written to .git/index.lock (index format version 2 for the
                 tree of commit i, without extensions) and renamed.
  .git/refs/heads/master   through master.lock and a rename; one reflog line
                 appended to .git/logs/HEAD and .git/logs/refs/heads/master.

Pull 0 is `git init` (the files of .git that git writes there, hooks left
out) and the first pull into it.

Trace format (traces/aging/README.md): a '#' comment header, then one
operation per line, fields separated by one space:
  pull <i> <commit>   mkdir <path>   rmdir <path>   write <path> <bytes>
  append <path> <bytes>   unlink <path>   rename <from> <to>
Paths are relative to the mount root, '/'-separated; bytes <= 0x20, 0x7f and
'%' are written as %XX (upper-case hex).

Exit codes: 0 done, 2 bad input (not a git repository, no commits, bad flag).
"""

import argparse
import hashlib
import os
import subprocess
import sys
import zlib

UNPACK_LIMIT = 100  # transfer.unpackLimit / fetch.unpackLimit default
LOOSE_LEVEL = 1     # core.loosecompression default
PACK_LEVEL = zlib.Z_DEFAULT_COMPRESSION  # pack.compression default (core.compression -1)
BRANCH = "master"
ZERO = "0" * 40

MODE_FILE = (0o100644, 0o100755, 0o100664)
MODE_SYMLINK = 0o120000
MODE_GITLINK = 0o160000

# What `git init` writes that a pull later touches or that takes space; the
# sample hooks are left out.
INIT_CONFIG = (b"[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n"
               b"\tlogallrefupdates = true\n[gc]\n\tauto = 0\n")
INIT_DESCRIPTION = b"Unnamed repository; edit this file 'description' to name the repository.\n"
INIT_EXCLUDE = (b"# git ls-files --others --exclude-from=.git/info/exclude\n"
                b"# Lines that start with '#' are comments.\n"
                b"# For a project mostly in C, the following would be a good set of\n"
                b"# exclude patterns (uncomment them if you want to use them):\n"
                b"# *.[oa]\n# *~\n")


class InputError(Exception):
    pass


def encode_path(p):
    """Trace field of a path (bytes): bytes <= 0x20, 0x7f and '%' as %XX."""
    out = bytearray()
    for b in p:
        if b <= 0x20 or b == 0x7F or b == 0x25:
            out += b"%%%02X" % b
        else:
            out.append(b)
    return bytes(out)


def index_entry_size(path_len):
    """Bytes of one index v2 entry: 62 fixed bytes + the path + 1..8 NULs to a multiple of 8."""
    return (62 + path_len + 8) & ~7


def index_size(entries_bytes):
    return 12 + entries_bytes + 20


def idx_size(n):
    """A version-2 pack index: magic+version, fan-out, per object name+CRC+offset, two checksums."""
    return 8 + 1024 + n * 28 + 40


def pack_object_header_len(size):
    """Bytes of a pack entry's type/size header (4 bits of size, then 7 per byte)."""
    n = 1
    size >>= 4
    while size:
        n += 1
        size >>= 7
    return n


def run_git(repo, *args, check=True):
    env = dict(os.environ)
    env["GIT_CEILING_DIRECTORIES"] = os.path.dirname(os.path.abspath(repo))
    env["LC_ALL"] = "C"
    r = subprocess.run(["git", "-C", repo, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    if check and r.returncode != 0:
        raise RuntimeError("git %s failed: %s" % (" ".join(args), r.stderr.decode(errors="replace").strip()))
    return r


class ObjectStore:
    """Object contents and sizes from one long-running `git cat-file --batch`."""

    def __init__(self, repo):
        env = dict(os.environ)
        env["GIT_CEILING_DIRECTORIES"] = os.path.dirname(os.path.abspath(repo))
        self.proc = subprocess.Popen(["git", "-C", repo, "cat-file", "--batch"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, env=env)
        self.sizes = {}

    def read(self, sha):
        """(type, content) of object sha (hex str)."""
        self.proc.stdin.write(sha.encode() + b"\n")
        self.proc.stdin.flush()
        header = self.proc.stdout.readline()
        parts = header.split()
        if len(parts) != 3:
            raise RuntimeError("git cat-file: unexpected answer for %s: %r" % (sha, header))
        size = int(parts[2])
        data = self.proc.stdout.read(size)
        self.proc.stdout.read(1)  # the newline after the content
        self.sizes[sha] = size
        return parts[1].decode(), data

    def size(self, sha):
        if sha not in self.sizes:
            self.read(sha)
        return self.sizes[sha]

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


class Tree:
    """The target's working tree: files (path -> size), directories (path -> child count)."""

    def __init__(self):
        self.files = {}
        self.dirs = {b"": 0}
        self.index_paths = {}  # index entries (files, symlinks, gitlinks): path -> entry bytes
        self.index_bytes = 0

    @staticmethod
    def parent(p):
        i = p.rfind(b"/")
        return p[:i] if i >= 0 else b""

    def add_index(self, p):
        if p not in self.index_paths:
            e = index_entry_size(len(p))
            self.index_paths[p] = e
            self.index_bytes += e

    def drop_index(self, p):
        e = self.index_paths.pop(p, None)
        if e is not None:
            self.index_bytes -= e


class TraceWriter:
    def __init__(self, out):
        self.out = out
        self.lines = 0

    def op(self, name, *fields):
        parts = [name.encode()] + [f if isinstance(f, bytes) else str(f).encode() for f in fields]
        self.out.write(b" ".join(parts) + b"\n")
        self.lines += 1


class Ager:
    def __init__(self, repo, out, source_name, idents):
        self.idents = idents  # commit -> (author name, email, time, tz) as bytes
        self.repo = repo
        self.w = TraceWriter(out)
        self.store = ObjectStore(repo)
        self.tree = Tree()
        self.source_name = source_name
        self.git_dirs = set()

    # ---- file-system operations on the modelled tree (all paths bytes, relative).

    def mkdirs(self, d):
        """Makes d and its missing parents, top first."""
        if d in self.tree.dirs:
            return
        self.mkdirs(Tree.parent(d))
        self.tree.dirs[d] = 0
        self.tree.dirs[Tree.parent(d)] += 1
        self.w.op("mkdir", encode_path(d))

    def write(self, p, size):
        self.mkdirs(Tree.parent(p))
        if p not in self.tree.files:
            self.tree.dirs[Tree.parent(p)] += 1
        self.tree.files[p] = size
        self.w.op("write", encode_path(p), size)

    def append(self, p, size):
        self.mkdirs(Tree.parent(p))
        if p not in self.tree.files:
            self.tree.dirs[Tree.parent(p)] += 1
            self.tree.files[p] = 0
        self.tree.files[p] += size
        self.w.op("append", encode_path(p), size)

    def unlink(self, p):
        del self.tree.files[p]
        self.tree.dirs[Tree.parent(p)] -= 1
        self.w.op("unlink", encode_path(p))

    def rename(self, a, b):
        size = self.tree.files.pop(a)
        self.tree.dirs[Tree.parent(a)] -= 1
        if b not in self.tree.files:
            self.tree.dirs[Tree.parent(b)] += 1
        self.tree.files[b] = size
        self.w.op("rename", encode_path(a), encode_path(b))

    def rmdir(self, d):
        del self.tree.dirs[d]
        self.tree.dirs[Tree.parent(d)] -= 1
        self.w.op("rmdir", encode_path(d))

    def prune_empty(self, d):
        """Removes d and its parents while they are empty (git's schedule_dir_for_removal)."""
        while d and self.tree.dirs.get(d) == 0:
            self.rmdir(d)
            d = Tree.parent(d)

    # ---- one pull.

    def objects_of(self, commit, parent):
        args = ["rev-list", "--objects", commit] + (["^" + parent] if parent else [])
        r = run_git(self.repo, *args)
        return [line.split(b" ", 1)[0].decode() for line in r.stdout.splitlines() if line]

    def fetch_objects(self, shas):
        if len(shas) < UNPACK_LIMIT:
            for sha in shas:
                typ, data = self.store.read(sha)
                raw = typ.encode() + b" " + str(len(data)).encode() + b"\0" + data
                self.write(b".git/objects/" + sha[:2].encode() + b"/" + sha[2:].encode(),
                           len(zlib.compress(raw, LOOSE_LEVEL)))
            return
        total = 12 + 20
        for sha in shas:
            _, data = self.store.read(sha)
            total += pack_object_header_len(len(data)) + len(zlib.compress(data, PACK_LEVEL))
        name = hashlib.sha1("".join(sorted(shas)).encode()).hexdigest().encode()
        self.write(b".git/objects/pack/pack-" + name + b".pack", total)
        self.write(b".git/objects/pack/pack-" + name + b".idx", idx_size(len(shas)))

    def diff(self, parent, commit):
        """(old_mode, new_mode, path) of every path changed from parent to commit."""
        if parent is None:
            r = run_git(self.repo, "ls-tree", "-r", "-z", "--full-tree", commit)
            out = []
            for rec in r.stdout.split(b"\0"):
                if not rec:
                    continue
                meta, path = rec.split(b"\t", 1)
                mode, _, sha = meta.split(b" ")
                out.append((0, int(mode, 8), None, sha.decode(), path))
            return out
        r = run_git(self.repo, "diff-tree", "-r", "-z", "--no-renames", "--no-commit-id", parent, commit)
        fields = r.stdout.split(b"\0")
        out = []
        i = 0
        while i + 1 < len(fields) and fields[i]:
            meta = fields[i][1:].split(b" ")  # ":old new oldsha newsha status"
            out.append((int(meta[0], 8), int(meta[1], 8), meta[2].decode(), meta[3].decode(), fields[i + 1]))
            i += 2
        return out

    def checkout(self, changes):
        """The working-tree half of the pull: removals first, then creations, in path order (unpack-trees)."""
        creates = []
        for old_mode, new_mode, _, new_sha, path in changes:
            if old_mode:
                if old_mode == MODE_GITLINK:
                    if self.tree.dirs.get(path) == 0:
                        self.rmdir(path)
                    elif path in self.tree.dirs:
                        pass  # the submodule's directory holds other paths: git leaves it
                elif path in self.tree.files:
                    self.unlink(path)
                self.tree.drop_index(path)
                if not new_mode:
                    self.prune_empty(Tree.parent(path))
            if new_mode:
                creates.append((new_mode, new_sha, path))
        for new_mode, new_sha, path in creates:
            self.tree.add_index(path)
            if new_mode == MODE_GITLINK:
                self.mkdirs(path)
            else:
                self.write(path, self.store.size(new_sha))

    def reflog_line(self, old, new, commit, first):
        name, email, when, tz = self.idents[commit]
        msg = (b"pull --no-edit -q -s recursive -X theirs " + self.source_name.encode() + b" " + commit.encode() +
               (b": initial pull" if first else b": Fast-forward"))
        return len(old.encode() + b" " + new.encode() + b" " + name + b" <" + email + b"> " + when + b" " + tz +
                   b"\t" + msg + b"\n")

    def init_repo(self):
        for d in (b".git/objects/info", b".git/objects/pack", b".git/refs/heads", b".git/refs/tags", b".git/info",
                  b".git/branches", b".git/hooks"):
            self.mkdirs(d)
        self.write(b".git/HEAD", len(b"ref: refs/heads/" + BRANCH.encode() + b"\n"))
        self.write(b".git/config", len(INIT_CONFIG))
        self.write(b".git/description", len(INIT_DESCRIPTION))
        self.write(b".git/info/exclude", len(INIT_EXCLUDE))

    def pull(self, i, commit, parent):
        self.w.op("pull", i, commit.encode())
        if parent is None:
            self.init_repo()
        self.fetch_objects(self.objects_of(commit, parent))
        self.write(b".git/FETCH_HEAD",
                   len(commit.encode() + b"\t\t" + b"commit '" + commit.encode() + b"' of " +
                       self.source_name.encode() + b"\n"))
        if parent is not None:
            self.write(b".git/ORIG_HEAD", 41)
        self.checkout(self.diff(parent, commit))
        self.write(b".git/index.lock", index_size(self.tree.index_bytes))
        self.rename(b".git/index.lock", b".git/index")
        ref = b".git/refs/heads/" + BRANCH.encode()
        self.write(ref + b".lock", 41)
        line = self.reflog_line(parent or ZERO, commit, commit, parent is None)
        self.append(b".git/logs/refs/heads/" + BRANCH.encode(), line)
        self.append(b".git/logs/HEAD", line)
        self.rename(ref + b".lock", ref)


def idents_of(repo, first_parent):
    """commit -> (author name, email, epoch time, tz) of every commit, from one `git log`."""
    args = ["log"] + (["--first-parent"] if first_parent else []) + ["--format=%H%x00%an%x00%ae%x00%at%x00%ai%x00",
                                                                      "HEAD"]
    out = {}
    for rec in run_git(repo, *args).stdout.split(b"\0\n"):
        if not rec:
            continue
        sha, name, email, when, iso = rec.lstrip(b"\n").split(b"\0")
        out[sha.decode()] = (name, email, when, iso.split(b" ")[-1])
    return out


def commits_of(repo, first_parent):
    if not os.path.isdir(repo):
        raise InputError("%s: no such directory" % repo)
    r = run_git(repo, "rev-parse", "--git-dir", check=False)
    if r.returncode != 0:
        raise InputError("%s: not a git repository (%s)" % (repo, r.stderr.decode(errors="replace").strip()))
    if run_git(repo, "rev-parse", "--verify", "-q", "HEAD", check=False).returncode != 0:
        raise InputError("%s: the repository has no commits" % repo)
    args = ["rev-list", "--reverse"] + (["--first-parent"] if first_parent else []) + ["HEAD"]
    commits = run_git(repo, *args).stdout.decode().split()
    if not commits:
        raise InputError("%s: the repository has no commits" % repo)
    return commits


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("repo", help="a local git repository (its work tree or .git directory)")
    ap.add_argument("-o", "--out", required=True, help="trace file to write")
    ap.add_argument("--pulls", type=int, default=0, help="pull only the first N commits (0 = all)")
    ap.add_argument("--first-parent", action="store_true", help="follow only the first parent of merges")
    ap.add_argument("--name", default=None, help="source name in the header (default: the repository's folder name)")
    args = ap.parse_args(argv)
    if args.pulls < 0:
        print("git_age_trace: --pulls: must be >= 0, got %d" % args.pulls, file=sys.stderr)
        return 2
    repo = os.path.abspath(args.repo)
    try:
        commits = commits_of(repo, args.first_parent)
    except InputError as e:
        print("git_age_trace: %s" % e, file=sys.stderr)
        return 2
    if args.pulls:
        commits = commits[:args.pulls]
    name = args.name or os.path.basename(repo.rstrip("/")) or "repo"
    if name == ".git":
        name = os.path.basename(os.path.dirname(repo)) or "repo"
    name = encode_path(name.encode()).decode("utf-8", errors="replace")
    tmp = args.out + ".tmp"
    with open(tmp, "wb") as out:
        out.write(b"# flashstack git-aging trace v1\n")
        out.write(("# source: %s\n" % name).encode())
        out.write(("# commits: %d\n" % len(commits)).encode())
        out.write(("# history: git rev-list --reverse%s HEAD\n" % (" --first-parent" if args.first_parent else "")).encode())
        out.write(b"# model: git pull of each commit onto the previous one, gc off; fetched objects loose below "
                  b"100, else one pack without deltas (packs larger than git's); index v2 without extensions\n")
        ager = Ager(repo, out, name, idents_of(repo, args.first_parent))
        prev = None
        for i, c in enumerate(commits):
            ager.pull(i, c, prev)
            prev = c
        ager.store.close()
    os.replace(tmp, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
