// The shared real traces replay end to end through a fake device: every
// record is issued and completed, and the read/write mix equals the file's.
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "host/replay/replay_test_util.h"

namespace host {
namespace {

using testing::ReplayBench;
using testing::SharedTracePath;

struct Sample {
  const char* file;
  uint64_t records;
  uint64_t reads;
  uint64_t writes;
  int64_t duration_ns;  // first to last record (trace-info)
};

const Sample kSamples[] = {
    {"block/msr-cambridge1-sample.csv", 1000, 508, 492, 127233494100},
    {"block/blkparse-output.txt", 673, 161, 512, -1},  // first D event is not the file's first timed line
    {"mqsim/tpcc-small.trace", 6999, 4381, 2618, 136489000},
};

struct Mode {
  const char* mode;
  const char* fit;
  const char* layout;
};

class SharedSampleReplayTest : public ::testing::TestWithParam<std::tuple<Sample, Mode>> {};

TEST_P(SharedSampleReplayTest, IssuesEveryRecordWithTheFilesMix) {
  const auto& [sample, mode] = GetParam();
  TraceReplayConfig cfg = sim::MakeDefault<TraceReplayConfig>();
  cfg.path = SharedTracePath(sample.file);
  cfg.mode = mode.mode;
  cfg.fit = mode.fit;
  cfg.volume_layout = mode.layout;
  cfg.iodepth = 16;
  ReplayBench bench(uint64_t{256} << 20, 512, 4096, sim::Us(100));
  bench.device.set_keep_log(false);
  auto made = TraceReplayer::Create(cfg, bench.MakeEnv());
  ASSERT_TRUE(made.ok()) << made.status().message();
  TraceReplayer& r = **made;
  bench.Run(&r);
  ASSERT_TRUE(r.done());
  ASSERT_TRUE(r.status().ok()) << r.status().message();
  EXPECT_EQ(bench.device.violations(), 0u);
  EXPECT_EQ(r.records_read(), sample.records);
  EXPECT_EQ(r.issued(), sample.records);
  EXPECT_EQ(r.completed(), sample.records);
  EXPECT_EQ(r.op_stats(ssd::BlockOp::kRead).ios.value(), sample.reads);
  EXPECT_EQ(r.op_stats(ssd::BlockOp::kWrite).ios.value(), sample.writes);
  EXPECT_EQ(r.skipped_malformed() + r.skipped_volume() + r.skipped_window() + r.skipped_op(), 0u);
  EXPECT_TRUE(r.reader_errors().empty());
  EXPECT_EQ(r.op_stats(ssd::BlockOp::kRead).device_lat.min(), sim::Us(100).ns());
  EXPECT_EQ(r.op_stats(ssd::BlockOp::kRead).device_lat.max(), sim::Us(100).ns());
  if (sample.duration_ns > 0) {
    EXPECT_EQ(r.trace_time().ns(), sample.duration_ns);
  }
  if (std::string(mode.mode) == "open") {
    EXPECT_GE(r.end_time() - r.start_time(), r.trace_time());
  } else {
    EXPECT_EQ(r.outstanding_max(), 16u);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Samples, SharedSampleReplayTest,
    ::testing::Combine(::testing::ValuesIn(kSamples),
                       ::testing::Values(Mode{"open", "wrap", "overlay"}, Mode{"closed", "wrap", "overlay"},
                                         Mode{"closed", "scale", "split"}, Mode{"open", "compact", "split"})),
    [](const auto& info) {
      const Sample& s = std::get<0>(info.param);
      const Mode& m = std::get<1>(info.param);
      std::string name = std::string(s.file).substr(std::string(s.file).find('/') + 1);
      name = name.substr(0, name.find('.')) + "_" + m.mode + "_" + m.fit + "_" + m.layout;
      for (char& c : name) {
        if (c == '-') c = '_';
      }
      return name;
    });

TEST(SharedSampleReplayTest, ScaleKeepsTheTpccVolumesApart) {
  // 16 MQSim devices side by side, each trace volume scaled into its 16 MiB.
  TraceReplayConfig cfg = sim::MakeDefault<TraceReplayConfig>();
  cfg.path = SharedTracePath("mqsim/tpcc-small.trace");
  cfg.mode = "closed";
  cfg.fit = "scale";
  cfg.volume_layout = "split";
  ReplayBench bench(uint64_t{256} << 20);
  auto made = TraceReplayer::Create(cfg, bench.MakeEnv());
  ASSERT_TRUE(made.ok()) << made.status().message();
  bench.Run(made->get());
  const AddressMap& map = (*made)->address_map();
  ASSERT_EQ(map.regions().size(), 16u);
  for (size_t i = 0; i < 16; ++i) {
    EXPECT_EQ(map.regions()[i].volume, i);
    EXPECT_EQ(map.regions()[i].size, uint64_t{16} << 20);
    EXPECT_GT(map.regions()[i].span, map.regions()[i].size);  // really scaled down
  }
  EXPECT_EQ((*made)->completed(), 6999u);
  EXPECT_EQ(bench.device.violations(), 0u);
}

TEST(SharedSampleReplayTest, VolumeSelectionOnTpcc) {
  TraceReplayConfig cfg = sim::MakeDefault<TraceReplayConfig>();
  cfg.path = SharedTracePath("mqsim/tpcc-small.trace");
  cfg.mode = "closed";
  cfg.volumes = {"0", "1"};
  cfg.fit = "wrap";  // the sample's offsets reach past the bench device
  ReplayBench bench;
  auto made = TraceReplayer::Create(cfg, bench.MakeEnv());
  ASSERT_TRUE(made.ok()) << made.status().message();
  bench.Run(made->get());
  // trace-info: device 0 has 437 records, device 1 461.
  EXPECT_EQ((*made)->issued(), 437u + 461u);
  EXPECT_EQ((*made)->skipped_volume(), 6999u - 437 - 461);
}

}  // namespace
}  // namespace host
