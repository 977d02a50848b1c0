// Sequence tests of the F2FS model's API, with fsck after every step.
#include <algorithm>
#include <cstring>

#include <gtest/gtest.h>

#include "fs/f2fs/f2fs_model_test_util.h"
#include "fs/f2fs/f2fs_test_util.h"
#include "sim/rng.h"

namespace fs::f2fs {
namespace {

using testing::Pattern;
using testing::Stack;

class F2fsApiTest : public ::testing::Test {
 protected:
  void SetUp() override { s_.FormatAndMount(); }
  F2fs& fs() { return s_.fs(); }
  template <class T>
  T Run(sim::Task<T> t) {
    return s_.Run(std::move(t));
  }
  void Check() { s_.ExpectCheck(); }

  Fd OpenOk(const std::string& p, uint32_t flags) {
    FsResult<Fd> r = Run(fs().Open(p, flags));
    EXPECT_TRUE(r.ok()) << p << ": " << ErrnoName(r.err);
    return r.value;
  }
  void WriteAt(Fd fd, uint64_t off, const std::vector<uint8_t>& d) {
    FsResult<uint64_t> r = Run(fs().Pwrite(fd, off, d, d.size()));
    ASSERT_TRUE(r.ok()) << ErrnoName(r.err);
    ASSERT_EQ(r.value, d.size());
  }
  std::vector<uint8_t> ReadAt(Fd fd, uint64_t off, size_t n) {
    std::vector<uint8_t> out(n, 0xEE);
    FsResult<uint64_t> r = Run(fs().Pread(fd, off, out));
    EXPECT_TRUE(r.ok());
    out.resize(r.value);
    return out;
  }

  Stack s_;
};

TEST_F(F2fsApiTest, FreshVolumeIsConsistent) {
  Check();
  FsResult<FileStat> st = Run(fs().Stat("/"));
  ASSERT_TRUE(st.ok());
  EXPECT_TRUE(st.value.is_dir);
  EXPECT_EQ(st.value.nlink, 2u);
  FsResult<std::vector<std::string>> l = Run(fs().Readdir("/"));
  ASSERT_TRUE(l.ok());
  EXPECT_TRUE(l.value.empty());
}

TEST_F(F2fsApiTest, CreateWriteReadInlineAndRegular) {
  const Fd fd = OpenOk("/a", kCreat | kRdWr);
  Check();
  const auto small = Pattern(1000, 1);
  WriteAt(fd, 0, small);
  Check();
  EXPECT_EQ(ReadAt(fd, 0, 2000), small);
  FsResult<FileStat> st = Run(fs().Fstat(fd));
  EXPECT_EQ(st.value.size, 1000u);
  EXPECT_EQ(st.value.blocks, 0u);  // inline
  // Grow beyond the inline area: converted to a data block.
  const auto big = Pattern(20000, 2);
  WriteAt(fd, 3000, big);
  Check();
  std::vector<uint8_t> want(23000, 0);
  std::copy(small.begin(), small.end(), want.begin());
  std::copy(big.begin(), big.end(), want.begin() + 3000);
  EXPECT_EQ(ReadAt(fd, 0, 30000), want);
  st = Run(fs().Fstat(fd));
  EXPECT_EQ(st.value.size, 23000u);
  EXPECT_EQ(st.value.blocks, 6u);
  ASSERT_TRUE(Run(fs().Close(fd)).ok());
  Check();
}

// Writes without bytes (a workload that only sizes its writes) read back as
// zeros, also over bytes written before, in the inline area and after the
// conversion to a data block.
TEST_F(F2fsApiTest, WritesWithoutBytesReadAsZerosInlineAndConverted) {
  const Fd fd = OpenOk("/z", kCreat | kRdWr);
  WriteAt(fd, 0, Pattern(600, 3));
  ASSERT_EQ(Run(fs().Pwrite(fd, 100, {}, 200)).value, 200u);  // zeros over given bytes
  ASSERT_EQ(Run(fs().Pwrite(fd, 1000, {}, 2000)).value, 2000u);  // past them: file grows
  WriteAt(fd, 2500, Pattern(10, 4));
  std::vector<uint8_t> want(3000, 0);
  const auto a = Pattern(600, 3);
  std::copy(a.begin(), a.end(), want.begin());
  std::fill(want.begin() + 100, want.begin() + 300, 0);
  const auto b = Pattern(10, 4);
  std::copy(b.begin(), b.end(), want.begin() + 2500);
  EXPECT_EQ(ReadAt(fd, 0, 4000), want);
  EXPECT_EQ(Run(fs().Fstat(fd)).value.blocks, 0u);  // still inline
  ASSERT_EQ(Run(fs().Pwrite(fd, 3000, {}, 2000)).value, 2000u);  // converts
  want.resize(5000, 0);
  EXPECT_EQ(ReadAt(fd, 0, 6000), want);
  ASSERT_TRUE(Run(fs().Close(fd)).ok());
  Check();
}

TEST_F(F2fsApiTest, ErrorsAreErrnos) {
  EXPECT_EQ(Run(fs().Open("/nope", kRdOnly)).err, Errno::kNoEnt);
  EXPECT_EQ(Run(fs().Open("/nope/x", kCreat | kRdWr)).err, Errno::kNoEnt);
  const Fd fd = OpenOk("/f", kCreat | kWrOnly);
  EXPECT_EQ(Run(fs().Open("/f", kCreat | kExcl | kRdWr)).err, Errno::kExist);
  EXPECT_EQ(Run(fs().Open("/f/x", kCreat | kRdWr)).err, Errno::kNotDir);
  EXPECT_EQ(Run(fs().Mkdir("/f")).err, Errno::kExist);
  EXPECT_EQ(Run(fs().Rmdir("/f")).err, Errno::kNotDir);
  std::vector<uint8_t> buf(10);
  EXPECT_EQ(Run(fs().Pread(fd, 0, buf)).err, Errno::kBadF);  // write-only
  EXPECT_EQ(Run(fs().Pread(99, 0, buf)).err, Errno::kBadF);
  ASSERT_TRUE(Run(fs().Mkdir("/d")).ok());
  EXPECT_EQ(Run(fs().Unlink("/d")).err, Errno::kIsDir);
  EXPECT_EQ(Run(fs().Open("/d", kRdWr)).err, Errno::kIsDir);
  const Fd f2 = OpenOk("/d/x", kCreat | kRdWr);
  EXPECT_EQ(Run(fs().Rmdir("/d")).err, Errno::kNotEmpty);
  EXPECT_EQ(Run(fs().Open(std::string("/") + std::string(300, 'n'), kCreat | kRdWr)).err, Errno::kNameTooLong);
  EXPECT_EQ(Run(fs().Rename("/d", "/d/x/y")).err, Errno::kNotDir);
  ASSERT_TRUE(Run(fs().Mkdir("/d/sub")).ok());
  EXPECT_EQ(Run(fs().Rename("/d", "/d/sub/inside")).err, Errno::kInval);
  // Path rules shared with memfs (fs/vfs/path.h).
  EXPECT_EQ(Run(fs().Open("", kRdWr)).err, Errno::kNoEnt);
  EXPECT_EQ(Run(fs().Open("/f/", kRdWr)).err, Errno::kNotDir);
  EXPECT_EQ(Run(fs().Open("/new/", kCreat | kRdWr)).err, Errno::kIsDir);
  EXPECT_EQ(Run(fs().Unlink("/f/")).err, Errno::kNotDir);
  EXPECT_EQ(Run(fs().Stat("/f/")).err, Errno::kNotDir);
  EXPECT_TRUE(Run(fs().Stat("/d/")).ok());
  EXPECT_TRUE(Run(fs().Stat("/d/.")).ok());
  EXPECT_EQ(Run(fs().Stat("/d/./sub/../x")).value.ino, Run(fs().Fstat(f2)).value.ino);
  std::string deep;
  while (deep.size() < 4096) deep += "/d";
  EXPECT_EQ(Run(fs().Stat(deep)).err, Errno::kNameTooLong);
  EXPECT_EQ(fd, 3);  // descriptors start above the standard streams
  Run(fs().Close(fd));
  Run(fs().Close(f2));
  Check();
}

TEST_F(F2fsApiTest, NamespaceOperations) {
  ASSERT_TRUE(Run(fs().Mkdir("/a")).ok());
  ASSERT_TRUE(Run(fs().Mkdir("/a/b")).ok());
  Check();
  Fd fd = OpenOk("/a/b/f", kCreat | kRdWr);
  WriteAt(fd, 0, Pattern(9000, 3));
  Run(fs().Close(fd));
  Check();
  EXPECT_EQ(Run(fs().Stat("/a")).value.nlink, 3u);
  // Rename a file across directories, over an existing file.
  fd = OpenOk("/a/g", kCreat | kRdWr);
  WriteAt(fd, 0, Pattern(100, 4));
  Run(fs().Close(fd));
  ASSERT_TRUE(Run(fs().Rename("/a/b/f", "/a/g")).ok());
  Check();
  EXPECT_EQ(Run(fs().Stat("/a/b/f")).err, Errno::kNoEnt);
  EXPECT_EQ(Run(fs().Stat("/a/g")).value.size, 9000u);
  // Rename a directory to another parent.
  ASSERT_TRUE(Run(fs().Mkdir("/c")).ok());
  ASSERT_TRUE(Run(fs().Rename("/a/b", "/c/b2")).ok());
  Check();
  EXPECT_EQ(Run(fs().Stat("/a")).value.nlink, 2u);
  EXPECT_EQ(Run(fs().Stat("/c")).value.nlink, 3u);
  FsResult<std::vector<std::string>> l = Run(fs().Readdir("/c"));
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l.value, std::vector<std::string>{"b2"});
  ASSERT_TRUE(Run(fs().Rmdir("/c/b2")).ok());
  ASSERT_TRUE(Run(fs().Unlink("/a/g")).ok());
  Check();
  EXPECT_EQ(Run(fs().Stat("/c")).value.nlink, 2u);
  ASSERT_TRUE(Run(fs().Rmdir("/a")).ok());
  ASSERT_TRUE(Run(fs().Rmdir("/c")).ok());
  Check();
  EXPECT_TRUE(Run(fs().Readdir("/")).value.empty());
  // Everything freed except the root.
  Run(fs().Sync());
  Check();
  EXPECT_EQ(fs().valid_block_count(), 1u);
}

TEST_F(F2fsApiTest, DirectoryGrowsThroughHashLevels) {
  ASSERT_TRUE(Run(fs().Mkdir("/d")).ok());
  const int n = 1500;  // 182 inline, then 214 per block over several levels
  for (int i = 0; i < n; ++i) {
    const std::string p = "/d/file_with_a_longish_name_" + std::to_string(i);
    FsResult<Fd> r = Run(fs().Open(p, kCreat | kRdWr));
    ASSERT_TRUE(r.ok()) << p;
    Run(fs().Close(r.value));
    if (i % 250 == 0) Check();
  }
  Check();
  FsResult<std::vector<std::string>> l = Run(fs().Readdir("/d"));
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l.value.size(), static_cast<size_t>(n));
  FsResult<FileStat> st = Run(fs().Stat("/d"));
  EXPECT_GT(st.value.size, 4u * kBlockSize);  // several levels of buckets
  for (int i = 0; i < n; i += 7) {
    ASSERT_TRUE(Run(fs().Stat("/d/file_with_a_longish_name_" + std::to_string(i))).ok()) << i;
  }
  for (int i = 0; i < n; i += 2) ASSERT_TRUE(Run(fs().Unlink("/d/file_with_a_longish_name_" + std::to_string(i))).ok());
  Check();
  EXPECT_EQ(Run(fs().Readdir("/d")).value.size(), static_cast<size_t>(n / 2));
  s_.Remount();
  s_.ExpectCheck();
  EXPECT_EQ(Run(s_.fs().Readdir("/d")).value.size(), static_cast<size_t>(n / 2));
  EXPECT_TRUE(Run(s_.fs().Stat("/d/file_with_a_longish_name_1")).ok());
  EXPECT_EQ(Run(s_.fs().Stat("/d/file_with_a_longish_name_2")).err, Errno::kNoEnt);
}

TEST_F(F2fsApiTest, LargeFileThroughDoubleIndirectNodes) {
  const Fd fd = OpenOk("/big", kCreat | kRdWr);
  // Blocks in the inode, both direct nodes, an indirect node and the
  // double-indirect range (sparse: only a few blocks are written).
  const uint64_t d = kAddrsPerBlock, ind = d * kNidsPerBlock;
  const uint64_t idxs[] = {0, 870, 873, 873 + d, 873 + 2 * d, 873 + 2 * d + ind + 5, 873 + 2 * d + 2 * ind + 3,
                           873 + 2 * d + 2 * ind + ind * 3 + d * 7 + 11};
  uint32_t seed = 10;
  for (uint64_t idx : idxs) WriteAt(fd, idx * kBlockSize + 17, Pattern(5000, seed++));
  Check();
  seed = 10;
  for (uint64_t idx : idxs) EXPECT_EQ(ReadAt(fd, idx * kBlockSize + 17, 5000), Pattern(5000, seed++)) << idx;
  // A hole reads as zeros.
  EXPECT_EQ(ReadAt(fd, 100 * kBlockSize, 10), std::vector<uint8_t>(10, 0));
  ASSERT_TRUE(Run(fs().Fsync(fd)).ok());
  Check();
  s_.Remount();
  s_.ExpectCheck();
  const Fd fd2 = s_.Run(s_.fs().Open("/big", kRdWr)).value;
  seed = 10;
  for (uint64_t idx : idxs) {
    std::vector<uint8_t> out(5000);
    ASSERT_EQ(s_.Run(s_.fs().Pread(fd2, idx * kBlockSize + 17, out)).value, 5000u);
    EXPECT_EQ(out, Pattern(5000, seed++)) << idx;
  }
  // Truncate back into the indirect range frees the double-indirect tree.
  ASSERT_TRUE(s_.Run(s_.fs().Ftruncate(fd2, (873 + 2 * d + 10) * kBlockSize)).ok());
  s_.ExpectCheck();
  ASSERT_TRUE(s_.Run(s_.fs().Ftruncate(fd2, 0)).ok());
  s_.ExpectCheck();
  EXPECT_EQ(s_.Run(s_.fs().Fstat(fd2)).value.blocks, 0u);
  s_.Run(s_.fs().Close(fd2));
  s_.Run(s_.fs().Sync());
  s_.ExpectCheck();
}

// A file's cached pages are found by index in two ways (direct slots below
// vfs::PageSlots' kDirectLimit, a map above it): pages on both sides of the
// limit read back after the memory limit evicted them, after a truncate
// dropped some, and after drop_caches, and an evicted page is read from the
// device again.
TEST(F2fsPageLookupTest, PagesAroundTheDirectIndexLimitSurviveEvictionTruncateAndDrop) {
  F2fsConfig cfg = testing::TestConfig();
  cfg.page_cache.memory = sim::MiB(1);
  Stack s(256ull << 20, cfg);
  s.FormatAndMount();
  const uint64_t lim = vfs::PageSlots<DataPage>::kDirectLimit;
  const uint64_t idxs[] = {0, 1, lim - 3, lim - 1, lim, lim + 1, lim + 7};
  const Fd fd = s.Run(s.fs().Open("/a", kCreat | kRdWr)).value;
  uint32_t seed = 30;
  for (uint64_t idx : idxs) {
    const auto d = Pattern(kBlockSize, seed++);
    ASSERT_EQ(s.Run(s.fs().Pwrite(fd, idx * kBlockSize, d, d.size())).value, d.size());
  }
  ASSERT_TRUE(s.Run(s.fs().Sync()).ok());
  const auto read_page = [&](uint64_t idx) {
    std::vector<uint8_t> out(kBlockSize, 0xEE);
    EXPECT_EQ(s.Run(s.fs().Pread(fd, idx * kBlockSize, out)).value, kBlockSize) << idx;
    return out;
  };
  const auto expect_all = [&](uint64_t below) {
    uint32_t k = 30;
    for (uint64_t idx : idxs) {
      const auto want = Pattern(kBlockSize, k++);
      if (idx < below) EXPECT_EQ(read_page(idx), want) << idx;
    }
  };
  expect_all(UINT64_MAX);
  // Another file's 2 MiB pushes /a's clean pages out of the 1 MiB cache.
  const Fd b = s.Run(s.fs().Open("/b", kCreat | kRdWr)).value;
  const auto big = Pattern(2 << 20, 99);
  ASSERT_EQ(s.Run(s.fs().Pwrite(b, 0, big, big.size())).value, big.size());
  ASSERT_TRUE(s.Run(s.fs().Sync()).ok());
  std::vector<uint8_t> back(big.size());
  EXPECT_EQ(s.Run(s.fs().Pread(b, 0, back)).value, big.size());
  EXPECT_GT(s.fs().evicted_pages(), std::size(idxs));
  uint64_t before = s.device().bytes(ssd::BlockOp::kRead);
  expect_all(UINT64_MAX);
  EXPECT_GE(s.device().bytes(ssd::BlockOp::kRead) - before, std::size(idxs) * kBlockSize);
  before = s.device().bytes(ssd::BlockOp::kRead);
  expect_all(UINT64_MAX);  // cached again
  EXPECT_EQ(s.device().bytes(ssd::BlockOp::kRead), before);
  // A truncate to the limit drops the pages at and above it: they read as
  // a hole when the file grows back.
  ASSERT_TRUE(s.Run(s.fs().Ftruncate(fd, lim * kBlockSize)).ok());
  ASSERT_TRUE(s.Run(s.fs().Ftruncate(fd, (lim + 8) * kBlockSize)).ok());
  expect_all(lim);
  for (uint64_t idx : {lim, lim + 1, lim + 7}) EXPECT_EQ(read_page(idx), std::vector<uint8_t>(kBlockSize, 0)) << idx;
  ASSERT_TRUE(s.Run(s.fs().Sync()).ok());
  ASSERT_TRUE(s.fs().DropCaches().ok());
  expect_all(lim);
  s.Run(s.fs().Close(fd));
  s.Run(s.fs().Close(b));
  s.ExpectCheck();
}

// On Linux a pwrite on an O_APPEND descriptor appends, whatever its offset
// (pwrite(2), BUGS), as memfs and the ext4 model do.
TEST_F(F2fsApiTest, PwriteOnAnAppendDescriptorAppends) {
  const Fd fd = OpenOk("/ap", kCreat | kRdWr | kAppend);
  const auto a = Pattern(100, 1), b = Pattern(50, 2);
  ASSERT_EQ(Run(fs().Write(fd, a, a.size())).value, a.size());
  ASSERT_EQ(Run(fs().Pwrite(fd, 0, b, b.size())).value, b.size());
  EXPECT_EQ(Run(fs().Fstat(fd)).value.size, 150u);
  std::vector<uint8_t> want(a);
  want.insert(want.end(), b.begin(), b.end());
  EXPECT_EQ(ReadAt(fd, 0, 200), want);
}

TEST_F(F2fsApiTest, TruncateAndAppend) {
  const Fd fd = OpenOk("/t", kCreat | kRdWr | kAppend);
  const auto a = Pattern(10000, 5);
  ASSERT_EQ(Run(fs().Write(fd, a, a.size())).value, a.size());
  ASSERT_EQ(Run(fs().Write(fd, a, a.size())).value, a.size());
  EXPECT_EQ(Run(fs().Fstat(fd)).value.size, 20000u);
  ASSERT_TRUE(Run(fs().Ftruncate(fd, 5000)).ok());
  Check();
  std::vector<uint8_t> want(a.begin(), a.begin() + 5000);
  EXPECT_EQ(ReadAt(fd, 0, 10000), want);
  ASSERT_TRUE(Run(fs().Ftruncate(fd, 9000)).ok());  // extend: zeros
  want.resize(9000, 0);
  EXPECT_EQ(ReadAt(fd, 0, 10000), want);
  ASSERT_TRUE(Run(fs().Truncate("/t", 0)).ok());
  EXPECT_EQ(ReadAt(fd, 0, 100).size(), 0u);
  // Synthetic (empty-span) writes read back as zeros and store no bytes.
  ASSERT_EQ(Run(fs().Pwrite(fd, 0, {}, 3 * kBlockSize)).value, 3 * kBlockSize);
  EXPECT_EQ(ReadAt(fd, 0, 3 * kBlockSize), std::vector<uint8_t>(3 * kBlockSize, 0));
  Run(fs().Close(fd));
  Check();
}

TEST_F(F2fsApiTest, SequentialReadWriteRead) {
  const Fd fd = OpenOk("/s", kCreat | kRdWr);
  const auto a = Pattern(1 << 20, 6);
  ASSERT_EQ(Run(fs().Write(fd, a, a.size())).value, a.size());
  ASSERT_TRUE(Run(fs().Fsync(fd)).ok());
  Check();
  fs().DropCaches();
  std::vector<uint8_t> out(a.size());
  FsResult<uint64_t> r = Run(fs().Read(fd, out));  // from position 1 MiB: EOF
  EXPECT_EQ(r.value, 0u);
  size_t got = 0;
  while (got < a.size()) {
    std::vector<uint8_t> chunk(64 * 1024);
    FsResult<uint64_t> rr = Run(fs().Pread(fd, got, chunk));
    ASSERT_TRUE(rr.ok());
    ASSERT_GT(rr.value, 0u);
    std::copy(chunk.begin(), chunk.begin() + rr.value, out.begin() + got);
    got += rr.value;
  }
  EXPECT_EQ(out, a);
  Run(fs().Close(fd));
}

// FileSystem::DropCaches (echo 3 > drop_caches): after Sync, every page is
// clean and goes; the next read of the file and its metadata comes from the
// device, a read without a drop does not.
TEST_F(F2fsApiTest, DropCachesThroughTheInterfaceSendsReadsToTheDevice) {
  const Fd fd = OpenOk("/d", kCreat | kRdWr);
  WriteAt(fd, 0, Pattern(256 * 1024, 9));
  Run(fs().Close(fd));
  ASSERT_TRUE(Run(fs().Sync()).ok());
  const auto read_all = [&] {
    const Fd r = OpenOk("/d", kRdOnly);
    EXPECT_EQ(ReadAt(r, 0, 256 * 1024), Pattern(256 * 1024, 9));
    Run(fs().Close(r));
  };
  uint64_t before = s_.device().bytes(ssd::BlockOp::kRead);
  read_all();
  EXPECT_EQ(s_.device().bytes(ssd::BlockOp::kRead), before);  // all cached
  FileSystem& api = fs();
  ASSERT_TRUE(api.DropCaches().ok());
  before = s_.device().bytes(ssd::BlockOp::kRead);
  read_all();
  EXPECT_GE(s_.device().bytes(ssd::BlockOp::kRead) - before, 256u * 1024);
  Check();
}

TEST_F(F2fsApiTest, UnlinkOpenFileIsAnOrphanUntilClose) {
  const Fd fd = OpenOk("/o", kCreat | kRdWr);
  WriteAt(fd, 0, Pattern(50000, 7));
  ASSERT_TRUE(Run(fs().Unlink("/o")).ok());
  Check();
  EXPECT_EQ(Run(fs().Stat("/o")).err, Errno::kNoEnt);
  EXPECT_EQ(ReadAt(fd, 0, 50000), Pattern(50000, 7));
  Run(fs().Sync());  // the orphan is in the checkpoint
  Check();
  ASSERT_TRUE(Run(fs().Close(fd)).ok());
  Check();
  Run(fs().Sync());
  EXPECT_EQ(fs().valid_block_count(), 1u);
}

// link(2): another name for a regular file; the file lives until its last
// name goes (and its last descriptor closes); fsck counts the names.
TEST_F(F2fsApiTest, HardLinks) {
  ASSERT_TRUE(Run(fs().Mkdir("/d")).ok());
  const Fd fd = OpenOk("/a", kCreat | kRdWr);
  WriteAt(fd, 0, Pattern(20000, 3));
  ASSERT_TRUE(Run(fs().Link("/a", "/d/b")).ok());
  Check();
  EXPECT_EQ(Run(fs().Stat("/a")).value.nlink, 2u);
  EXPECT_EQ(Run(fs().Stat("/d/b")).value.ino, Run(fs().Stat("/a")).value.ino);
  EXPECT_EQ(Run(fs().Link("/d", "/e")).err, Errno::kPerm);
  EXPECT_EQ(Run(fs().Link("/a", "/d/b")).err, Errno::kExist);
  EXPECT_EQ(Run(fs().Link("/nope", "/x")).err, Errno::kNoEnt);
  EXPECT_EQ(Run(fs().Link("/a", "/nope/x")).err, Errno::kNoEnt);
  EXPECT_EQ(Run(fs().Link("/a/", "/x")).err, Errno::kNotDir);
  EXPECT_EQ(Run(fs().Link("/a", "/x/")).err, Errno::kNoEnt);
  // A write through one name shows through the other.
  const Fd fb = OpenOk("/d/b", kRdWr);
  WriteAt(fb, 100, Pattern(5000, 4));
  std::vector<uint8_t> want = Pattern(20000, 3);
  const std::vector<uint8_t> mid = Pattern(5000, 4);
  std::copy(mid.begin(), mid.end(), want.begin() + 100);
  EXPECT_EQ(ReadAt(fd, 0, 20000), want);
  ASSERT_TRUE(Run(fs().Close(fd)).ok());
  ASSERT_TRUE(Run(fs().Close(fb)).ok());
  Run(fs().Sync());
  s_.Remount();
  s_.ExpectCheck();
  EXPECT_EQ(Run(fs().Stat("/d/b")).value.nlink, 2u);
  // Unlinking the first name leaves the file to the second.
  ASSERT_TRUE(Run(fs().Unlink("/a")).ok());
  Check();
  EXPECT_EQ(Run(fs().Stat("/d/b")).value.nlink, 1u);
  const Fd fr = OpenOk("/d/b", kRdOnly);
  EXPECT_EQ(ReadAt(fr, 0, 20000), want);
  ASSERT_TRUE(Run(fs().Close(fr)).ok());
  // A rename between two names of one file changes nothing.
  ASSERT_TRUE(Run(fs().Link("/d/b", "/c")).ok());
  ASSERT_TRUE(Run(fs().Rename("/c", "/d/b")).ok());
  EXPECT_EQ(Run(fs().Stat("/c")).value.nlink, 2u);
  Check();
  // The last name gone, the blocks are freed.
  const uint64_t before = fs().valid_block_count();
  ASSERT_TRUE(Run(fs().Unlink("/c")).ok());
  ASSERT_TRUE(Run(fs().Unlink("/d/b")).ok());
  Check();
  Run(fs().Sync());
  EXPECT_LT(fs().valid_block_count(), before);
}

// O_DIRECT: aligned requests go straight to the device (the write returns
// after it; nothing stays in the page cache), overwrites in place outside
// LFS mode; 512-byte-aligned ones fall back to the cache, others are EINVAL.
TEST_F(F2fsApiTest, DirectIo) {
  using ssd::BlockOp;
  const Fd fd = OpenOk("/d", kCreat | kRdWr | kDirect);
  const std::vector<uint8_t> v1 = Pattern(64 * 1024, 1);
  const uint64_t writes0 = s_.device().requests(BlockOp::kWrite);
  const uint64_t cached0 = fs().cached_pages();
  WriteAt(fd, 0, v1);
  EXPECT_GT(s_.device().requests(BlockOp::kWrite), writes0) << "written before the call returned";
  EXPECT_EQ(fs().cached_pages(), cached0) << "no page of the file stays cached";
  Check();
  const uint64_t ipu0 = fs().ipu_blocks();
  const std::vector<uint8_t> v2 = Pattern(64 * 1024, 2);
  WriteAt(fd, 0, v2);
  EXPECT_EQ(fs().ipu_blocks(), ipu0 + 16) << "an overwrite goes in place";
  const uint64_t reads0 = s_.device().requests(BlockOp::kRead);
  EXPECT_EQ(ReadAt(fd, 0, v2.size()), v2);
  EXPECT_GT(s_.device().requests(BlockOp::kRead), reads0) << "read from the device";
  EXPECT_EQ(fs().cached_pages(), cached0);
  // A buffered write then a direct read: the dirty page is written first.
  const Fd fb = OpenOk("/d", kRdWr);
  const std::vector<uint8_t> v3 = Pattern(4096, 3);
  WriteAt(fb, 8192, v3);
  std::vector<uint8_t> want = v2;
  std::copy(v3.begin(), v3.end(), want.begin() + 8192);
  EXPECT_EQ(ReadAt(fd, 0, want.size()), want);
  // Alignment.
  EXPECT_EQ(Run(fs().Pwrite(fd, 100, Pattern(4096, 4), 4096)).err, Errno::kInval);
  const uint64_t writes1 = s_.device().requests(BlockOp::kWrite);
  WriteAt(fd, 512, Pattern(4096, 5));  // buffered
  EXPECT_EQ(s_.device().requests(BlockOp::kWrite), writes1) << "512-aligned: through the page cache";
  ASSERT_TRUE(Run(fs().Close(fd)).ok());
  ASSERT_TRUE(Run(fs().Close(fb)).ok());
  Check();
  EXPECT_GT(s_.stats().Value("fs.app.direct_bytes_written"), 0.0);
}

// fio direct=1 with an fsync every 32 writes (seed 001's direct row):
// direct overwrites go in place, change no dnode, and each fsync writes one
// node, the inode (its times).
TEST_F(F2fsApiTest, FsyncAfterDirectOverwritesWritesOnlyTheInode) {
  const Fd fd = OpenOk("/d", kCreat | kRdWr | kDirect);
  WriteAt(fd, 0, Pattern(4096 * 4096, 1));  // 16 MiB: four dnodes' worth
  ASSERT_TRUE(Run(fs().Sync()).ok());
  sim::Rng rng(3, "f2fs.test.direct_fsync");
  for (int round = 0; round < 8; ++round) {
    const double written0 = s_.stats().Value("fs.fsync.nodes_written");
    const uint64_t ipu0 = fs().ipu_blocks();
    for (int i = 0; i < 32; ++i) WriteAt(fd, rng.Uniform(4096) * 4096, Pattern(4096, 10 + i));
    EXPECT_EQ(fs().ipu_blocks() - ipu0, 32u);
    ASSERT_TRUE(Run(fs().Fsync(fd)).ok());
    EXPECT_EQ(s_.stats().Value("fs.fsync.nodes_written") - written0, 1) << "round " << round;
  }
  ASSERT_TRUE(Run(fs().Close(fd)).ok());
  Check();
}

TEST_F(F2fsApiTest, RemountKeepsEverythingAfterSync) {
  ASSERT_TRUE(Run(fs().Mkdir("/x")).ok());
  for (int i = 0; i < 50; ++i) {
    const Fd fd = OpenOk("/x/f" + std::to_string(i), kCreat | kRdWr);
    WriteAt(fd, 0, Pattern(static_cast<size_t>(100 + i * 700), static_cast<uint32_t>(i)));
    Run(fs().Close(fd));
  }
  Run(fs().Sync());
  Check();
  s_.Remount();
  s_.ExpectCheck();
  for (int i = 0; i < 50; ++i) {
    const Fd fd = s_.Run(s_.fs().Open("/x/f" + std::to_string(i), kRdOnly)).value;
    const size_t n = static_cast<size_t>(100 + i * 700);
    std::vector<uint8_t> out(n + 10);
    ASSERT_EQ(s_.Run(s_.fs().Pread(fd, 0, out)).value, n);
    out.resize(n);
    EXPECT_EQ(out, Pattern(n, static_cast<uint32_t>(i))) << i;
    s_.Run(s_.fs().Close(fd));
  }
}

// The image lets go of the block versions a durable checkpoint freed (the
// memory of long runs): after the files go and a checkpoint, their old data
// and inode blocks are no longer held, the volume stays consistent and
// remounts with what is left.
TEST_F(F2fsApiTest, CheckpointLetsTheImageForgetWhatItFreed) {
  ASSERT_TRUE(Run(fs().Mkdir("/k")).ok());
  std::vector<std::weak_ptr<const BlockData>> old;
  std::vector<Nid> inos;
  for (int i = 0; i < 20; ++i) {
    const std::string p = "/k/f" + std::to_string(i);
    const Fd fd = OpenOk(p, kCreat | kRdWr);
    WriteAt(fd, 0, Pattern(5 * kBlockSize, static_cast<uint32_t>(i)));
    Run(fs().Close(fd));
    inos.push_back(Nid{static_cast<uint32_t>(Run(fs().Stat(p)).value.ino)});
  }
  Run(fs().Sync());
  for (Nid ino : inos) {
    old.push_back(s_.image().Read(fs().nat().Get(ino).addr));
    for (uint64_t b = 0; b < 5; ++b) old.push_back(s_.image().Read(testing::FileBlockAddress(fs(), s_.image(), ino, b)));
  }
  for (const auto& w : old) ASSERT_FALSE(w.expired());
  const uint64_t before = s_.image().forgotten_blocks();
  for (int i = 0; i < 20; i += 2) ASSERT_TRUE(Run(fs().Unlink("/k/f" + std::to_string(i))).ok());
  Run(fs().Sync());
  Check();
  // Each removed file: 5 data blocks and its inode block.
  EXPECT_GE(s_.image().forgotten_blocks() - before, 10u * 6u);
  for (size_t i = 0; i < old.size(); ++i) {
    const bool removed = (i / 6) % 2 == 0;
    EXPECT_EQ(old[i].expired(), removed) << "block " << i % 6 << " of file " << i / 6;
  }
  s_.Remount();
  s_.ExpectCheck();
  for (int i = 1; i < 20; i += 2) {
    const Fd fd = s_.Run(s_.fs().Open("/k/f" + std::to_string(i), kRdOnly)).value;
    std::vector<uint8_t> out(5 * kBlockSize);
    ASSERT_EQ(s_.Run(s_.fs().Pread(fd, 0, out)).value, out.size());
    EXPECT_EQ(out, Pattern(5 * kBlockSize, static_cast<uint32_t>(i))) << i;
    s_.Run(s_.fs().Close(fd));
  }
}

// checkpoint_activity: a checkpoint that writes something counts as begun
// and reports running from its start to its commit; one with nothing to
// write (skipped) does not count.
TEST_F(F2fsApiTest, CheckpointActivityReportsCheckpointsThatRun) {
  const Fd fd = OpenOk("/a", kCreat | kRdWr);
  WriteAt(fd, 0, Pattern(64 * kBlockSize, 3));
  Run(fs().Close(fd));
  Run(fs().Sync());  // whatever mount and the write left dirty
  const FileSystem::CheckpointActivity a0 = fs().checkpoint_activity();
  EXPECT_FALSE(a0.running);
  Run(fs().Sync());  // nothing dirty: skipped
  EXPECT_EQ(fs().checkpoint_activity().begun, a0.begun);
  ASSERT_TRUE(Run(fs().Mkdir("/d")).ok());
  // Sample every microsecond while the next sync runs.
  bool seen_running = false;
  bool sampling = true;
  sim::FunctionEvent* self = nullptr;
  sim::FunctionEvent sample([&] {
    seen_running |= fs().checkpoint_activity().running;
    if (sampling) s_.q().ScheduleIn(self, sim::Us(1));
  });
  self = &sample;
  s_.q().ScheduleIn(&sample, sim::Us(1));
  Run(fs().Sync());
  sampling = false;
  s_.q().Run(s_.q().now() + sim::Us(2));  // the last sample
  EXPECT_TRUE(seen_running);
  EXPECT_EQ(fs().checkpoint_activity().begun, a0.begun + 1);
  EXPECT_FALSE(fs().checkpoint_activity().running);
}

TEST_F(F2fsApiTest, StatsAreRegistered) {
  const Fd fd = OpenOk("/w", kCreat | kRdWr);
  WriteAt(fd, 0, Pattern(40000, 8));
  ASSERT_TRUE(Run(fs().Fsync(fd)).ok());
  Run(fs().Close(fd));
  const sim::StatsRegistry& st = s_.stats();
  EXPECT_TRUE(st.Has("fs.op.fsync.lat"));
  EXPECT_EQ(st.FindHistogram("fs.fsync.lat_total")->count(), 1u);
  EXPECT_GE(st.Value("fs.io.written.data"), 10);
  EXPECT_GE(st.Value("fs.io.written.node"), 1);
  EXPECT_GT(st.Value("fs.write_amplification"), 1.0);
  EXPECT_EQ(st.Value("fs.app.bytes_written"), 40000);
}

}  // namespace
}  // namespace fs::f2fs
