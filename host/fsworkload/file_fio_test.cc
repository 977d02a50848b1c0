#include "host/fsworkload/file_fio.h"

#include <map>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fs/memfs/mem_fs_test_util.h"
#include "host/fsworkload/fsworkload_test_util.h"

namespace host {
namespace {

using ::testing::HasSubstr;
using testing::RecordingFs;
using testing::Rig;

FileFioConfig Fio() { return sim::MakeDefault<FileFioConfig>(); }

struct FioRig {
  Rig rig;
  RecordingFs rec{&rig.memfs};
  std::unique_ptr<FileFioWorkload> Make(const FileFioConfig& c, uint64_t seed = 1) {
    FsWorkloadEnv env = rig.Env(seed);
    env.fs = &rec;
    auto w = FileFioWorkload::Create(c, env, "workload.fio_files");
    EXPECT_TRUE(w.ok()) << w.status().message();
    return w.ok() ? std::move(w).value() : nullptr;
  }
  // Measured positional I/Os (the layout writes come first, in 1 MiB).
  std::vector<RecordingFs::Io> Measured(uint64_t bs) const {
    std::vector<RecordingFs::Io> out;
    for (const RecordingFs::Io& io : rec.ios) {
      if (io.length == bs) out.push_back(io);
    }
    return out;
  }
};

// The seed-001 setting: 4 KiB random writes, 4 jobs, one 2 GiB file, fsync
// every 32 writes.
TEST(FileFioTest, SeedSettingRandomWritesWithPeriodicFsync) {
  FioRig f;
  FileFioConfig c = Fio();
  c.rw = "randwrite";
  c.bs = sim::KiB(4);
  c.numjobs = 4;
  c.size = sim::GiB(2);
  c.shared_file = true;
  c.fsync = 32;
  c.total_ios = 32000;
  auto w = f.Make(c);
  ASSERT_TRUE(f.rig.Run(*w));
  ASSERT_TRUE(w->run_status().ok()) << w->run_status().message();
  EXPECT_EQ(f.rig.OpCount("write"), 32000u);
  EXPECT_EQ(f.rig.Stat("workload.bytes_written"), 32000.0 * 4096);
  // Each job fsyncs after its 32nd, 64th, ... write: 8000 writes each.
  EXPECT_EQ(f.rig.OpCount("fsync"), 1000u);
  EXPECT_EQ(f.rig.Stat("workload.fsyncs"), 1000);
  const auto ios = f.Measured(4096);
  ASSERT_EQ(ios.size(), 32000u);
  double mean = 0;
  for (const auto& io : ios) {
    EXPECT_EQ(io.offset % 4096, 0u);
    EXPECT_LT(io.offset, uint64_t{2} << 30);
    EXPECT_TRUE(io.write);
    EXPECT_EQ(io.fd, ios[0].fd);  // one shared file
    mean += static_cast<double>(io.offset) / ios.size();
  }
  EXPECT_NEAR(mean, 1 << 30, (1 << 30) * 0.02);
  // The file was laid out before (unmeasured): 2 GiB of blocks.
  EXPECT_EQ(f.rig.memfs.used_bytes(), uint64_t{2} << 30);
  EXPECT_EQ(f.rig.Stat("workload.fs.pwrite.calls"), 32000);
  EXPECT_EQ(f.rig.memfs.open_fd_count(), 0u);
}

TEST(FileFioTest, SequentialJobsWrapInTheirFiles) {
  FioRig f;
  FileFioConfig c = Fio();
  c.rw = "write";
  c.bs = sim::KiB(64);
  c.numjobs = 2;
  c.size = sim::MiB(1);
  c.total_ios = 40;
  c.layout = false;
  auto w = f.Make(c);
  ASSERT_TRUE(f.rig.Run(*w));
  EXPECT_NE(w->file_of(0), w->file_of(1));
  std::map<fs::Fd, std::vector<uint64_t>> by_fd;
  for (const auto& io : f.Measured(64 << 10)) by_fd[io.fd].push_back(io.offset);
  ASSERT_EQ(by_fd.size(), 2u);
  for (const auto& [fd, offs] : by_fd) {
    ASSERT_EQ(offs.size(), 20u);
    for (size_t i = 0; i < offs.size(); ++i) EXPECT_EQ(offs[i], (i % 16) * (64u << 10));  // 16 blocks, then wrap
  }
  fs::testing::SyncFs s(&f.rig.q, &f.rig.memfs);
  EXPECT_EQ(s.Stat(w->file_of(0)).value.size, 1u << 20);
}

TEST(FileFioTest, SharedSequentialJobsStartAtTheirStripe) {
  FioRig f;
  FileFioConfig c = Fio();
  c.rw = "read";
  c.bs = sim::KiB(4);
  c.numjobs = 4;
  c.size = sim::MiB(4);
  c.shared_file = true;
  c.total_ios = 8;
  auto w = f.Make(c);
  ASSERT_TRUE(f.rig.Run(*w));
  std::vector<uint64_t> firsts;
  for (const auto& io : f.Measured(4096)) {
    if (firsts.size() < 4) firsts.push_back(io.offset);
  }
  EXPECT_EQ(firsts, (std::vector<uint64_t>{0, 1 << 20, 2 << 20, 3 << 20}));
  EXPECT_EQ(f.rig.Stat("workload.bytes_read"), 8 * 4096);
}

TEST(FileFioTest, MixedReadsFollowRwmixread) {
  FioRig f;
  FileFioConfig c = Fio();
  c.rw = "randrw";
  c.rwmixread = sim::Ratio{0.7};
  c.size = sim::MiB(64);
  c.numjobs = 3;
  c.total_ios = 20000;
  c.fdatasync = 100;
  c.end_fsync = true;
  auto w = f.Make(c);
  ASSERT_TRUE(f.rig.Run(*w));
  const double reads = static_cast<double>(f.rig.OpCount("read"));
  const double writes = static_cast<double>(f.rig.OpCount("write"));
  EXPECT_EQ(reads + writes, 20000);
  EXPECT_NEAR(reads / 20000, 0.7, 0.015);
  EXPECT_NEAR(static_cast<double>(f.rig.OpCount("fdatasync")), writes / 100, 3);
  EXPECT_EQ(f.rig.OpCount("fsync"), 3u);  // end_fsync, one per job
}

TEST(FileFioTest, NumberIosBoundsEachJob) {
  FioRig f;
  FileFioConfig c = Fio();
  c.rw = "randwrite";
  c.size = sim::MiB(4);
  c.numjobs = 3;
  c.number_ios = 64;
  c.fsync = 32;
  c.layout = false;
  c.think_time = sim::Us(10);
  auto w = f.Make(c);
  ASSERT_TRUE(f.rig.Run(*w));
  std::map<fs::Fd, uint64_t> by_fd;
  for (const auto& io : f.Measured(4096)) ++by_fd[io.fd];
  EXPECT_EQ(by_fd.size(), 3u);
  for (const auto& [fd, n] : by_fd) EXPECT_EQ(n, 64u) << "fd " << fd;
  EXPECT_EQ(f.rig.OpCount("fsync"), 3u * 2);
  // With a smaller total, the total ends the run first.
  FioRig g;
  c.total_ios = 100;
  auto w2 = g.Make(c);
  ASSERT_TRUE(g.rig.Run(*w2));
  EXPECT_EQ(g.rig.OpCount("write"), 100u);
}

TEST(FileFioTest, RateAndRuntimeBoundTheRun) {
  FioRig f;
  FileFioConfig c = Fio();
  c.rw = "randread";
  c.size = sim::MiB(16);
  c.numjobs = 2;
  c.rate_iops = 1000;
  c.runtime = sim::Ms(100);
  auto w = f.Make(c);
  ASSERT_TRUE(f.rig.Run(*w));
  // I/O k of a job is due at k ms: 0..99 within the 100 ms run.
  EXPECT_EQ(f.rig.OpCount("read"), 200u);
  EXPECT_NEAR(w->measured_seconds(), 0.1, 0.0001);
}

TEST(FileFioTest, ValidationNamesTheKey) {
  FileFioConfig c = Fio();
  c.total_ios = 1;
  c.size = sim::Bytes{100};
  EXPECT_THAT(c.Validate("workload.fio_files").message(), HasSubstr("workload.fio_files.size: 100 bytes is smaller than bs"));
  c = Fio();
  EXPECT_THAT(c.Validate("w").message(), HasSubstr("w.runtime: set total_ios, number_ios, io_size or runtime"));
  c.number_ios = 1;
  EXPECT_TRUE(c.Validate("w").ok());
  c.total_ios = 1;
  c.directory = "rel";
  EXPECT_THAT(c.Validate("w").message(), HasSubstr("w.directory: must be an absolute path"));
  c = Fio();
  c.total_ios = 1;
  c.direct = true;
  c.bs = sim::Bytes{1000};
  EXPECT_THAT(c.Validate("w").message(), HasSubstr("w.bs: O_DIRECT needs bs aligned"));
  c.bs = sim::KiB(4);
  EXPECT_TRUE(c.Validate().ok());
}

}  // namespace
}  // namespace host
