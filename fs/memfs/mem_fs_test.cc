#include "fs/memfs/mem_fs.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fs/memfs/mem_fs_test_util.h"
#include "sim/rng.h"
#include "sim/stats.h"

namespace fs {
namespace {

using testing::SyncFs;

class MemFsTest : public ::testing::Test {
 protected:
  explicit MemFsTest(MemFsConfig cfg = sim::MakeDefault<MemFsConfig>()) : fs_(&q_, cfg), s_(&q_, &fs_) {}
  sim::EventQueue q_;
  MemFs fs_;
  SyncFs s_;
};

TEST_F(MemFsTest, CreateWriteReadBack) {
  FsResult<Fd> fd = s_.Open("/a", kRdWr | kCreat);
  ASSERT_TRUE(fd.ok());
  EXPECT_GE(fd.value, 3);
  EXPECT_EQ(s_.Write(fd.value, "hello").value, 5u);
  EXPECT_EQ(s_.Write(fd.value, " world").value, 6u);
  // Position is at EOF: a read returns 0 bytes.
  EXPECT_EQ(s_.Read(fd.value, 10), std::make_pair(Errno::kOk, std::string()));
  EXPECT_EQ(s_.Pread(fd.value, 0, 100).second, "hello world");
  EXPECT_EQ(s_.Pread(fd.value, 6, 3).second, "wor");
  EXPECT_EQ(s_.Pread(fd.value, 11, 3), std::make_pair(Errno::kOk, std::string()));
  EXPECT_EQ(s_.Pread(fd.value, 1000, 3), std::make_pair(Errno::kOk, std::string()));
  FsResult<FileStat> st = s_.Fstat(fd.value);
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st.value.size, 11u);
  EXPECT_EQ(st.value.blocks, 1u);
  EXPECT_EQ(st.value.nlink, 1u);
  EXPECT_FALSE(st.value.is_dir);
  EXPECT_TRUE(s_.Close(fd.value).ok());
  EXPECT_EQ(s_.Get("/a"), "hello world");
  EXPECT_EQ(s_.Get("a"), "hello world");  // leading slash optional
  EXPECT_EQ(fs_.open_fd_count(), 0u);
}

// Discarding reads (what benchmarks issue) give Read/Pread's result, time,
// position and counts without handing bytes back, and the same errors.
TEST(MemFsTimingTest, DiscardingReadsMatchReadsWithoutACopy) {
  sim::EventQueue q;
  MemFsConfig c = sim::MakeDefault<MemFsConfig>();
  c.read_latency = sim::Us(3);
  c.read_bandwidth = sim::Bandwidth{1e9};
  sim::StatsRegistry reg;
  MemFs fs(&q, c);
  fs.RegisterStats(reg.Root());
  SyncFs s(&q, &fs);
  const Fd fd = s.Open("/f", kRdWr | kCreat).value;
  s.PwriteZeros(fd, 0, 10000);
  sim::SimTime t0 = q.now();
  EXPECT_EQ(testing::RunToEnd(&q, fs.PreadDiscard(fd, 4000, 1 << 20)).value, 6000u);  // short at EOF
  EXPECT_EQ(q.now() - t0, sim::Us(3) + sim::Us(6));
  EXPECT_EQ(testing::RunToEnd(&q, fs.PreadDiscard(fd, 20000, 100)).value, 0u);
  t0 = q.now();
  // ReadDiscard reads at the position and advances it.
  EXPECT_EQ(testing::RunToEnd(&q, fs.ReadDiscard(fd, 9000)).value, 9000u);
  EXPECT_EQ(q.now() - t0, sim::Us(3) + sim::Us(9));
  EXPECT_EQ(testing::RunToEnd(&q, fs.ReadDiscard(fd, 9000)).value, 1000u);
  EXPECT_EQ(reg.Value("calls.pread"), 2);
  EXPECT_EQ(reg.Value("calls.read"), 2);
  EXPECT_EQ(reg.Value("bytes_read"), 16000);
  const Fd wo = s.Open("/f", kWrOnly).value;
  EXPECT_EQ(testing::RunToEnd(&q, fs.PreadDiscard(wo, 0, 10)).err, Errno::kBadF);
  EXPECT_EQ(testing::RunToEnd(&q, fs.ReadDiscard(99, 10)).err, Errno::kBadF);
}

// Nothing is cached: dropping caches succeeds and changes nothing.
TEST_F(MemFsTest, DropCachesIsOkAndKeepsData) {
  FsResult<Fd> fd = s_.Open("/a", kRdWr | kCreat);
  ASSERT_TRUE(fd.ok());
  EXPECT_EQ(s_.Write(fd.value, "kept").value, 4u);
  FileSystem& api = fs_;
  EXPECT_TRUE(api.DropCaches().ok());
  EXPECT_EQ(s_.Pread(fd.value, 0, 10).second, "kept");
  EXPECT_TRUE(s_.Close(fd.value).ok());
}

TEST_F(MemFsTest, OpenErrors) {
  s_.Put("/f", "x");
  ASSERT_TRUE(s_.Mkdir("/d").ok());
  EXPECT_EQ(s_.Open("/missing", kRdOnly).err, Errno::kNoEnt);
  EXPECT_EQ(s_.Open("/f", kCreat | kExcl | kWrOnly).err, Errno::kExist);
  EXPECT_EQ(s_.Open("/d", kCreat | kExcl).err, Errno::kExist);
  EXPECT_EQ(s_.Open("/f", kWrOnly | kRdWr).err, Errno::kInval);
  EXPECT_EQ(s_.Open("/g", kCreat | kDirectory).err, Errno::kInval);
  EXPECT_EQ(s_.Open("/d", kWrOnly).err, Errno::kIsDir);
  EXPECT_EQ(s_.Open("/d", kRdWr).err, Errno::kIsDir);
  EXPECT_EQ(s_.Open("/d", kRdOnly | kCreat).err, Errno::kIsDir);
  EXPECT_EQ(s_.Open("/d", kRdOnly | kTrunc).err, Errno::kIsDir);
  EXPECT_EQ(s_.Open("/f", kRdOnly | kDirectory).err, Errno::kNotDir);
  EXPECT_EQ(s_.Open("/nodir/x", kCreat | kWrOnly).err, Errno::kNoEnt);
  EXPECT_EQ(s_.Open("/f/x", kCreat | kWrOnly).err, Errno::kNotDir);
  EXPECT_EQ(s_.Open("/f/", kRdOnly).err, Errno::kNotDir);
  EXPECT_EQ(s_.Open("/new/", kCreat | kWrOnly).err, Errno::kIsDir);
  EXPECT_EQ(s_.Open("", kRdOnly).err, Errno::kNoEnt);
  EXPECT_EQ(s_.Open("/" + std::string(256, 'n'), kCreat | kWrOnly).err, Errno::kNameTooLong);
  EXPECT_TRUE(s_.Open("/" + std::string(255, 'n'), kCreat | kWrOnly).ok());
  std::string deep;
  while (deep.size() <= MemFs::kMaxPathLen) deep += "/d";
  EXPECT_EQ(s_.Open(deep, kRdOnly).err, Errno::kNameTooLong);
  // Directories open read-only.
  FsResult<Fd> dfd = s_.Open("/d", kRdOnly | kDirectory);
  ASSERT_TRUE(dfd.ok());
  EXPECT_EQ(s_.Read(dfd.value, 4).first, Errno::kIsDir);
  EXPECT_EQ(s_.Write(dfd.value, "x").err, Errno::kBadF);
  EXPECT_EQ(s_.Ftruncate(dfd.value, 0).err, Errno::kInval);
  EXPECT_TRUE(s_.Fstat(dfd.value).value.is_dir);
  EXPECT_TRUE(s_.Close(dfd.value).ok());
  EXPECT_GT(fs_.counters().errors.value(), 10u);
}

TEST_F(MemFsTest, DescriptorsAreLowestFreeAndChecked) {
  s_.Put("/f", "abc");
  const Fd a = s_.Open("/f", kRdOnly).value;
  const Fd b = s_.Open("/f", kRdOnly).value;
  const Fd c = s_.Open("/f", kRdOnly).value;
  EXPECT_EQ(a, 3);
  EXPECT_EQ(b, 4);
  EXPECT_EQ(c, 5);
  EXPECT_TRUE(s_.Close(b).ok());
  EXPECT_EQ(s_.Open("/f", kRdOnly).value, 4);
  EXPECT_EQ(s_.Close(b).err, Errno::kOk);
  EXPECT_EQ(s_.Close(b).err, Errno::kBadF);  // double close
  for (Fd bad : {-1, 0, 1, 2, 99}) {
    EXPECT_EQ(s_.Close(bad).err, Errno::kBadF);
    EXPECT_EQ(s_.Read(bad, 1).first, Errno::kBadF);
    EXPECT_EQ(s_.Pread(bad, 0, 1).first, Errno::kBadF);
    EXPECT_EQ(s_.Write(bad, "x").err, Errno::kBadF);
    EXPECT_EQ(s_.Pwrite(bad, 0, "x").err, Errno::kBadF);
    EXPECT_EQ(s_.Fsync(bad).err, Errno::kBadF);
    EXPECT_EQ(s_.Fdatasync(bad).err, Errno::kBadF);
    EXPECT_EQ(s_.Fstat(bad).err, Errno::kBadF);
    EXPECT_EQ(s_.Ftruncate(bad, 0).err, Errno::kBadF);
  }
}

TEST_F(MemFsTest, AccessModes) {
  s_.Put("/f", "abc");
  const Fd ro = s_.Open("/f", kRdOnly).value;
  const Fd wo = s_.Open("/f", kWrOnly).value;
  EXPECT_EQ(s_.Write(ro, "x").err, Errno::kBadF);
  EXPECT_EQ(s_.Pwrite(ro, 0, "x").err, Errno::kBadF);
  EXPECT_EQ(s_.Ftruncate(ro, 0).err, Errno::kInval);
  EXPECT_EQ(s_.Read(wo, 1).first, Errno::kBadF);
  EXPECT_EQ(s_.Pread(wo, 0, 1).first, Errno::kBadF);
  EXPECT_TRUE(s_.Fsync(ro).ok());  // fsync works on read-only descriptors
  EXPECT_TRUE(s_.Fdatasync(wo).ok());
  // A non-empty buffer must match the length.
  const uint8_t buf[3] = {1, 2, 3};
  EXPECT_EQ(testing::RunToEnd(&q_, fs_.Pwrite(wo, 0, std::span<const uint8_t>(buf, 3), 2)).err, Errno::kInval);
  EXPECT_EQ(s_.Get("/f"), "abc");
}

TEST_F(MemFsTest, PositionsAreIndependentPerOpen) {
  s_.Put("/f", "0123456789");
  const Fd a = s_.Open("/f", kRdWr).value;
  const Fd b = s_.Open("/f", kRdOnly).value;
  EXPECT_EQ(s_.Read(a, 3).second, "012");
  EXPECT_EQ(s_.Read(b, 2).second, "01");
  EXPECT_EQ(s_.Read(a, 3).second, "345");
  EXPECT_EQ(s_.Write(a, "xy").value, 2u);  // at position 6
  EXPECT_EQ(s_.Read(b, 100).second, "2345xy89");
  EXPECT_EQ(s_.Pread(a, 0, 100).second, "012345xy89");
  // Pread does not move the position.
  EXPECT_EQ(s_.Read(a, 100).second, "89");
}

TEST_F(MemFsTest, AppendWritesGoToTheEnd) {
  s_.Put("/f", "abc");
  const Fd ap = s_.Open("/f", kWrOnly | kAppend).value;
  const Fd rw = s_.Open("/f", kRdWr).value;
  EXPECT_EQ(s_.Write(ap, "de").value, 2u);
  EXPECT_EQ(s_.Write(rw, "X").value, 1u);  // at 0
  EXPECT_EQ(s_.Pwrite(ap, 0, "fg").value, 2u);  // O_APPEND wins over the offset (Linux)
  EXPECT_EQ(s_.Write(rw, "Y").value, 1u);  // at 1
  EXPECT_EQ(s_.Write(ap, "h").value, 1u);
  EXPECT_EQ(s_.Get("/f"), "XYcdefgh");
}

TEST_F(MemFsTest, HolesAndSyntheticWrites) {
  const Fd fd = s_.Open("/f", kRdWr | kCreat).value;
  EXPECT_EQ(s_.Pwrite(fd, 10000, "tail").value, 4u);
  FileStat st = s_.Fstat(fd).value;
  EXPECT_EQ(st.size, 10004u);
  EXPECT_EQ(st.blocks, 1u);  // only block 2 is written
  auto [e, head] = s_.Pread(fd, 0, 10000);
  EXPECT_EQ(e, Errno::kOk);
  EXPECT_EQ(head, std::string(10000, '\0'));
  // Synthetic (empty-span) writes allocate blocks; content reads as zeros.
  EXPECT_EQ(s_.PwriteZeros(fd, 0, 8192).value, 8192u);
  EXPECT_EQ(s_.Fstat(fd).value.blocks, 3u);
  EXPECT_EQ(fs_.used_bytes(), 3 * MemFs::kBlockSize);
  // A synthetic write over real data zeroes it.
  EXPECT_EQ(s_.PwriteZeros(fd, 10001, 2).value, 2u);
  EXPECT_EQ(s_.Pread(fd, 10000, 10).second, std::string("t\0\0l", 4));
  // Large synthetic file: no memory for data, sizes and blocks exact.
  const Fd big = s_.Open("/big", kRdWr | kCreat).value;
  EXPECT_EQ(s_.PwriteZeros(big, 0, uint64_t{1} << 30).value, uint64_t{1} << 30);
  EXPECT_EQ(s_.Fstat(big).value.blocks, (uint64_t{1} << 30) / 4096);
  EXPECT_EQ(s_.Pread(big, (uint64_t{1} << 30) - 3, 10).second, std::string(3, '\0'));
}

TEST_F(MemFsTest, TruncateShrinksAndGrows) {
  s_.Put("/f", std::string(9000, 'a'));
  EXPECT_EQ(s_.Stat("/f").value.blocks, 3u);
  ASSERT_TRUE(s_.Truncate("/f", 5000).ok());
  FileStat st = s_.Stat("/f").value;
  EXPECT_EQ(st.size, 5000u);
  EXPECT_EQ(st.blocks, 2u);
  ASSERT_TRUE(s_.Truncate("/f", 12000).ok());
  const std::string all = s_.Get("/f");
  EXPECT_EQ(all, std::string(5000, 'a') + std::string(7000, '\0'));  // the old tail is gone
  EXPECT_EQ(s_.Stat("/f").value.blocks, 2u);
  const Fd fd = s_.Open("/f", kWrOnly).value;
  ASSERT_TRUE(s_.Ftruncate(fd, 0).ok());
  EXPECT_EQ(s_.Stat("/f").value.size, 0u);
  EXPECT_EQ(s_.Stat("/f").value.blocks, 0u);
  EXPECT_EQ(fs_.used_bytes(), 0u);
  ASSERT_TRUE(s_.Mkdir("/d").ok());
  EXPECT_EQ(s_.Truncate("/d", 0).err, Errno::kIsDir);
  EXPECT_EQ(s_.Truncate("/none", 0).err, Errno::kNoEnt);
  EXPECT_EQ(s_.Truncate("/f/", 0).err, Errno::kNotDir);
  // O_TRUNC empties on open.
  s_.Put("/g", "content");
  const Fd g = s_.Open("/g", kRdWr | kTrunc).value;
  EXPECT_EQ(s_.Fstat(g).value.size, 0u);
}

TEST_F(MemFsTest, UnlinkedOpenFileKeepsDataUntilClose) {
  s_.Put("/f", "payload");
  const Fd fd = s_.Open("/f", kRdWr).value;
  const size_t inodes = fs_.inode_count();
  ASSERT_TRUE(s_.Unlink("/f").ok());
  EXPECT_EQ(s_.Stat("/f").err, Errno::kNoEnt);
  EXPECT_EQ(s_.Open("/f", kRdOnly).err, Errno::kNoEnt);
  EXPECT_EQ(s_.Fstat(fd).value.nlink, 0u);
  EXPECT_EQ(s_.Pread(fd, 0, 100).second, "payload");
  EXPECT_TRUE(s_.Pwrite(fd, 7, "!").ok());
  EXPECT_EQ(s_.Pread(fd, 0, 100).second, "payload!");
  EXPECT_EQ(fs_.inode_count(), inodes);
  EXPECT_GT(fs_.used_bytes(), 0u);
  // A new file of the same name is a different file.
  s_.Put("/f", "new");
  EXPECT_EQ(s_.Pread(fd, 0, 100).second, "payload!");
  EXPECT_EQ(s_.Get("/f"), "new");
  ASSERT_TRUE(s_.Close(fd).ok());
  EXPECT_EQ(fs_.inode_count(), inodes);  // old one gone, new one there
  EXPECT_EQ(fs_.used_bytes(), MemFs::kBlockSize);
  EXPECT_EQ(s_.Unlink("/f").err, Errno::kOk);
  EXPECT_EQ(s_.Unlink("/f").err, Errno::kNoEnt);
  EXPECT_EQ(fs_.used_bytes(), 0u);
}

TEST_F(MemFsTest, DirectoriesAndReaddir) {
  ASSERT_TRUE(s_.Mkdir("/d").ok());
  EXPECT_EQ(s_.Mkdir("/d").err, Errno::kExist);
  EXPECT_EQ(s_.Mkdir("/").err, Errno::kExist);
  EXPECT_EQ(s_.Mkdir("/x/y").err, Errno::kNoEnt);
  ASSERT_TRUE(s_.Mkdir("/d/sub/").ok());  // trailing slash allowed for directories
  for (const char* n : {"zeta", "Alpha", "beta", "10", "9", "_u", "a.b"}) s_.Put(std::string("/d/") + n, n);
  FsResult<std::vector<std::string>> ls = s_.Readdir("/d");
  ASSERT_TRUE(ls.ok());
  EXPECT_EQ(ls.value, (std::vector<std::string>{"10", "9", "Alpha", "_u", "a.b", "beta", "sub", "zeta"}));
  EXPECT_EQ(s_.Readdir("/d/zeta").err, Errno::kNotDir);
  EXPECT_EQ(s_.Readdir("/nope").err, Errno::kNoEnt);
  EXPECT_TRUE(s_.Readdir("/d/sub").value.empty());
  EXPECT_EQ(s_.Stat("/d").value.nlink, 3u);  // 2 + one subdirectory
  EXPECT_EQ(s_.Stat("/").value.nlink, 3u);
  EXPECT_TRUE(s_.Stat("/d/sub").value.is_dir);
  // Dots and repeated slashes.
  EXPECT_EQ(s_.Get("//d/./sub/../zeta"), "zeta");
  EXPECT_EQ(s_.Get("/../../d/beta"), "beta");
  EXPECT_EQ(s_.Stat("/d/zeta/..").err, Errno::kNotDir);
  // Removal rules.
  EXPECT_EQ(s_.Rmdir("/d").err, Errno::kNotEmpty);
  EXPECT_EQ(s_.Rmdir("/d/zeta").err, Errno::kNotDir);
  EXPECT_EQ(s_.Unlink("/d/sub").err, Errno::kIsDir);
  EXPECT_EQ(s_.Unlink("/d/zeta/").err, Errno::kNotDir);
  EXPECT_EQ(s_.Rmdir("/").err, Errno::kInval);
  EXPECT_EQ(s_.Rmdir("/d/sub/.").err, Errno::kInval);
  EXPECT_EQ(s_.Rmdir("/nope").err, Errno::kNoEnt);
  ASSERT_TRUE(s_.Rmdir("/d/sub").ok());
  EXPECT_EQ(s_.Stat("/d").value.nlink, 2u);
  for (const std::string& n : s_.Readdir("/d").value) ASSERT_TRUE(s_.Unlink("/d/" + n).ok());
  ASSERT_TRUE(s_.Rmdir("/d/").ok());
  EXPECT_EQ(fs_.inode_count(), 1u);
  EXPECT_TRUE(s_.Readdir("/").value.empty());
}

TEST_F(MemFsTest, RenameRules) {
  s_.Put("/a", "A");
  s_.Put("/b", "B");
  ASSERT_TRUE(s_.Rename("/a", "/b").ok());  // file over file
  EXPECT_EQ(s_.Get("/b"), "A");
  EXPECT_EQ(s_.Stat("/a").err, Errno::kNoEnt);
  ASSERT_TRUE(s_.Rename("/b", "/b").ok());  // onto itself
  EXPECT_EQ(s_.Get("/b"), "A");
  EXPECT_EQ(s_.Rename("/none", "/x").err, Errno::kNoEnt);
  EXPECT_EQ(s_.Rename("/b", "/nodir/x").err, Errno::kNoEnt);
  EXPECT_EQ(s_.Rename("/b", "/c/").err, Errno::kNotDir);
  ASSERT_TRUE(s_.Mkdir("/d1").ok());
  ASSERT_TRUE(s_.Mkdir("/d2").ok());
  ASSERT_TRUE(s_.Mkdir("/d1/in").ok());
  s_.Put("/d1/in/f", "F");
  EXPECT_EQ(s_.Rename("/b", "/d2").err, Errno::kIsDir);
  EXPECT_EQ(s_.Rename("/d2", "/b").err, Errno::kNotDir);
  EXPECT_EQ(s_.Rename("/d2", "/d1").err, Errno::kNotEmpty);
  EXPECT_EQ(s_.Rename("/d1", "/d1/in/deeper").err, Errno::kInval);
  EXPECT_EQ(s_.Rename("/d1", "/d1/in").err, Errno::kInval);
  EXPECT_EQ(s_.Rename("/d1/.", "/z").err, Errno::kInval);
  ASSERT_TRUE(s_.Rename("/d1", "/d2").ok());  // directory over an empty directory
  EXPECT_EQ(s_.Get("/d2/in/f"), "F");
  EXPECT_EQ(s_.Stat("/d1").err, Errno::kNoEnt);
  ASSERT_TRUE(s_.Rename("/d2/in", "/moved").ok());
  EXPECT_EQ(s_.Get("/moved/../moved/f"), "F");
  EXPECT_EQ(s_.Stat("/d2").value.nlink, 2u);
  EXPECT_EQ(s_.Stat("/").value.nlink, 4u);  // d2, moved
  // Replacing an open target: the old file lives on through its descriptor.
  s_.Put("/t", "old");
  s_.Put("/s", "new");
  const Fd fd = s_.Open("/t", kRdOnly).value;
  ASSERT_TRUE(s_.Rename("/s", "/t").ok());
  EXPECT_EQ(s_.Get("/t"), "new");
  EXPECT_EQ(s_.Pread(fd, 0, 10).second, "old");
  EXPECT_EQ(s_.Fstat(fd).value.nlink, 0u);
  ASSERT_TRUE(s_.Close(fd).ok());
  EXPECT_EQ(fs_.used_bytes(), 3 * MemFs::kBlockSize);  // /b, /moved/f, /t
}

TEST_F(MemFsTest, MtimeFollowsChanges) {
  q_.Run(sim::Ms(1));
  s_.Put("/f", "x");
  const sim::SimTime t1 = s_.Stat("/f").value.mtime;
  EXPECT_GE(t1, sim::Ms(1));
  q_.Run(q_.now() + sim::Ms(1));
  EXPECT_EQ(s_.Stat("/f").value.mtime, t1);  // reads and stats do not change it
  s_.Get("/f");
  EXPECT_EQ(s_.Stat("/f").value.mtime, t1);
  const Fd fd = s_.Open("/f", kWrOnly).value;
  const sim::SimTime before = q_.now();
  s_.Write(fd, "y");
  EXPECT_GE(s_.Stat("/f").value.mtime, before);
  EXPECT_GT(s_.Stat("/f").value.mtime, t1);
}

TEST_F(MemFsTest, RegisteredStats) {
  sim::StatsRegistry reg;
  fs_.RegisterStats(reg.Root().Group("memfs"));
  s_.Put("/f", "abcd");
  s_.Get("/f");
  s_.Stat("/missing");
  EXPECT_EQ(reg.Value("memfs.calls.open"), 2);
  EXPECT_EQ(reg.Value("memfs.calls.write"), 1);
  EXPECT_EQ(reg.Value("memfs.calls.read"), 2);
  EXPECT_EQ(reg.Value("memfs.calls.stat"), 1);
  EXPECT_EQ(reg.Value("memfs.errors"), 1);
  EXPECT_EQ(reg.Value("memfs.bytes_written"), 4);
  EXPECT_EQ(reg.Value("memfs.bytes_read"), 4);
  EXPECT_EQ(reg.Value("memfs.used_bytes"), 4096);
  EXPECT_EQ(reg.Value("memfs.inodes"), 2);
}

// Random operations with real data against a trivial model of one file.
TEST_F(MemFsTest, RandomDataMatchesModel) {
  sim::Rng rng(7, "memfs.random");
  std::string model;
  const Fd fd = s_.Open("/f", kRdWr | kCreat).value;
  for (int i = 0; i < 3000; ++i) {
    const uint64_t op = rng.Uniform(10);
    const uint64_t off = rng.Uniform(40000);
    const uint64_t len = rng.Uniform(9000);
    if (op < 5) {
      std::string data(len, '\0');
      for (char& c : data) c = static_cast<char>('a' + rng.Uniform(26));
      const bool zeros = op == 4;
      FsResult<uint64_t> r = zeros ? s_.PwriteZeros(fd, off, len) : s_.Pwrite(fd, off, data);
      ASSERT_TRUE(r.ok());
      if (len == 0) continue;
      if (model.size() < off + len) model.resize(off + len, '\0');
      model.replace(off, len, zeros ? std::string(len, '\0') : data);
    } else if (op < 9) {
      auto [e, got] = s_.Pread(fd, off, len);
      ASSERT_EQ(e, Errno::kOk);
      const std::string want = off >= model.size() ? "" : model.substr(off, len);
      ASSERT_EQ(got, want) << "step " << i;
    } else {
      ASSERT_TRUE(s_.Ftruncate(fd, off).ok());
      model.resize(off, '\0');
    }
    ASSERT_EQ(s_.Fstat(fd).value.size, model.size());
  }
}

// ---------------------------------------------------------------------------
// Limits and timing

MemFsConfig Cfg(std::function<void(MemFsConfig&)> edit) {
  MemFsConfig c = sim::MakeDefault<MemFsConfig>();
  edit(c);
  return c;
}

TEST(MemFsLimitsTest, CapacityGivesNoSpace) {
  sim::EventQueue q;
  MemFs fs(&q, Cfg([](MemFsConfig& c) { c.capacity = sim::KiB(8); }));
  SyncFs s(&q, &fs);
  const Fd fd = s.Open("/f", kRdWr | kCreat).value;
  EXPECT_EQ(s.PwriteZeros(fd, 0, 8192).value, 8192u);
  EXPECT_EQ(s.PwriteZeros(fd, 8192, 1).err, Errno::kNoSpc);
  EXPECT_EQ(s.Fstat(fd).value.size, 8192u);  // nothing written
  EXPECT_EQ(s.PwriteZeros(fd, 100, 5000).value, 5000u);  // overwrites need no new space
  s.Put("/g", "");  // empty files cost nothing
  ASSERT_TRUE(s.Ftruncate(fd, 4096).ok());
  EXPECT_TRUE(s.PwriteZeros(fd, 4096, 4096).ok());
}

TEST(MemFsLimitsTest, MaxFileSizeAndDirectIo) {
  sim::EventQueue q;
  MemFs fs(&q, Cfg([](MemFsConfig& c) { c.max_file_size = sim::MiB(1); }));
  SyncFs s(&q, &fs);
  const Fd fd = s.Open("/f", kRdWr | kCreat).value;
  EXPECT_EQ(s.PwriteZeros(fd, (1 << 20) - 1, 2).err, Errno::kFBig);
  EXPECT_TRUE(s.PwriteZeros(fd, (1 << 20) - 1, 1).ok());
  EXPECT_EQ(s.Ftruncate(fd, (1 << 20) + 1).err, Errno::kFBig);
  const Fd d = s.Open("/f", kRdWr | kDirect).value;
  EXPECT_EQ(s.PwriteZeros(d, 512, 4096).err, Errno::kInval);
  EXPECT_EQ(s.PwriteZeros(d, 0, 100).err, Errno::kInval);
  EXPECT_TRUE(s.PwriteZeros(d, 4096, 8192).ok());
  EXPECT_EQ(s.Pread(d, 1, 4096).first, Errno::kInval);
  EXPECT_EQ(s.Pread(d, 0, 4096).first, Errno::kOk);
}

TEST(MemFsTimingTest, ServiceTimesFollowTheConfig) {
  sim::EventQueue q;
  MemFs fs(&q, Cfg([](MemFsConfig& c) {
             c.open_latency = sim::Us(10);
             c.write_latency = sim::Us(5);
             c.write_bandwidth = sim::Bandwidth{1e9};  // 1 GB/s: 1 ns per byte
             c.read_latency = sim::Us(3);
             c.fsync_latency = sim::Us(100);
           }));
  SyncFs s(&q, &fs);
  const Fd fd = s.Open("/f", kRdWr | kCreat).value;
  EXPECT_EQ(q.now(), sim::Us(10));
  s.PwriteZeros(fd, 0, 4000);
  EXPECT_EQ(q.now(), sim::Us(10) + sim::Us(5) + sim::Us(4));
  s.Pread(fd, 0, 100);  // no read bandwidth configured: latency only
  EXPECT_EQ(q.now(), sim::Us(22));
  const Fd sync_fd = s.Open("/f", kWrOnly | kSync).value;
  const sim::SimTime t0 = q.now();
  s.PwriteZeros(sync_fd, 0, 1000);
  EXPECT_EQ(q.now() - t0, sim::Us(5) + sim::Us(1) + sim::Us(100));
  s.Fsync(fd);
  EXPECT_EQ(q.now() - t0, sim::Us(5) + sim::Us(1) + sim::Us(200));
}

sim::Task<void> TimedRead(FileSystem* fs, Fd fd, sim::EventQueue* q, std::vector<sim::SimTime>* done) {
  uint8_t buf[16];
  co_await fs->Pread(fd, 0, std::span<uint8_t>(buf, 16));
  done->push_back(q->now());
}

TEST(MemFsTimingTest, ParallelismLimitsCallsInService) {
  for (uint32_t par : {0u, 1u, 2u}) {
    sim::EventQueue q;
    MemFs fs(&q, Cfg([par](MemFsConfig& c) {
               c.read_latency = sim::Us(10);
               c.parallelism = par;
             }));
    SyncFs s(&q, &fs);
    s.Put("/f", "data");
    const Fd fd = s.Open("/f", kRdOnly).value;
    const sim::SimTime t0 = q.now();
    std::vector<sim::SimTime> done;
    for (int i = 0; i < 4; ++i) sim::Spawn(&q, TimedRead(&fs, fd, &q, &done));
    q.Run();
    ASSERT_EQ(done.size(), 4u);
    std::vector<sim::SimTime> want;
    for (int i = 0; i < 4; ++i) {
      const int64_t wave = par == 0 ? 1 : i / static_cast<int>(par) + 1;
      want.push_back(t0 + sim::Us(10) * wave);
    }
    EXPECT_EQ(done, want) << "parallelism " << par;
    EXPECT_EQ(fs.calls_in_service(), 0u);
  }
}

TEST(MemFsConfigTest, InClassValuesEqualDeclaredDefaults) {
  const MemFsConfig plain;
  const MemFsConfig declared = sim::MakeDefault<MemFsConfig>();
  EXPECT_EQ(sim::DumpYaml(sim::SchemaOf<MemFsConfig>(), &plain), sim::DumpYaml(sim::SchemaOf<MemFsConfig>(), &declared));
}

TEST(MemFsConfigTest, DefaultsAreSane) {
  const MemFsConfig c = sim::MakeDefault<MemFsConfig>();
  EXPECT_EQ(c.open_latency, sim::Us(2));
  EXPECT_EQ(c.fsync_latency, sim::Us(20));
  EXPECT_EQ(c.parallelism, 0u);
  EXPECT_EQ(c.capacity.value, 0u);
  EXPECT_EQ(c.max_file_size.value, uint64_t{4} << 40);
  EXPECT_EQ(c.direct_io_alignment.value, 4096u);
}

// A file system without transactions refuses every transaction call with
// EOPNOTSUPP (FileSystem's defaults) and its files stay ordinary.
TEST_F(MemFsTest, RefusesTransactions) {
  FsResult<Fd> fd = s_.Open("/a", kRdWr | kCreat);
  ASSERT_TRUE(fd.ok());
  EXPECT_EQ(testing::RunToEnd(&q_, fs_.TxAdd(0, fd.value)).err, Errno::kNotSup);
  EXPECT_EQ(testing::RunToEnd(&q_, fs_.TxStart(1)).err, Errno::kNotSup);
  EXPECT_EQ(testing::RunToEnd(&q_, fs_.TxCommit(1)).err, Errno::kNotSup);
  EXPECT_EQ(testing::RunToEnd(&q_, fs_.TxEnd(1)).err, Errno::kNotSup);
  EXPECT_EQ(testing::RunToEnd(&q_, fs_.AtomicWriteStart(fd.value)).err, Errno::kNotSup);
  EXPECT_EQ(testing::RunToEnd(&q_, fs_.AtomicWriteCommit(fd.value)).err, Errno::kNotSup);
  EXPECT_EQ(testing::RunToEnd(&q_, fs_.AtomicWriteAbort(fd.value)).err, Errno::kNotSup);
  EXPECT_EQ(ErrnoName(Errno::kNotSup), "EOPNOTSUPP");
  EXPECT_EQ(s_.Write(fd.value, "x").value, 1u);
  EXPECT_EQ(s_.Pread(fd.value, 0, 10).second, "x");
}

}  // namespace
}  // namespace fs
