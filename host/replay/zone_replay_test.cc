#include "host/replay/zone_replay.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace host {
namespace {

using ::testing::HasSubstr;
using Place = ZoneRemap::Place;

// 3 zones of 4 pages (capacity 4), no conventional area.
ssd::ZoneLayout Small(uint32_t max_active = 0) { return ssd::ZoneLayout{0, 3, 4, 4, 0, max_active}; }

TEST(ZoneRemapTest, AppendsFillOneZoneAtATimeAndSplitWhereAZoneFills) {
  ZoneRemap r(Small(), 12);
  Place p = r.PlaceWrite(3);
  EXPECT_EQ(p.kind, Place::kAppend);
  EXPECT_EQ(p.zone, 0u);
  EXPECT_EQ(p.pages, 3u);
  r.AppendDone(0, /*first=*/5, 3, /*device_page=*/0, true);
  p = r.PlaceWrite(3);  // one page left in zone 0
  EXPECT_EQ(p.zone, 0u);
  EXPECT_EQ(p.pages, 1u);
  r.AppendDone(0, 8, 1, 3, true);
  p = r.PlaceWrite(2);
  EXPECT_EQ(p.zone, 1u);
  EXPECT_EQ(p.pages, 2u);
  r.AppendDone(1, 9, 2, 4, true);
  std::vector<ZoneRemap::Run> runs;
  r.Runs(4, 8, &runs);  // pages 5..10 mapped to 0,1,2,3,4,5: one run; 4 and 11 unmapped
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].device_page, 0u);
  EXPECT_EQ(runs[0].pages, 6u);
  EXPECT_EQ(r.live_pages(0), 4u);
  EXPECT_EQ(r.live_pages(1), 2u);
  // An overwrite moves the page; a trim unmaps it.
  p = r.PlaceWrite(1);
  r.AppendDone(p.zone, 5, 1, 6, true);
  EXPECT_EQ(r.live_pages(0), 3u);
  r.Runs(5, 2, &runs);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].device_page, 6u);
  EXPECT_EQ(runs[1].device_page, 1u);
  r.Trim(6, 1);
  EXPECT_EQ(r.live_pages(0), 2u);
}

TEST(ZoneRemapTest, AZoneIsResetOnlyWhenNothingInItIsMappedElseNoSpace) {
  ZoneRemap r(Small(), 12);
  for (uint64_t z = 0; z < 3; ++z) {
    const Place p = r.PlaceWrite(4);
    ASSERT_EQ(p.kind, Place::kAppend);
    r.AppendDone(p.zone, z * 4, 4, z * 4, true);
  }
  EXPECT_EQ(r.PlaceWrite(1).kind, Place::kNoSpace);  // every zone holds live pages
  r.Trim(4, 3);
  EXPECT_EQ(r.PlaceWrite(1).kind, Place::kNoSpace);  // zone 1 still has one
  r.Trim(7, 1);
  const Place p = r.PlaceWrite(2);
  EXPECT_EQ(p.kind, Place::kReset);
  EXPECT_EQ(p.zone, 1u);
  r.ResetDone(1);
  const Place q = r.PlaceWrite(2);
  EXPECT_EQ(q.kind, Place::kAppend);
  EXPECT_EQ(q.zone, 1u);
}

TEST(ZoneRemapTest, AZoneWithAppendsInFlightIsNotReset) {
  ZoneRemap r(ssd::ZoneLayout{0, 1, 4, 4, 0, 0}, 4);
  Place p = r.PlaceWrite(4);
  ASSERT_EQ(p.kind, Place::kAppend);
  EXPECT_EQ(r.PlaceWrite(1).kind, Place::kNoSpace);  // in flight, nothing mapped yet
  r.AppendDone(0, 0, 4, 0, false);                   // refused: nothing mapped
  EXPECT_EQ(r.PlaceWrite(1).kind, Place::kReset);
}

class CheckZonedReplayTest : public ::testing::Test {
 protected:
  // An MSR trace of writes (offset, length), 1 ms apart.
  std::string Trace(const std::vector<std::pair<uint64_t, uint64_t>>& writes) {
    const std::string p = ::testing::TempDir() + "/zone_check_" +
                          ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".csv";
    std::ofstream f(p);
    uint64_t t = 128166372000000000ULL;
    for (const auto& [off, len] : writes) {
      f << t << ",web,0,Write," << off << "," << len << ",100\n";
      t += 10000;
    }
    return p;
  }
  sim::Status Check(const std::string& path, const ssd::ZoneLayout& z) {
    TraceReplayConfig cfg;
    cfg.path = path;
    cfg.reader.format = "msr";
    cfg.fit = "error";
    return CheckZonedReplay(cfg, z, 4096, 512, "workload.trace");
  }
};

// Zones of 4 pages of 4 KiB (16 KiB), a 1-page conventional area.
ssd::ZoneLayout WithConv(uint32_t max_active = 0) { return ssd::ZoneLayout{1, 3, 4, 3, 0, max_active}; }

TEST_F(CheckZonedReplayTest, AcceptsSequentialZoneWritesAndRefusesEachKindOfMiswrite) {
  const uint64_t z0 = 4096, z1 = 4096 + 16384;
  // Conventional area anywhere, zones in order up to the capacity (3 pages).
  EXPECT_TRUE(Check(Trace({{0, 4096}, {0, 4096}, {z0, 8192}, {z0 + 8192, 4096}, {z1, 4096}}), WithConv()).ok());

  struct Case {
    std::vector<std::pair<uint64_t, uint64_t>> writes;
    std::string want;
  };
  const Case cases[] = {
      {{{z0, 4096}, {z0 + 8192, 4096}}, ":2: a write of 4096 bytes at byte 12288 is not at the write pointer of zone 0 "
                                       "(byte 8192)"},
      {{{z0, 12288}, {z0 + 12288, 4096}}, ":2: a write of 4096 bytes at byte 16384 goes into zone 0, which is full"},
      {{{z0, 16384}}, ":1: a write of 16384 bytes at byte 4096 crosses the capacity of zone 0"},
      {{{0, 8192}}, ":1: a write of 8192 bytes at byte 0 reaches from the conventional area"},
      {{{z0, 2048}}, "is not whole 4096-byte flash pages"},
  };
  for (const Case& c : cases) {
    const sim::Status st = Check(Trace(c.writes), WithConv());
    EXPECT_FALSE(st.ok()) << c.want;
    EXPECT_THAT(st.message(), HasSubstr("workload.trace.zoned: "));
    EXPECT_THAT(st.message(), HasSubstr(c.want));
  }
  // Active limit: two zones partly written at once with max_active 1.
  const sim::Status st = Check(Trace({{z0, 4096}, {z1, 4096}}), WithConv(1));
  EXPECT_THAT(st.message(), HasSubstr(":2: a write of 4096 bytes at byte 20480 opens zone 1 while 1 zones are active"));
  // A full zone is no longer active.
  EXPECT_TRUE(Check(Trace({{z0, 12288}, {z1, 4096}}), WithConv(1)).ok());
}

}  // namespace
}  // namespace host
