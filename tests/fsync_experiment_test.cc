// The seed-001 fsync experiment, scaled down: on a device fast enough that
// the workload is not device-bound, the per-file dirty node list visits
// fewer node pages than the kernel's scan and lowers fsync latency.
#include "tests/fsync_experiment.h"

#include <gtest/gtest.h>

#include "tests/fakes/fixed_latency_device.h"

namespace fs::f2fs {
namespace {

FsyncExperimentResult RunOnce(const char* lookup, double bandwidth, sim::SimTime latency) {
  sim::EventQueue q;
  FsyncExperimentSpec s;
  s.fs = sim::MakeDefault<F2fsConfig>();
  s.fs.fsync_node_lookup = lookup;
  s.workload = Seed001Workload(4, 256ull << 20, 2048);
  s.volume_bytes = 2ull << 30;
  fakes::FixedLatencyDeviceConfig dc;
  dc.capacity = s.volume_bytes;
  dc.write_latency = latency;
  dc.flush_latency = latency;
  dc.bandwidth_bytes_per_sec = bandwidth;
  fakes::FixedLatencyDevice dev(&q, dc);
  sim::StatsRegistry stats;
  return RunFsyncExperiment(s, &q, &dev, &stats);
}

TEST(FsyncExperimentTest, PerFileDirtyNodeListLowersFsyncLatencyOnAFastDevice) {
  const FsyncExperimentResult scan = RunOnce("scan", 20e9, sim::Us(10));
  const FsyncExperimentResult list = RunOnce("list", 20e9, sim::Us(10));
  ASSERT_TRUE(scan.ok) << scan.error;
  ASSERT_TRUE(list.ok) << list.error;
  EXPECT_EQ(scan.fsyncs, 4u * 2048 / 32);
  // The scan visits the other jobs' dirty dnodes too; the list only the file's.
  EXPECT_GT(scan.visited_mean, 2 * list.visited_mean);
  EXPECT_NEAR(list.visited_mean, list.nodes_written_per_fsync, 1.0);
  EXPECT_LT(list.fsync.mean(), scan.fsync.mean() * 0.9);
  EXPECT_LT(list.fsync_node_mean_ns, scan.fsync_node_mean_ns);
}

TEST(FsyncExperimentTest, NoDifferenceWhenTheDeviceIsTheBottleneck) {
  const FsyncExperimentResult scan = RunOnce("scan", 1e9, sim::Us(50));
  const FsyncExperimentResult list = RunOnce("list", 1e9, sim::Us(50));
  ASSERT_TRUE(scan.ok && list.ok);
  EXPECT_GT(scan.visited_mean, 2 * list.visited_mean);
  EXPECT_NEAR(list.fsync.mean(), scan.fsync.mean(), scan.fsync.mean() * 0.03);
}

}  // namespace
}  // namespace fs::f2fs
