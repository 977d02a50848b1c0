// Block workloads on a ZNS device (ftl.kind: zns) through the command line:
// fio's zonemode=zbd (writes at write pointers of open zones, resets of full
// zones, max_open_zones, reads of written data only, zone_reset_threshold /
// zone_reset_frequency), flows with arbitration on a zoned device, and the
// checks made before a run.
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "app/cli_test_util.h"

namespace {

using app::testing::Cli;
using app::testing::Outcome;
using app::testing::Slurp;

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

// The "value" of stat `stat` in a stats.json text; -1 if absent.
double Stat(const std::string& json, const std::string& stat, const std::string& field = "value") {
  const size_t at = json.find("\"" + stat + "\": {");
  if (at == std::string::npos) return -1;
  const size_t f = json.find("\"" + field + "\": ", at);
  if (f == std::string::npos) return -1;
  return std::stod(json.substr(f + field.size() + 4));
}

std::string Src(const std::string& rel) { return std::string(FLASHSTACK_SOURCE_DIR) + "/" + rel; }

// The example ZNS device (62 zones of 16 MiB over 8 dies, 14 open zones),
// its workload replaced by `sets`.
const std::string kZns = "configs/examples/zns_seq.yaml";

class ZnsWorkloadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("zns_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  // Runs the example with --set overrides; returns stats.json.
  // `code`: 0, or 3 for a run whose device refused requests.
  std::string Run(const std::string& name, const std::string& sets, int code = 0) {
    const fs::path out = dir_ / name;
    const Outcome o = Cli("run " + Src(kZns) + " --quiet --out " + out.string() + " " + sets);
    EXPECT_EQ(o.code, code) << o.out;
    return Slurp(out / "stats.json");
  }
  Outcome Check(const std::string& sets) { return Cli("check " + Src(kZns) + " " + sets); }
  std::string Write(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    std::ofstream(p) << text;
    return p.string();
  }
  fs::path dir_;
};

// 8 zones (128 MiB) written three times over by random 64 KiB writes.
const std::string kRandWrite =
    "--set workload.fio.rw=randwrite --set workload.fio.bs=64KiB --set workload.fio.iodepth=4 "
    "--set workload.fio.size=128MiB --set workload.fio.total_ios=0 --set workload.fio.io_size=384MiB";

// Without zonemode zbd random writes miss the write pointers and the device
// refuses them; with it every write lands at a write pointer of one of at
// most max_open_zones open zones, full zones are reset when written again,
// and the run is deterministic.
TEST_F(ZnsWorkloadTest, RandomWritesGoToOpenZonesWritePointersWithZbd) {
  const std::string none = Run("none", kRandWrite + " --set workload.fio.zonemode=none", 3);
  EXPECT_GT(Stat(none, "ssd.errors"), 0);
  EXPECT_GT(Stat(none, "ftl.zns.errors.invalid_write"), 0);

  const std::string sets = kRandWrite + " --set workload.fio.zonemode=zbd --set workload.fio.max_open_zones=4";
  const std::string zbd = Run("zbd", sets);
  EXPECT_EQ(Stat(zbd, "ssd.errors"), 0);
  EXPECT_EQ(Stat(zbd, "workload.zone_errors"), 0);
  EXPECT_EQ(Stat(zbd, "workload.write.bytes"), 384.0 * 1024 * 1024);
  // 384 MiB into 8 zones of 16 MiB: every zone filled and reset at least once.
  EXPECT_GE(Stat(zbd, "workload.zone_resets"), 8);
  EXPECT_EQ(Stat(zbd, "workload.zone_resets"), Stat(zbd, "ftl.zns.commands.reset"));
  EXPECT_GT(Stat(zbd, "workload.quiesces"), 0);
  EXPECT_LE(Stat(zbd, "ftl.zns.open_zones"), 4);
  EXPECT_EQ(Stat(zbd, "ftl.zns.implicit_closes"), 0);  // the workload kept within its 4 open zones
  // A reset erases the zone's 8 blocks (one per die) in parallel: at least tBERS (3 ms).
  EXPECT_GE(Stat(zbd, "workload.zone_reset_lat", "min"), 3e6);
  EXPECT_EQ(zbd, Run("zbd_again", sets));
  // A device with only an active limit: the workload keeps within it.
  const std::string act = Run("active", kRandWrite + " --set workload.fio.zonemode=zbd --set ftl.zns.max_open=0 "
                                                     "--set ftl.zns.max_active=6");
  EXPECT_EQ(Stat(act, "ssd.errors"), 0);
  EXPECT_EQ(Stat(act, "ftl.zns.errors.too_many_active"), 0);
  EXPECT_LE(Stat(act, "ftl.zns.active_zones"), 6);
}

// A sequential job writes zone after zone and, coming back to the first,
// resets each zone once per pass; two jobs each write their own half.
TEST_F(ZnsWorkloadTest, SequentialWritesWrapAndResetEachZoneOncePerPass) {
  for (const char* jobs : {"1", "2"}) {
    const std::string st =
        Run(std::string("seq") + jobs,
            std::string("--set workload.fio.zonemode=zbd --set workload.fio.size=128MiB --set workload.fio.total_ios=0 "
                        "--set workload.fio.io_size=256MiB --set workload.fio.numjobs=") +
                jobs);
    EXPECT_EQ(Stat(st, "ssd.errors"), 0) << jobs;
    EXPECT_EQ(Stat(st, "workload.zone_resets"), 8) << jobs;
    EXPECT_EQ(Stat(st, "workload.write.bytes"), 256.0 * 1024 * 1024) << jobs;
    EXPECT_EQ(Stat(st, "ftl.zns.full_zones"), 8) << jobs;
  }
}

// Reads go only below write pointers (no read of an unwritten page) unless
// read_beyond_wp; a read-only job on an empty device ends at once.
TEST_F(ZnsWorkloadTest, ReadsOnlyWrittenDataUnlessReadBeyondWp) {
  const std::string mix =
      "--set workload.fio.rw=randrw --set workload.fio.bs=64KiB --set workload.fio.iodepth=4 "
      "--set workload.fio.size=128MiB --set workload.fio.total_ios=2000 --set workload.fio.zonemode=zbd";
  const std::string st = Run("mix", mix);
  EXPECT_EQ(Stat(st, "ssd.errors"), 0);
  EXPECT_GT(Stat(st, "workload.read.ios"), 500);
  EXPECT_EQ(Stat(st, "ftl.unmapped_reads"), 0);
  const std::string beyond = Run("beyond", mix + " --set workload.fio.read_beyond_wp=true");
  EXPECT_GT(Stat(beyond, "ftl.unmapped_reads"), 0);

  const std::string ro = Run("ro", "--set workload.fio.rw=randread --set workload.fio.zonemode=zbd "
                                   "--set workload.fio.total_ios=100");
  EXPECT_EQ(Stat(ro, "workload.ios_total"), 0);
}

// Above zone_reset_threshold of the range written, every 1/frequency-th
// write first resets its zone (fio's zone_reset_frequency); without the
// keys no zone is reset before it is full.
TEST_F(ZnsWorkloadTest, ZoneResetFrequencyResetsZonesAboveTheThreshold) {
  const std::string base =
      "--set workload.fio.rw=randwrite --set workload.fio.bs=64KiB --set workload.fio.size=128MiB "
      "--set workload.fio.total_ios=0 --set workload.fio.io_size=64MiB --set workload.fio.zonemode=zbd";
  EXPECT_EQ(Stat(Run("plain", base), "workload.zone_resets"), 0);
  const std::string st = Run("freq", base + " --set workload.fio.zone_reset_threshold=10% "
                                            "--set workload.fio.zone_reset_frequency=10%");
  EXPECT_EQ(Stat(st, "ssd.errors"), 0);
  // Once 12.8 MiB are written (205 of the 1024 writes), one write in ten
  // resets its zone while the written share stays above the threshold (a
  // reset takes a zone's data away): at most (1024 - 205) / 10 resets.
  EXPECT_GT(Stat(st, "workload.zone_resets"), 10);
  EXPECT_LE(Stat(st, "workload.zone_resets"), 82);
}

// Two zbd flows on disjoint zone ranges share the device under round-robin
// arbitration: every write still reaches its write pointer.
TEST_F(ZnsWorkloadTest, ZbdFlowsUnderArbitrationWriteAtWritePointers) {
  const std::string cfg = Write("flows.yaml", "include: " + Src(kZns) + R"(
device:
  ssd:
    arbitration: {policy: rr, max_outstanding: 4}
workload:
  flows:
    a: {queues: 2, fio: {rw: randwrite, bs: 64KiB, iodepth: 8, numjobs: 2, zonemode: zbd, max_open_zones: 4,
                         offset: 0, size: 128MiB, io_size: 256MiB, total_ios: 0}}
    b: {fio: {rw: write, bs: 128KiB, iodepth: 8, zonemode: zbd, max_open_zones: 2, offset: 128MiB,
              size: 64MiB, io_size: 128MiB, total_ios: 0}}
)");
  const fs::path out = dir_ / "out";
  const Outcome o = Cli("run " + cfg + " --quiet --out " + out.string());
  ASSERT_EQ(o.code, 0) << o.out;
  const std::string st = Slurp(out / "stats.json");
  EXPECT_EQ(Stat(st, "ssd.errors"), 0);
  EXPECT_EQ(Stat(st, "flows.a.write.bytes"), 256.0 * 1024 * 1024);
  EXPECT_EQ(Stat(st, "flows.b.write.bytes"), 128.0 * 1024 * 1024);
  EXPECT_GT(Stat(st, "flows.a.zone_resets"), 0);
}

TEST_F(ZnsWorkloadTest, ZbdFlowsMustNotShareZones) {
  const std::string cfg = Write("overlap.yaml", "include: " + Src(kZns) + R"(
workload:
  flows:
    a: {fio: {rw: randwrite, bs: 64KiB, zonemode: zbd, size: 128MiB, total_ios: 10}}
    b: {fio: {rw: write, bs: 64KiB, zonemode: zbd, offset: 112MiB, size: 64MiB, total_ios: 10}}
)");
  const Outcome o = Cli("check " + cfg);
  EXPECT_EQ(o.code, 2) << o.out;
  EXPECT_THAT(o.out, HasSubstr("workload.flows.b.fio.offset: its range shares zones with flow a's"));
}

TEST_F(ZnsWorkloadTest, CheckRefusesZbdOptionsTheDeviceCannotHonour) {
  struct Case {
    std::string sets, want;
  };
  const std::string zbd = "--set workload.fio.zonemode=zbd ";
  const Case cases[] = {
      {zbd + "--set workload.fio.max_open_zones=15",
       "workload.fio.max_open_zones: 15 is larger than the device's max open zones 14"},
      {zbd + "--set workload.fio.offset=8KiB", "workload.fio.offset: with zonemode zbd the range must start on a zone"},
      {zbd + "--set workload.fio.size=24MiB", "workload.fio.size: with zonemode zbd the range must end on a zone"},
      {zbd + "--set workload.fio.bs=12KiB", "workload.fio.bs: 12KiB is not a multiple of the flash page"},
      {zbd + "--set workload.fio.bs=6MiB", "workload.fio.bs: the smallest block size 6MiB does not divide"},
      {zbd + "--set workload.fio.numjobs=15", "workload.fio.numjobs: 15 jobs but 14 open zones"},
      {zbd + "--set workload.fio.rw=randtrim", "workload.fio.rw: trims with zonemode zbd"},
      {zbd + "--set workload.fio.zone_reset_frequency=150%", "workload.fio.zone_reset_frequency"},
      {"--set workload.fio.zonemode=strided", "workload.fio.zonemode"},
      {zbd + "--set ftl.kind=page --set ftl.op=0.2", "workload.fio.zonemode: zbd needs a zoned device"},
  };
  for (const Case& c : cases) {
    const Outcome o = Check(c.sets);
    EXPECT_EQ(o.code, 2) << c.sets << "\n" << o.out;
    EXPECT_THAT(o.out, HasSubstr(c.want)) << c.sets;
  }
  EXPECT_EQ(Check(zbd + "--set workload.fio.max_open_zones=14").code, 0);
  // Without an open limit the active one bounds the zones written at once.
  Outcome act = Check(zbd + "--set ftl.zns.max_open=0 --set ftl.zns.max_active=6 --set workload.fio.max_open_zones=7");
  EXPECT_EQ(act.code, 2) << act.out;
  EXPECT_THAT(act.out, HasSubstr("workload.fio.max_open_zones: 7 is larger than the device's max active zones 6"));
  act = Check(zbd + "--set ftl.zns.max_open=0 --set ftl.zns.max_active=6 --set workload.fio.numjobs=7");
  EXPECT_THAT(act.out, HasSubstr("workload.fio.numjobs: 7 jobs but 6 open zones"));
  // zonemode none on a zoned device is allowed (the device refuses misplaced
  // writes and counts them) but `check` says so.
  const Outcome none = Check("--set workload.fio.zonemode=none --set workload.fio.rw=randwrite");
  EXPECT_EQ(none.code, 0) << none.out;
  EXPECT_THAT(none.out, HasSubstr("warning: workload.fio.zonemode: none on a zoned device"));
  EXPECT_THAT(Check("").out, Not(HasSubstr("warning")));
}

TEST_F(ZnsWorkloadTest, ExplainListsTheZoneKeys) {
  const Outcome o = Cli("explain workload.fio");
  ASSERT_EQ(o.code, 0) << o.out;
  for (const char* k : {"workload.fio.zonemode", "workload.fio.max_open_zones", "workload.fio.zone_reset_threshold",
                        "workload.fio.zone_reset_frequency", "workload.fio.read_beyond_wp"}) {
    EXPECT_THAT(o.out, HasSubstr(k));
  }
}

// ---------------------------------------------------------------------------
// Trace replay on a zoned device (workload.trace.zoned)

// An MSR Cambridge trace (100 ns ticks): one record per (op, offset, size).
std::string Msr(const std::vector<std::tuple<const char*, uint64_t, uint64_t>>& recs) {
  std::string out;
  uint64_t t = 128166372000000000ULL;
  for (const auto& [op, off, len] : recs) {
    out += std::to_string(t) + ",web,0," + op + "," + std::to_string(off) + "," + std::to_string(len) + ",100\n";
    t += 100000;  // 10 ms apart: each write has completed before the next record
  }
  return out;
}

constexpr uint64_t kKiB = 1024, kMiB = 1024 * 1024;
// remap takes whole 8 KiB flash pages.
const std::string kRemap = "    zoned: remap\n    align: 8KiB\n";

std::string TraceConfig(const std::string& zns, const std::string& trace, const std::string& extra = "") {
  return "include: " + zns + "\nworkload:\n  kind: trace\n  trace:\n    path: " + trace +
         "\n    reader: {format: msr}\n" + extra;
}

// A trace that writes zone 0 in order, then jumps: refused before the run,
// naming the record and the zone's write pointer; the same trace under
// remap runs without a device error and a read of a rewritten address goes
// to where the write went (no read of an unwritten page), while a read of an
// address never written asks nothing of the device.
TEST_F(ZnsWorkloadTest, TraceRandomWritesAreRefusedOrRemapped) {
  const std::string trace = Write("t.csv", Msr({{"Write", 0, 64 * kKiB},
                                                {"Write", 64 * kKiB, 64 * kKiB},
                                                {"Write", 1 * kMiB, 64 * kKiB},
                                                {"Read", 1 * kMiB, 64 * kKiB},
                                                {"Write", 0, 64 * kKiB},
                                                {"Read", 0, 64 * kKiB},
                                                {"Read", 200 * kMiB, 64 * kKiB}}));
  const std::string refuse = Write("refuse.yaml", TraceConfig(Src(kZns), trace));
  for (const std::string& cmd : {"check " + refuse, "run " + refuse + " --quiet --out " + (dir_ / "r").string()}) {
    const Outcome o = Cli(cmd);
    EXPECT_EQ(o.code, 2) << o.out;
    EXPECT_THAT(o.out, HasSubstr("workload.trace.zoned: " + trace + ":3: a write of 65536 bytes at byte 1048576 is "
                                 "not at the write pointer of zone 0 (byte 131072)"));
  }
  // In order only: accepted.
  const std::string seq = Write("seq.csv", Msr({{"Write", 0, 64 * kKiB}, {"Write", 64 * kKiB, 64 * kKiB}}));
  EXPECT_EQ(Cli("check " + Write("seq.yaml", TraceConfig(Src(kZns), seq))).code, 0);

  const std::string remap = Write("remap.yaml", TraceConfig(Src(kZns), trace, kRemap));
  const fs::path out = dir_ / "m";
  const Outcome o = Cli("run " + remap + " --quiet --out " + out.string());
  ASSERT_EQ(o.code, 0) << o.out;
  const std::string st = Slurp(out / "stats.json");
  EXPECT_EQ(Stat(st, "ssd.errors"), 0);
  EXPECT_EQ(Stat(st, "workload.zoned.errors"), 0);
  EXPECT_EQ(Stat(st, "workload.zoned.appends"), 4);
  EXPECT_EQ(Stat(st, "ftl.zns.appends"), 4);
  EXPECT_EQ(Stat(st, "workload.read.ios"), 3);
  // The two reads of written data read flash; the read of 200 MiB (never
  // written: 8 pages) does not reach the device.
  EXPECT_EQ(Stat(st, "workload.zoned.unmapped_pages"), 8);
  EXPECT_EQ(Stat(st, "ftl.unmapped_reads"), 0);
  EXPECT_EQ(Stat(st, "ssd.ops.read"), 2);
}

// remap reuses a zone once nothing in it is mapped (a reset first), and
// stops with an error naming the record when no zone is empty or free of
// live data (it does no cleaning).
TEST_F(ZnsWorkloadTest, TraceRemapResetsZonesItNoLongerUsesAndStopsWhenFull) {
  // A small device: 16 blocks per plane, 15 zones of 16 MiB (one spare per plane).
  const std::string small = "device:\n  geometry:\n    blocks_per_plane: 16\n";
  std::vector<std::tuple<const char*, uint64_t, uint64_t>> hot, all;
  for (uint64_t i = 0; i < 150; ++i) hot.emplace_back("Write", (i % 16) * 2 * kMiB, 2 * kMiB);  // 32 MiB, 300 MiB written
  const std::string t1 = Write("hot.csv", Msr(hot));
  const fs::path o1 = dir_ / "hot";
  const Outcome r1 =
      Cli("run " + Write("hot.yaml", TraceConfig(Src(kZns), t1, kRemap + small)) + " --quiet --out " +
          o1.string());
  ASSERT_EQ(r1.code, 0) << r1.out;
  const std::string st = Slurp(o1 / "stats.json");
  EXPECT_EQ(Stat(st, "ssd.errors"), 0);
  EXPECT_GT(Stat(st, "workload.zoned.resets"), 0);
  EXPECT_EQ(Stat(st, "workload.zoned.resets"), Stat(st, "ftl.zns.commands.reset"));
  EXPECT_EQ(Stat(st, "workload.write.bytes"), 300.0 * kMiB);

  // Every 2 MiB of the device written, then half of it again: the zones
  // hold live data everywhere.
  for (uint64_t i = 0; i < 120; ++i) all.emplace_back("Write", (i * 7 % 120) * 2 * kMiB, 2 * kMiB);
  for (uint64_t i = 0; i < 60; ++i) all.emplace_back("Write", (i * 2) * 2 * kMiB, 2 * kMiB);
  const std::string t2 = Write("all.csv", Msr(all));
  const Outcome r2 = Cli("run " + Write("all.yaml", TraceConfig(Src(kZns), t2, kRemap + small)) +
                         " --quiet --out " + (dir_ / "all").string());
  EXPECT_NE(r2.code, 0) << r2.out;
  EXPECT_THAT(r2.out, HasSubstr("zoned: remap: no zone is empty or free of live data"));
}

TEST_F(ZnsWorkloadTest, TraceRemapNeedsAZonedDeviceAndWholePages) {
  const std::string trace = Write("t.csv", Msr({{"Write", 0, 64 * kKiB}}));
  Outcome o = Cli("check " + Write("a.yaml", TraceConfig(Src(kZns), trace, kRemap)) +
                  " --set ftl.kind=page --set ftl.op=0.2");
  EXPECT_EQ(o.code, 2) << o.out;
  EXPECT_THAT(o.out, HasSubstr("workload.trace.zoned: remap needs a zoned device"));
  o = Cli("check " + Write("b.yaml", TraceConfig(Src(kZns), trace, "    zoned: remap\n    align: 4KiB\n")));
  EXPECT_EQ(o.code, 2) << o.out;
  EXPECT_THAT(o.out, HasSubstr("workload.trace.align: zoned: remap takes whole 8192-byte flash pages"));
  o = Cli("check " + Write("c.yaml", TraceConfig(Src(kZns), trace, "    zoned: rewrite\n")));
  EXPECT_EQ(o.code, 2) << o.out;
  EXPECT_THAT(o.out, HasSubstr("workload.trace.zoned"));
}

}  // namespace
