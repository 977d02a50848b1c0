// End to end: the shared real samples replayed through a real small SSD
// (NAND array + page-mapped FTL + host interface) on one clock.
#include <algorithm>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "ftl/allocator.h"
#include "ftl/ftl_config.h"
#include "ftl/ftl_factory.h"
#include "ftl/page_ftl.h"
#include "host/replay/replay_test_util.h"
#include "flash/nand_array.h"
#include "ssd/device_config.h"
#include "ssd/ssd.h"

namespace host {
namespace {

using testing::SharedTracePath;

// 2 channels x 2 chips x 1 die x 2 planes x 256 blocks x 64 pages of 4 KiB
// (256 MiB raw), the default flash timings, no write buffer, preconditioned.
struct SmallSsd {
  SmallSsd() {
    device = sim::MakeDefault<ssd::DeviceConfig>();
    device.geometry.channels = 2;
    device.geometry.chips_per_channel = 2;
    device.geometry.dies_per_chip = 1;
    device.geometry.planes_per_die = 2;
    device.geometry.blocks_per_plane = 256;
    device.geometry.pages_per_block = 64;
    device.geometry.page_size = sim::KiB(4);
    device.ssd.queues = 4;
    ftl_cfg = sim::MakeDefault<ftl::FtlConfig>();
    ftl_cfg.op = sim::Ratio{0.15};
    // Every logical page mapped (and some overwritten), so reads go to flash.
    ftl_cfg.precondition.enabled = true;
    ftl_cfg.precondition.fill_fraction = 1.0;
    ftl_cfg.precondition.random_overwrites = 0.5;
  }
  sim::Status Build() {
    FS_RETURN_IF_ERROR(device.Validate());
    FS_RETURN_IF_ERROR(ftl_cfg.Validate(device.geometry));
    sim::StatGroup root = stats.Root();
    nand = std::make_unique<flash::NandArray>(&queue, device.geometry, device.flash, root.Group("flash"));
    FS_ASSIGN_OR_RETURN(ftl, ftl::MakeFtl(ftl_cfg, nand.get(), &queue, root.Group("ftl")));
    ssd = std::make_unique<ssd::Ssd>(&queue, device.ssd, device.geometry, ftl.get(), root.Group("ssd"));
    return sim::Status::Ok();
  }
  ~SmallSsd() { queue.Clear(); }

  ssd::DeviceConfig device;
  ftl::FtlConfig ftl_cfg;
  sim::EventQueue queue;
  sim::StatsRegistry stats;
  std::unique_ptr<flash::NandArray> nand;
  std::unique_ptr<ftl::Ftl> ftl;
  std::unique_ptr<ssd::Ssd> ssd;
};

struct Sample {
  const char* file;
  uint64_t records;
  uint64_t reads;
  uint64_t writes;
};

class SsdReplayTest : public ::testing::TestWithParam<std::tuple<Sample, const char*>> {};

TEST_P(SsdReplayTest, SharedSampleRunsThroughARealSsd) {
  const auto& [sample, mode] = GetParam();
  SmallSsd dev;
  ASSERT_TRUE(dev.Build().ok());
  TraceReplayConfig cfg = sim::MakeDefault<TraceReplayConfig>();
  cfg.path = SharedTracePath(sample.file);
  cfg.mode = mode;
  cfg.iodepth = 64;
  cfg.fit = "scale";
  TraceReplayer::Env env{&dev.queue, dev.ssd.get(), dev.stats.Root().Group("workload"), 1, dev.device.ssd.queues};
  auto made = TraceReplayer::Create(cfg, env, "", "workload.trace");
  ASSERT_TRUE(made.ok()) << made.status().message();
  TraceReplayer& r = **made;
  r.Start();
  dev.queue.Run();
  ASSERT_TRUE(r.done()) << r.Report();
  ASSERT_TRUE(r.status().ok()) << r.status().message();

  EXPECT_EQ(r.issued(), sample.records);
  EXPECT_EQ(r.completed(), sample.records);
  EXPECT_EQ(dev.ssd->requests_completed(), sample.records);
  EXPECT_EQ(r.op_stats(ssd::BlockOp::kRead).ios.value(), sample.reads);
  EXPECT_EQ(r.op_stats(ssd::BlockOp::kWrite).ios.value(), sample.writes);
  for (ssd::BlockOp op : {ssd::BlockOp::kRead, ssd::BlockOp::kWrite}) {
    const TraceReplayer::OpStats& s = r.op_stats(op);
    EXPECT_GT(s.device_lat.min(), 0) << static_cast<int>(op);
    EXPECT_GE(s.lat.min(), s.device_lat.min());
    // Both are bounded by the replay itself (no wrapped or absurd values),
    // and the device time by the run's length, well under a minute here.
    EXPECT_LE(s.device_lat.max(), s.lat.max());
    EXPECT_LE(s.lat.max(), (r.end_time() - r.start_time()).ns());
    EXPECT_LT(r.end_time() - r.start_time(), r.trace_time() + sim::Sec(60));
  }
  // A write can be no faster than one page program.
  sim::SimTime min_prog = dev.device.flash.timing.t_prog;
  for (sim::SimTime t : {dev.device.flash.timing.t_prog_csb, dev.device.flash.timing.t_prog_msb}) {
    if (t > sim::SimTime::Zero()) min_prog = std::min(min_prog, t);
  }
  EXPECT_GE(r.op_stats(ssd::BlockOp::kWrite).device_lat.min(), min_prog.ns());
  // Every read goes to a mapped page on flash.
  sim::SimTime min_read = dev.device.flash.timing.t_read;
  for (sim::SimTime t : {dev.device.flash.timing.t_read_csb, dev.device.flash.timing.t_read_msb}) {
    if (t > sim::SimTime::Zero()) min_read = std::min(min_read, t);
  }
  EXPECT_GE(r.op_stats(ssd::BlockOp::kRead).device_lat.min(), min_read.ns());
  EXPECT_GT(r.Iops(), 0.0);
  EXPECT_EQ(dev.stats.Value("workload.ios_total"), static_cast<double>(sample.records));
  if (std::string(mode) == "open") {
    EXPECT_GE(r.end_time() - r.start_time(), r.trace_time());
  }
}

INSTANTIATE_TEST_SUITE_P(
    Samples, SsdReplayTest,
    ::testing::Combine(::testing::Values(Sample{"block/msr-cambridge1-sample.csv", 1000, 508, 492},
                                         Sample{"block/blkparse-output.txt", 673, 161, 512},
                                         Sample{"mqsim/tpcc-small.trace", 6999, 4381, 2618}),
                       ::testing::Values("open", "closed")),
    [](const auto& info) {
      std::string f = std::get<0>(info.param).file;
      f = f.substr(f.find('/') + 1);
      f = f.substr(0, f.find('.'));
      for (char& c : f) {
        if (c == '-') c = '_';
      }
      return f + "_" + std::get<1>(info.param);
    });

// Regression: the blkparse sample's 256 KiB sequential writes, scaled onto a
// 2 ch x 1 chip x 2 planes x 32 blocks x 64 pages device, overlap so that
// the last copy of most pages lands on one plane under page striping. That
// plane filled with valid data, its foreground GC found only fully valid
// victims and the FTL aborted, although the device had spare space.
TEST(SsdReplaySkew, ScaledBlkparseOnATinyDeviceCompletes) {
  for (const std::string& allocation : ftl::AllocatorNames()) {
    for (const double op : {0.20, 0.24, 0.28, 0.5}) {
      for (const char* mode : {"open", "closed"}) {
        const std::string what = allocation + " op=" + std::to_string(op) + " " + mode;
        SmallSsd dev;
        dev.device.geometry.channels = 2;
        dev.device.geometry.chips_per_channel = 1;
        dev.device.geometry.planes_per_die = 2;
        dev.device.geometry.blocks_per_plane = 32;
        dev.device.ssd.queues = 1;
        dev.ftl_cfg.op = sim::Ratio{op};
        dev.ftl_cfg.allocation = allocation;
        dev.ftl_cfg.precondition.enabled = false;
        ASSERT_TRUE(dev.Build().ok()) << what;
        TraceReplayConfig cfg = sim::MakeDefault<TraceReplayConfig>();
        cfg.path = SharedTracePath("block/blkparse-output.txt");
        cfg.mode = mode;
        cfg.fit = "scale";
        TraceReplayer::Env env{&dev.queue, dev.ssd.get(), dev.stats.Root().Group("workload"), 1,
                               dev.device.ssd.queues};
        auto made = TraceReplayer::Create(cfg, env, "", "workload.trace");
        ASSERT_TRUE(made.ok()) << made.status().message();
        TraceReplayer& r = **made;
        r.Start();
        dev.queue.Run();
        ASSERT_TRUE(r.done()) << what << ": " << r.Report();
        ASSERT_TRUE(r.status().ok()) << what << ": " << r.status().message();
        EXPECT_EQ(r.completed(), 673u) << what;
        EXPECT_GE(dev.stats.Value("ftl.host_writes"), 512.0 * 64) << what << ": 512 writes of 256 KiB";
        const auto* page_ftl = dynamic_cast<const ftl::PageFtl*>(dev.ftl.get());
        ASSERT_NE(page_ftl, nullptr);
        EXPECT_EQ(page_ftl->CheckConsistency(), "") << what;
      }
    }
  }
}

}  // namespace
}  // namespace host
