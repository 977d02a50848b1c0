// Conformance of every registered allocation policy, and the default
// policy's kernel rules.
#include "fs/f2fs/allocation_policy.h"

#include <set>

#include <gtest/gtest.h>

#include "fs/f2fs/f2fs_test_util.h"
#include "fs/f2fs/segment_manager.h"
#include "sim/config.h"

namespace fs::f2fs {
namespace {

Layout SmallLayout() {
  auto l = ComputeLayout({256ull << 20, 1, 1, 0});
  CHECK(l.ok()) << l.status().message();
  return *l;
}

std::unique_ptr<AllocationPolicy> Make(const std::string& name, const F2fsConfig& cfg, const Layout& layout) {
  auto p = MakeAllocationPolicy(name, AllocationPolicyContext{&cfg, &layout});
  CHECK(p.ok()) << p.status().message();
  return std::move(p).value();
}

void FillLog(SegmentManager& sm, LogType t, bool need_ssr) {
  const SegNo s = sm.curseg(t).segno;
  while (sm.curseg(t).segno == s) sm.Allocate(t, Summary{Nid{3}, 0, 0}, sim::SimTime::Zero(), need_ssr);
}

TEST(AllocationPolicyTest, UnknownNameListsTheChoices) {
  const F2fsConfig cfg = sim::MakeDefault<F2fsConfig>();
  const Layout layout = SmallLayout();
  auto p = MakeAllocationPolicy("nope", AllocationPolicyContext{&cfg, &layout});
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("choices: default"), std::string::npos) << p.status().message();
}

class EveryPolicyTest : public ::testing::TestWithParam<std::string> {};

// lfs mode: every policy runs in it (ParaFS's only in it).
F2fsConfig LfsConfig() {
  F2fsConfig cfg = sim::MakeDefault<F2fsConfig>();
  cfg.mode = "lfs";
  return cfg;
}

TEST_P(EveryPolicyTest, LogsMatchTheActiveLogs) {
  for (uint32_t logs : {2u, 4u, 6u}) {
    F2fsConfig cfg = LfsConfig();
    cfg.active_logs = logs;
    const Layout layout = SmallLayout();
    auto p = Make(GetParam(), cfg, layout);
    std::set<LogType> used;
    for (bool is_dir : {false, true})
      for (bool cold : {false, true})
        for (bool hot : {false, true})
          for (bool gc : {false, true}) {
            const LogType t = p->DataLog(DataPlacement{is_dir, cold, hot, hot, gc});
            EXPECT_FALSE(IsNodeLog(t));
            EXPECT_NE(t, LogType::kAtgcData) << "ATGC log without the atgc option";
            used.insert(t);
          }
    for (bool dnode : {false, true})
      for (bool file : {false, true}) {
        const LogType t = p->NodeLog(NodePlacement{dnode, dnode && file});
        EXPECT_TRUE(IsNodeLog(t));
        used.insert(t);
      }
    EXPECT_LE(used.size(), logs) << logs << " active logs";
  }
}

TEST_P(EveryPolicyTest, FullLogsMoveToFreeSegmentsOfTheirOwn) {
  const F2fsConfig cfg = LfsConfig();
  const Layout layout = SmallLayout();
  auto p = Make(GetParam(), cfg, layout);
  SegmentManager sm(layout, p.get());
  sm.FinishLoad();
  for (int l = 0; l < kNumPersistentLogs; ++l) sm.OpenLog(static_cast<LogType>(l));
  for (int round = 0; round < 3; ++round) {
    for (int l = 0; l < kNumPersistentLogs; ++l) FillLog(sm, static_cast<LogType>(l), /*need_ssr=*/false);
    std::set<uint32_t> segs;
    for (int l = 0; l < kNumPersistentLogs; ++l) {
      const SegmentManager::CurSeg& c = sm.curseg(static_cast<LogType>(l));
      EXPECT_FALSE(c.ssr);
      EXPECT_EQ(sm.seg(c.segno).valid, 0u);
      segs.insert(c.segno.v);
    }
    EXPECT_EQ(segs.size(), size_t{kNumPersistentLogs}) << "two logs share a segment";
  }
}

// On a device of fixed placement a policy either refuses (InvalidInput) or
// keeps the region contract: RegionOfSection constant and in range, a log
// of region r moves to a free segment of region r while r has one, the
// stripe visits every region, and no two logs share a segment.
TEST_P(EveryPolicyTest, RegionsKeepTheirLogsInTheirOwnSections) {
  const F2fsConfig cfg = LfsConfig();
  const Layout layout = SmallLayout();
  testing::RoundRobinPlacement placement(4, testing::MetaFlashBlocks(256ull << 20, cfg));
  const ssd::DeviceLayout device = testing::FixedLayout(4, 8192, &placement);
  auto made = MakeAllocationPolicy(GetParam(), AllocationPolicyContext{&cfg, &layout, &device});
  if (!made.ok()) {
    EXPECT_EQ(made.status().code(), sim::Status::Code::kInvalidInput) << made.status().message();
    return;
  }
  auto p = std::move(made).value();
  ASSERT_GE(p->regions(), 1u);
  ASSERT_GE(p->StripeBlocks(), 1u);
  for (uint32_t sec = 0; sec < layout.section_count; ++sec) ASSERT_LT(p->RegionOfSection(sec), p->regions());
  SegmentManager sm(layout, p.get());
  sm.FinishLoad();
  for (int l = 0; l < kNumPersistentLogs; ++l) sm.OpenLog(static_cast<LogType>(l));
  std::set<uint32_t> regions_seen;
  for (uint32_t n = 0; n < 3 * kBlocksPerSeg; ++n) {
    const LogType t = static_cast<LogType>(n % kNumPersistentLogs);
    regions_seen.insert(sm.stripe(t).region);
    sm.Allocate(t, Summary{Nid{3}, 0, 0}, sim::SimTime::Zero(), false);
  }
  EXPECT_EQ(regions_seen.size(), p->regions()) << "the stripe does not visit every region";
  std::set<uint32_t> segs;
  for (uint32_t r = 0; r < sm.regions(); ++r)
    for (int l = 0; l < kNumPersistentLogs; ++l) {
      const LogType t = static_cast<LogType>(l);
      if (!sm.LogActive(t, r)) continue;
      const SegNo s = sm.curseg(t, r).segno;
      EXPECT_EQ(sm.RegionOf(s), r) << LogTypeName(t) << " of region " << r << " writes outside it";
      EXPECT_TRUE(segs.insert(s.v).second) << "two logs share segment " << s.v;
    }
}

INSTANTIATE_TEST_SUITE_P(Registered, EveryPolicyTest, ::testing::ValuesIn(AllocationPolicyNames()),
                         [](const auto& info) { return info.param; });

// get_ssr_segment takes a dirty segment of the log's own type; the warm
// node log too (CP_CRC_RECOVERY_FLAG, set by every checkpoint, lifts the
// kernel's exception for it).
TEST(DefaultAllocationPolicyTest, SsrReusesADirtySegmentOfTheSameLogWarmNodeIncluded) {
  const F2fsConfig cfg = sim::MakeDefault<F2fsConfig>();
  const Layout layout = SmallLayout();
  auto p = Make("default", cfg, layout);
  SegmentManager sm(layout, p.get());
  sm.FinishLoad();
  for (LogType t : {LogType::kHotData, LogType::kWarmNode}) {
    SCOPED_TRACE(LogTypeName(t));
    sm.OpenLog(t);
    const SegNo first = sm.curseg(t).segno;
    FillLog(sm, t, false);
    for (uint32_t off = 0; off < kBlocksPerSeg; off += 2) sm.Invalidate(BlockAddr{layout.SegStart(first).v + off});
    sm.CommitCheckpoint();
    FillLog(sm, t, /*need_ssr=*/true);
    EXPECT_TRUE(sm.curseg(t).ssr);
    EXPECT_EQ(sm.curseg(t).segno, first);
    EXPECT_EQ(sm.curseg(t).next_blkoff, 0u);
  }
}

// The ATGC log is not one of the three data temperatures: its SSR search
// tries its own segments and then every data temperature (under
// AddressSanitizer the search used to write a fourth candidate past a
// three-entry array).
TEST(DefaultAllocationPolicyTest, AtgcLogSsrFindsDirtySegmentsOfEveryDataTemperature) {
  F2fsConfig cfg = sim::MakeDefault<F2fsConfig>();
  cfg.atgc = true;
  const Layout layout = SmallLayout();
  auto p = Make("default", cfg, layout);
  for (LogType dirty : {LogType::kHotData, LogType::kWarmData, LogType::kColdData}) {
    SegmentManager sm(layout, p.get());
    sm.FinishLoad();
    sm.OpenLog(dirty);
    const SegNo first = sm.curseg(dirty).segno;
    FillLog(sm, dirty, false);
    for (uint32_t off = 0; off < kBlocksPerSeg; off += 2) sm.Invalidate(BlockAddr{layout.SegStart(first).v + off});
    sm.CommitCheckpoint();
    const SegmentChoice c = p->NextSegment(sm, LogType::kAtgcData, /*region=*/0, /*need_ssr=*/true);
    EXPECT_TRUE(c.ssr) << static_cast<int>(dirty);
    EXPECT_EQ(c.segno, first) << static_cast<int>(dirty);
  }
}

TEST(DefaultAllocationPolicyTest, LfsModeNeverNeedsSsr) {
  F2fsConfig cfg = sim::MakeDefault<F2fsConfig>();
  const Layout layout = SmallLayout();
  auto adaptive = Make("default", cfg, layout);
  cfg.mode = "lfs";
  auto lfs = Make("default", cfg, layout);
  SegmentManager sm(layout, adaptive.get());
  sm.FinishLoad();
  const SpacePressure heavy{uint64_t{layout.segment_count_main} * kBlocksPerSeg, 0};
  EXPECT_TRUE(adaptive->NeedSsr(sm, heavy));
  EXPECT_FALSE(lfs->NeedSsr(sm, heavy));
  EXPECT_FALSE(adaptive->NeedSsr(sm, SpacePressure{}));
}

}  // namespace
}  // namespace fs::f2fs
