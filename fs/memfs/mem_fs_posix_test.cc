// Differential test: random call sequences on MemFs and on the host's own
// file system (a fresh temporary directory, through POSIX calls) must give
// the same results: the same errno, the same byte counts, the same data,
// the same names. This checks MemFs's semantics against a real kernel.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fs/memfs/mem_fs.h"
#include "fs/memfs/mem_fs_test_util.h"
#include "sim/rng.h"

namespace fs {
namespace {

using testing::SyncFs;

Errno FromErrno(int e) {
  switch (e) {
    case 0: return Errno::kOk;
    case EPERM: return Errno::kPerm;
    case ENOENT: return Errno::kNoEnt;
    case EBADF: return Errno::kBadF;
    case EEXIST: return Errno::kExist;
    case ENOTDIR: return Errno::kNotDir;
    case EISDIR: return Errno::kIsDir;
    case EINVAL: return Errno::kInval;
    case EFBIG: return Errno::kFBig;
    case ENOSPC: return Errno::kNoSpc;
    case ENAMETOOLONG: return Errno::kNameTooLong;
    case ENOTEMPTY: return Errno::kNotEmpty;
    default: return Errno::kIo;
  }
}

int ToPosixFlags(uint32_t f) {
  int p = (f & kRdWr) ? O_RDWR : (f & kWrOnly) ? O_WRONLY : O_RDONLY;
  if (f & kCreat) p |= O_CREAT;
  if (f & kTrunc) p |= O_TRUNC;
  if (f & kAppend) p |= O_APPEND;
  if (f & kExcl) p |= O_EXCL;
  if (f & kDirectory) p |= O_DIRECTORY;
  return p;
}

class HostDir {
 public:
  HostDir() {
    std::string tmpl = (std::getenv("TMPDIR") ? std::string(std::getenv("TMPDIR")) : std::string("/tmp")) +
                       "/memfs_posix_XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    CHECK(mkdtemp(buf.data()) != nullptr);
    root_ = buf.data();
  }
  ~HostDir() { RemoveTree(root_); }
  std::string Path(const std::string& p) const { return root_ + p; }

 private:
  static void RemoveTree(const std::string& p) {
    if (DIR* d = opendir(p.c_str())) {
      while (dirent* e = readdir(d)) {
        const std::string n = e->d_name;
        if (n == "." || n == "..") continue;
        const std::string c = p + "/" + n;
        struct stat st;
        if (lstat(c.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
          RemoveTree(c);
        } else {
          unlink(c.c_str());
        }
      }
      closedir(d);
    }
    rmdir(p.c_str());
  }
  std::string root_;
};

class Differential {
 public:
  explicit Differential(uint64_t seed)
      : fs_(&q_, sim::MakeDefault<MemFsConfig>()), s_(&q_, &fs_), rng_(seed, "memfs.posix") {}
  ~Differential() {
    for (auto& [mfd, hfd] : fds_) close(hfd);
  }

  // A random path below the root: existing names are likely.
  std::string RandomPath() {
    static const char* kNames[] = {"a", "b", "c", "d", "e"};
    std::string p;
    const uint64_t depth = 1 + rng_.Uniform(3);
    for (uint64_t i = 0; i < depth; ++i) {
      p += "/";
      const uint64_t k = rng_.Uniform(20);
      if (i > 0 && k == 0) {
        p += ".";
      } else {
        p += kNames[k % 5];
      }
    }
    if (rng_.Uniform(12) == 0) p += "/";
    return p;
  }

  void Step(int step) {
    const uint64_t op = rng_.Uniform(17);
    const std::string p = RandomPath();
    SCOPED_TRACE("step " + std::to_string(step) + " op " + std::to_string(op) + " path " + p);
    switch (op) {
      case 0:
      case 1: {  // open
        static const uint32_t kModes[] = {kRdOnly, kWrOnly, kRdWr};
        uint32_t flags = kModes[rng_.Uniform(3)];
        if (rng_.Uniform(2)) flags |= kCreat;
        if (rng_.Uniform(5) == 0) flags |= kExcl;
        if (rng_.Uniform(5) == 0) flags |= kTrunc;
        if (rng_.Uniform(5) == 0) flags |= kAppend;
        if (!(flags & kCreat) && rng_.Uniform(6) == 0) flags |= kDirectory;
        FsResult<Fd> m = s_.Open(p, flags);
        const int h = open(host_.Path(p).c_str(), ToPosixFlags(flags), 0644);
        const Errno he = h < 0 ? FromErrno(errno) : Errno::kOk;
        ASSERT_EQ(m.err, he) << "open flags " << flags;
        if (m.ok()) fds_.emplace_back(m.value, h);
        break;
      }
      case 2: {  // close
        if (fds_.empty()) break;
        const size_t i = rng_.Uniform(fds_.size());
        ASSERT_TRUE(s_.Close(fds_[i].first).ok());
        ASSERT_EQ(close(fds_[i].second), 0);
        fds_.erase(fds_.begin() + static_cast<ptrdiff_t>(i));
        break;
      }
      case 3:
      case 4: {  // write / pwrite with data
        if (fds_.empty()) break;
        auto [mfd, hfd] = fds_[rng_.Uniform(fds_.size())];
        std::string data(rng_.Uniform(6000), '\0');
        for (char& c : data) c = static_cast<char>('A' + rng_.Uniform(26));
        const bool positional = op == 4;
        const uint64_t off = rng_.Uniform(20000);
        FsResult<uint64_t> m = positional ? s_.Pwrite(mfd, off, data) : s_.Write(mfd, data);
        const ssize_t h = positional ? pwrite(hfd, data.data(), data.size(), static_cast<off_t>(off))
                                     : write(hfd, data.data(), data.size());
        ASSERT_EQ(m.err, h < 0 ? FromErrno(errno) : Errno::kOk);
        if (m.ok()) {
          ASSERT_EQ(m.value, static_cast<uint64_t>(h));
        }
        break;
      }
      case 5:
      case 6: {  // read / pread
        if (fds_.empty()) break;
        auto [mfd, hfd] = fds_[rng_.Uniform(fds_.size())];
        const size_t n = rng_.Uniform(9000);
        const bool positional = op == 6;
        const uint64_t off = rng_.Uniform(25000);
        auto [me, mdata] = positional ? s_.Pread(mfd, off, n) : s_.Read(mfd, n);
        std::string hdata(n, '\0');
        const ssize_t h = positional ? pread(hfd, hdata.data(), n, static_cast<off_t>(off)) : read(hfd, hdata.data(), n);
        ASSERT_EQ(me, h < 0 ? FromErrno(errno) : Errno::kOk);
        if (h >= 0) {
          hdata.resize(static_cast<size_t>(h));
          ASSERT_EQ(mdata, hdata);
        }
        break;
      }
      case 7: {  // ftruncate
        if (fds_.empty()) break;
        auto [mfd, hfd] = fds_[rng_.Uniform(fds_.size())];
        const uint64_t n = rng_.Uniform(20000);
        FsStatus m = s_.Ftruncate(mfd, n);
        const int h = ftruncate(hfd, static_cast<off_t>(n));
        ASSERT_EQ(m.err, h < 0 ? FromErrno(errno) : Errno::kOk);
        break;
      }
      case 8: {  // truncate
        const uint64_t n = rng_.Uniform(20000);
        FsStatus m = s_.Truncate(p, n);
        const int h = truncate(host_.Path(p).c_str(), static_cast<off_t>(n));
        ASSERT_EQ(m.err, h < 0 ? FromErrno(errno) : Errno::kOk);
        break;
      }
      case 9: {  // unlink
        FsStatus m = s_.Unlink(p);
        const int h = unlink(host_.Path(p).c_str());
        ASSERT_EQ(m.err, h < 0 ? FromErrno(errno) : Errno::kOk);
        break;
      }
      case 10:
      case 11: {  // mkdir
        FsStatus m = s_.Mkdir(p);
        const int h = mkdir(host_.Path(p).c_str(), 0755);
        ASSERT_EQ(m.err, h < 0 ? FromErrno(errno) : Errno::kOk);
        break;
      }
      case 12: {  // rmdir
        if (p.back() == '.') break;  // rmdir "x/." and "x/.." differ between kernels and MemFs
        FsStatus m = s_.Rmdir(p);
        const int h = rmdir(host_.Path(p).c_str());
        ASSERT_EQ(m.err, h < 0 ? FromErrno(errno) : Errno::kOk);
        break;
      }
      case 13: {  // rename
        const std::string q = RandomPath();
        if (p.back() == '.' || q.back() == '.' || p.find("/.") != std::string::npos ||
            q.find("/.") != std::string::npos) {
          break;  // EBUSY-style cases: MemFs answers EINVAL
        }
        FsStatus m = s_.Rename(p, q);
        const int h = rename(host_.Path(p).c_str(), host_.Path(q).c_str());
        ASSERT_EQ(m.err, h < 0 ? FromErrno(errno) : Errno::kOk) << "to " << q;
        break;
      }
      case 16: {  // link
        const std::string q = RandomPath();
        FsStatus m = s_.Link(p, q);
        const int h = link(host_.Path(p).c_str(), host_.Path(q).c_str());
        ASSERT_EQ(m.err, h < 0 ? FromErrno(errno) : Errno::kOk) << "to " << q;
        break;
      }
      case 14: {  // stat
        FsResult<FileStat> m = s_.Stat(p);
        struct stat st;
        const int h = stat(host_.Path(p).c_str(), &st);
        ASSERT_EQ(m.err, h < 0 ? FromErrno(errno) : Errno::kOk);
        if (h == 0) {
          ASSERT_EQ(m.value.is_dir, S_ISDIR(st.st_mode));
          if (!m.value.is_dir) {
            ASSERT_EQ(m.value.size, static_cast<uint64_t>(st.st_size));
            ASSERT_EQ(m.value.nlink, st.st_nlink);
          }
        }
        break;
      }
      case 15: {  // readdir
        FsResult<std::vector<std::string>> m = s_.Readdir(p);
        std::vector<std::string> names;
        Errno he = Errno::kOk;
        if (DIR* d = opendir(host_.Path(p).c_str())) {
          while (dirent* e = readdir(d)) {
            const std::string n = e->d_name;
            if (n != "." && n != "..") names.push_back(n);
          }
          closedir(d);
          std::sort(names.begin(), names.end());
        } else {
          he = FromErrno(errno);
        }
        ASSERT_EQ(m.err, he);
        if (m.ok()) {
          ASSERT_EQ(m.value, names);
        }
        break;
      }
    }
  }

  size_t open_fds() const { return fds_.size(); }

 private:
  sim::EventQueue q_;
  MemFs fs_;
  SyncFs s_;
  HostDir host_;
  sim::Rng rng_;
  std::vector<std::pair<Fd, int>> fds_;  // MemFs fd, host fd
};

TEST(MemFsPosixTest, RandomCallsMatchTheHostKernel) {
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Differential d(seed);
    for (int i = 0; i < 1500; ++i) {
      d.Step(i);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

}  // namespace
}  // namespace fs
