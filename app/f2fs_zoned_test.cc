// F2FS's zoned mode on the ZNS device (fs/f2fs with a device whose
// layout().zoned is set; configs/examples/f2fs_zns.yaml): whole runs on the
// real device, which refuses any write not at a zone's write pointer.
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "app/experiment.h"
#include "app/experiment_test_util.h"

namespace app {
namespace {

using testing::Make;
using testing::Validate;

constexpr char kConfig[] = "configs/examples/f2fs_zns.yaml";

// Random overwrites of a file filling most of the volume: F2FS cleans, and
// every section it frees goes back to the device as a Zone Reset; the
// device refuses nothing and copies nothing itself (the cleaning is the
// host's).
TEST(F2fsZonedTest, CleaningResetsZonesAndTheDeviceRefusesNothing) {
  std::unique_ptr<Experiment> e =
      Make(kConfig, {"workload.kind=fio_files", "workload.fio_files.size=640MiB", "workload.fio_files.bs=8KiB",
                     "workload.fio_files.fsync=64", "workload.fio_files.total_ios=50000"});
  ASSERT_NE(e, nullptr);
  const RunReport r = e->Run(false);
  EXPECT_FALSE(r.stalled);
  const sim::StatsRegistry& st = e->stats();
  EXPECT_EQ(e->FailedRequests(), 0u) << e->Summary();
  EXPECT_EQ(st.Value("ftl.zns.errors.invalid_write") + st.Value("ftl.zns.errors.boundary") +
                st.Value("ftl.zns.errors.too_many_open") + st.Value("ftl.zns.errors.too_many_active"),
            0.0);
  EXPECT_GT(st.Value("fs.gc.victims_fg") + st.Value("fs.gc.victims_bg"), 0.0);
  EXPECT_GT(st.Value("fs.io.zone_resets"), 0.0);
  EXPECT_EQ(st.Value("fs.io.zone_resets"), st.Value("ftl.zns.commands.reset"));
  EXPECT_EQ(st.Value("ftl.gc_copies"), 0.0);
  EXPECT_GT(st.Value("fs.write_amplification"), 1.0);  // cleaning's copies, on the host
  EXPECT_LE(st.Value("ftl.zns.open_zones"), 14.0);
}

// A zone whose capacity is below its size: F2FS writes only the usable
// segments of each section (f2fs_usable_segs_in_sec), never the gap.
TEST(F2fsZonedTest, ZoneCapacityBelowSizeIsNeverWrittenPast) {
  std::unique_ptr<Experiment> e =
      Make(kConfig, {"ftl.zns.zone_size=4MiB", "ftl.zns.zone_capacity=2MiB", "fs.f2fs.mkfs.segs_per_sec=2",
                     "workload.filebench.nfiles=1500", "workload.filebench.run_time=2s"});
  ASSERT_NE(e, nullptr);
  e->Run(false);
  EXPECT_EQ(e->FailedRequests(), 0u) << e->Summary();
  EXPECT_EQ(e->stats().Value("ftl.zns.errors.boundary"), 0.0);
  EXPECT_GT(e->stats().Value("ftl.host_writes"), 10000.0);
}

// Random power cuts on the zoned volume: the mount checks each log against
// its zone's write pointer, and nothing acknowledged is lost.
TEST(F2fsZonedTest, PowerCutsRecover) {
  for (const std::string& durability : {"checkpoint"}) {
    // Varmail's 200 files are laid out in about 160 ms on this device (a
    // log's zone is on one die).
    std::unique_ptr<Experiment> e =
        Make(kConfig, {"fs.f2fs.durability=" + durability,
                       "workload.filebench.personality=varmail", "workload.filebench.nfiles=200", "run.max_time=3s",
                       "run.power_cut.when=random", "run.power_cut.min_time=300ms", "run.power_cut.max_time=3s",
                       "run.power_cut.cuts=3"});
    ASSERT_NE(e, nullptr);
    e->Run(false);
    const Experiment::PowerCutFigures& f = e->power_cut();
    EXPECT_EQ(f.cuts, 3u) << durability;
    EXPECT_EQ(f.mount_failures + f.check_failures, 0u) << durability << ": " << f.first_failure;
    EXPECT_EQ(f.violations(), 0u) << durability << ": " << f.first_failure;
    EXPECT_GT(f.ack_bytes, 0u) << durability;
    EXPECT_EQ(e->FailedRequests(), 0u) << durability << ": " << e->Summary();
  }
  // Cuts while F2FS cleans and resets zones (random overwrites of a file
  // filling most of the volume, fsync every 64 writes: cleaning runs from
  // about a minute on).
  std::unique_ptr<Experiment> e =
      Make(kConfig, {"workload.kind=fio_files", "workload.fio_files.size=640MiB", "workload.fio_files.bs=8KiB",
                     "workload.fio_files.fsync=64", "workload.fio_files.total_ios=50000", "run.power_cut.when=random",
                     "run.power_cut.min_time=60s", "run.power_cut.max_time=150s", "run.power_cut.cuts=4"});
  ASSERT_NE(e, nullptr);
  e->Run(false);
  const Experiment::PowerCutFigures& f = e->power_cut();
  EXPECT_EQ(f.cuts, 4u);
  EXPECT_EQ(f.mount_failures + f.check_failures, 0u) << f.first_failure;
  EXPECT_EQ(f.violations(), 0u) << f.first_failure;
  EXPECT_GT(f.ack_bytes, 500u << 20);  // the file, fsynced
  EXPECT_GT(e->stats().Value("fs.io.zone_resets"), 0.0);  // the first run's cleaning, before its cut
  EXPECT_EQ(e->FailedRequests(), 0u);
}

// What zoned mode cannot run is refused before the run, naming the key.
TEST(F2fsZonedTest, WhatZonedModeNeedsIsCheckedBeforeTheRun) {
  EXPECT_TRUE(Validate(kConfig, {}).ok()) << Validate(kConfig, {}).message();
  EXPECT_EQ(Validate(kConfig, {"fs.f2fs.mode=adaptive"}).message(),
            "fs.f2fs.mode: a zoned device (ftl.kind: zns) is written in lfs mode only (Linux forces mode=lfs on "
            "blkzoned volumes: no in-place updates, no SSR); set mode: lfs");
  EXPECT_EQ(Validate(kConfig, {"ftl.zns.zone_size=4MiB", "ftl.zns.zone_capacity=4MiB"}).message(),
            "fs.f2fs.mkfs.segs_per_sec: 1; on a zoned device a section is a zone: set it to 2 (the 4 MiB zone in "
            "2 MiB segments), as mkfs.f2fs -m does");
  EXPECT_NE(Validate(kConfig, {"ftl.zns.conventional=0"}).message().find("ftl.zns.conventional"), std::string::npos);
  EXPECT_NE(Validate(kConfig, {"ftl.zns.conventional=2MiB"}).message().find("conventional area"), std::string::npos);
  EXPECT_NE(Validate(kConfig, {"ftl.zns.zone_size=3MiB", "ftl.zns.zone_capacity=3MiB"}).message().find("2 MiB"),
            std::string::npos);
  EXPECT_NE(Validate(kConfig, {"fs.f2fs.durability=journal", "fs.f2fs.journal.size=16MiB"}).message().find(
                "fs.f2fs.durability: journal (F2FS-J) on a zoned device is not modelled"),
            std::string::npos);
}

}  // namespace
}  // namespace app
