// ZNS conformance: a zoned device (ftl.kind: zns) behind the host interface,
// driven through BlockDevice requests as a host would. Every zone state
// transition of the NVMe ZNS state machine and every zone error is
// exercised, and errors are counted (ftl.zns.errors.*, ssd.errors) with
// nothing written.
#include <deque>
#include <memory>
#include <set>

#include <gtest/gtest.h>

#include "flash/nand_array.h"
#include "flash/nand_test_util.h"
#include "ftl/ftl_factory.h"
#include "ftl/static_block_ftl.h"
#include "ftl/zns_ftl.h"
#include "sim/event_queue.h"
#include "sim/stats.h"
#include "ssd/device_config.h"
#include "ssd/ssd.h"

namespace ssd {
namespace {

using ftl::ZnsConfig;

class Client final : public BlockClient {
 public:
  void OnBlockComplete(BlockRequest* r) override { done.push_back(r); }
  std::vector<BlockRequest*> done;
};

constexpr uint64_t kPage = 8192;

// TinyGeometry: 2 ch x 2 chips x 1 die x 2 planes x 8 blocks x 16 pages of
// 8 KiB; 25 % spares leave 6 blocks per plane.
ftl::FtlConfig ZnsFtlConfig(uint32_t zone_dies, uint64_t size_pages, uint64_t cap_pages, uint32_t max_open,
                            uint32_t max_active, uint64_t conventional = 0) {
  ftl::FtlConfig c;
  c.kind = "zns";
  c.kinds.Mutable<ftl::StaticBlockConfig>("static_block").spare = sim::Ratio{0.25};
  ZnsConfig& z = c.kinds.Mutable<ZnsConfig>("zns");
  z.zone_dies = zone_dies;
  z.zone_size = sim::Bytes{size_pages * kPage};
  z.zone_capacity = sim::Bytes{cap_pages * kPage};
  z.max_open = max_open;
  z.max_active = max_active;
  z.conventional = sim::Bytes{conventional};
  return c;
}

class ZnsTest : public ::testing::Test {
 public:
  // Default: zones on one die (2 planes), 32-page LBA span, 24 writable
  // pages, at most 2 open and 3 active zones.
  void Build(const ftl::FtlConfig& fc) {
    geo_ = flash::testing::TinyGeometry();
    cfg_ = sim::MakeDefault<SsdConfig>();
    cfg_.sector_size = sim::Bytes{4096};
    cfg_.write_buffer.size = sim::Bytes{0};
    array_ = std::make_unique<flash::NandArray>(&eq_, geo_, flash::testing::TestFlashConfig(),
                                                stats_.Root().Group("flash"));
    auto f = ftl::MakeFtl(fc, array_.get(), &eq_, stats_.Root().Group("ftl"));
    ASSERT_TRUE(f.ok()) << f.status().message();
    ftl_ = std::move(*f);
    ssd_ = std::make_unique<Ssd>(&eq_, cfg_, geo_, ftl_.get(), stats_.Root().Group("ssd"));
    zoned_ = ftl_->zoned();
    ASSERT_NE(zoned_, nullptr);
  }
  void SetUp() override { Build(ZnsFtlConfig(1, 32, 24, 2, 3)); }

  BlockRequest* Submit(BlockOp op, uint64_t offset, uint64_t length, ZoneAction a = ZoneAction::kOpen) {
    reqs_.emplace_back();
    BlockRequest* r = &reqs_.back();
    r->op = op;
    r->offset = offset;
    r->length = length;
    r->zone_action = a;
    r->client = &client_;
    ssd_->Submit(r);
    return r;
  }
  // Runs `op` to completion; returns the request.
  BlockRequest* Do(BlockOp op, uint64_t offset, uint64_t length, ZoneAction a = ZoneAction::kOpen) {
    BlockRequest* r = Submit(op, offset, length, a);
    eq_.Run();
    return r;
  }
  uint64_t ZoneByte(uint64_t z) const { return zoned_->ZoneStart(z) * kPage; }
  ZoneError Write(uint64_t z, uint64_t page, uint64_t pages) {
    BlockRequest* r = Do(BlockOp::kWrite, ZoneByte(z) + page * kPage, pages * kPage);
    return r->status == IoStatus::kOk ? ZoneError::kOk : r->zone_error;
  }
  ZoneError Mgmt(uint64_t z, ZoneAction a) {
    BlockRequest* r = Do(BlockOp::kZoneMgmt, ZoneByte(z), 0, a);
    return r->status == IoStatus::kOk ? ZoneError::kOk : r->zone_error;
  }
  ZoneState State(uint64_t z) const { return zoned_->Report(z).state; }
  uint64_t Wp(uint64_t z) const { return zoned_->Report(z).write_pointer - zoned_->ZoneStart(z); }
  double Stat(const std::string& name) { return stats_.Value(name); }

  sim::EventQueue eq_;
  sim::StatsRegistry stats_;
  flash::Geometry geo_;
  SsdConfig cfg_;
  std::unique_ptr<flash::NandArray> array_;
  std::unique_ptr<ftl::Ftl> ftl_;
  std::unique_ptr<Ssd> ssd_;
  ftl::Zoned* zoned_ = nullptr;
  Client client_;
  std::deque<BlockRequest> reqs_;
};

// The fixture outside TEST_F, for tests that build several devices.
struct Rig : ZnsTest {
  void TestBody() override {}
};

TEST_F(ZnsTest, LayoutReportsTheZones) {
  const DeviceLayout& l = ssd_->layout();
  ASSERT_EQ(l.zoned, zoned_);
  EXPECT_EQ(l.fixed, nullptr);  // a zone's pages are striped, not a logical block per flash block
  EXPECT_EQ(zoned_->conventional_pages(), 0u);
  EXPECT_EQ(zoned_->zone_pages(), 32u);
  EXPECT_EQ(zoned_->zone_capacity(), 24u);
  EXPECT_EQ(zoned_->zone_dies(), 1u);
  // 4 dies, one zone = one block on each of a die's 2 planes: 6 zones per die.
  EXPECT_EQ(zoned_->zones(), 24u);
  EXPECT_EQ(ssd_->capacity(), 24u * 32 * kPage);
  for (uint64_t z = 0; z < zoned_->zones(); ++z) {
    const ZoneInfo i = zoned_->Report(z);
    EXPECT_EQ(i.state, ZoneState::kEmpty);
    EXPECT_EQ(i.start, z * 32);
    EXPECT_EQ(i.write_pointer, i.start);
    EXPECT_EQ(i.capacity, 24u);
  }
  EXPECT_EQ(Stat("ftl.zns.zones"), 24);
}

TEST_F(ZnsTest, SequentialWritesOpenImplicitlyAndFillTheZone) {
  EXPECT_EQ(Write(0, 0, 4), ZoneError::kOk);
  EXPECT_EQ(State(0), ZoneState::kImplicitlyOpen);
  EXPECT_EQ(Wp(0), 4u);
  EXPECT_EQ(Write(0, 4, 20), ZoneError::kOk);
  EXPECT_EQ(State(0), ZoneState::kFull);  // ZSIO -> ZSF at capacity
  EXPECT_EQ(Wp(0), 24u);
  EXPECT_EQ(Write(0, 24, 1), ZoneError::kFull);
  EXPECT_EQ(Stat("ftl.zns.errors.full"), 1);
  EXPECT_EQ(Stat("ssd.errors"), 1);
  EXPECT_EQ(Stat("ftl.host_writes"), 24);  // nothing of the refused write reached flash
  // The written pages are on flash and read back from there.
  FlashPlace p;
  EXPECT_TRUE(ssd_->Locate(ZoneByte(0) + 23 * kPage, &p));
  EXPECT_EQ(Stat("ftl.zns.open_zones"), 0);
  EXPECT_EQ(Stat("ftl.zns.full_zones"), 1);
}

TEST_F(ZnsTest, WriteNotAtTheWritePointerFailsWhole) {
  EXPECT_EQ(Write(1, 0, 2), ZoneError::kOk);
  EXPECT_EQ(Write(1, 5, 1), ZoneError::kInvalidWrite);  // ahead of the pointer
  EXPECT_EQ(Write(1, 0, 1), ZoneError::kInvalidWrite);  // behind it (a rewrite)
  EXPECT_EQ(Write(2, 3, 1), ZoneError::kInvalidWrite);  // an empty zone's pointer is its start
  EXPECT_EQ(State(2), ZoneState::kEmpty);               // a refused write opens nothing
  EXPECT_EQ(Wp(1), 2u);
  EXPECT_EQ(Stat("ftl.zns.errors.invalid_write"), 3);
  EXPECT_EQ(Stat("ssd.error_pages"), 3);
  EXPECT_EQ(Stat("ftl.host_writes"), 2);
}

TEST_F(ZnsTest, WritesPastCapacityOrAcrossZonesFailWithBoundary) {
  EXPECT_EQ(Write(0, 0, 20), ZoneError::kOk);
  EXPECT_EQ(Write(0, 20, 5), ZoneError::kBoundary);  // crosses the capacity (24)
  EXPECT_EQ(Wp(0), 20u);
  EXPECT_EQ(State(0), ZoneState::kImplicitlyOpen);
  EXPECT_EQ(Write(0, 20, 4), ZoneError::kOk);
  EXPECT_EQ(Stat("ftl.zns.errors.boundary"), 1);
  // The LBAs between capacity and size read as unwritten, without flash.
  BlockRequest* r = Do(BlockOp::kRead, ZoneByte(0) + 30 * kPage, kPage);
  EXPECT_EQ(r->status, IoStatus::kOk);
}

TEST_F(ZnsTest, PartialPageWritesInZonesAreRefused) {
  BlockRequest* r = Do(BlockOp::kWrite, ZoneByte(0), 4096);
  EXPECT_EQ(r->status, IoStatus::kPartialPage);
  EXPECT_EQ(State(0), ZoneState::kEmpty);
  EXPECT_EQ(Wp(0), 0u);
}

TEST_F(ZnsTest, ZoneAppendReturnsTheLbaTheDeviceChose) {
  BlockRequest* a = Submit(BlockOp::kZoneAppend, ZoneByte(3), 2 * kPage);
  BlockRequest* b = Submit(BlockOp::kZoneAppend, ZoneByte(3), 3 * kPage);
  eq_.Run();
  ASSERT_EQ(a->status, IoStatus::kOk);
  ASSERT_EQ(b->status, IoStatus::kOk);
  EXPECT_EQ(a->result_offset, ZoneByte(3));
  EXPECT_EQ(b->result_offset, ZoneByte(3) + 2 * kPage);
  EXPECT_EQ(Wp(3), 5u);
  EXPECT_EQ(State(3), ZoneState::kImplicitlyOpen);
  FlashPlace p;
  EXPECT_TRUE(ssd_->Locate(ZoneByte(3) + 4 * kPage, &p));
  EXPECT_EQ(Stat("ftl.zns.appends"), 2);
  EXPECT_EQ(Stat("ssd.ops.write"), 2);  // an append is a write
  // Not a zone start: Invalid Field; crossing capacity: Zone Boundary Error.
  BlockRequest* c = Do(BlockOp::kZoneAppend, ZoneByte(3) + kPage, kPage);
  EXPECT_EQ(c->status, IoStatus::kZoneError);
  EXPECT_EQ(c->zone_error, ZoneError::kInvalidField);
  BlockRequest* d = Do(BlockOp::kZoneAppend, ZoneByte(3), 20 * kPage);
  EXPECT_EQ(d->zone_error, ZoneError::kBoundary);
  EXPECT_EQ(Wp(3), 5u);
  BlockRequest* e = Do(BlockOp::kZoneAppend, ZoneByte(3), 19 * kPage);
  EXPECT_EQ(e->status, IoStatus::kOk);
  EXPECT_EQ(e->result_offset, ZoneByte(3) + 5 * kPage);
  EXPECT_EQ(State(3), ZoneState::kFull);
  BlockRequest* f = Do(BlockOp::kZoneAppend, ZoneByte(3), kPage);
  EXPECT_EQ(f->zone_error, ZoneError::kFull);
}

TEST_F(ZnsTest, OpenLimitClosesTheLeastRecentImplicitlyOpenZone) {
  ASSERT_EQ(Write(0, 0, 1), ZoneError::kOk);
  ASSERT_EQ(Write(1, 0, 1), ZoneError::kOk);
  EXPECT_EQ(Stat("ftl.zns.open_zones"), 2);
  // A third zone: the device closes zone 0 (ZSIO -> ZSC) to open zone 2.
  ASSERT_EQ(Write(2, 0, 1), ZoneError::kOk);
  EXPECT_EQ(State(0), ZoneState::kClosed);
  EXPECT_EQ(State(1), ZoneState::kImplicitlyOpen);
  EXPECT_EQ(State(2), ZoneState::kImplicitlyOpen);
  EXPECT_EQ(Stat("ftl.zns.implicit_closes"), 1);
  EXPECT_EQ(Stat("ftl.zns.active_zones"), 3);
  // Three zones active (max 3): an empty zone cannot become active.
  EXPECT_EQ(Write(3, 0, 1), ZoneError::kTooManyActive);
  EXPECT_EQ(Mgmt(3, ZoneAction::kOpen), ZoneError::kTooManyActive);
  EXPECT_EQ(Mgmt(3, ZoneAction::kFinish), ZoneError::kTooManyActive);  // ZSE -> ZSF needs an active resource
  EXPECT_EQ(State(3), ZoneState::kEmpty);
  // A closed zone may reopen (ZSC -> ZSIO), closing zone 1 (opened before zone 2).
  ASSERT_EQ(Write(0, 1, 1), ZoneError::kOk);
  EXPECT_EQ(State(0), ZoneState::kImplicitlyOpen);
  EXPECT_EQ(State(1), ZoneState::kClosed);
  // Explicitly open both open zones: now no implicit zone can be closed.
  ASSERT_EQ(Mgmt(0, ZoneAction::kOpen), ZoneError::kOk);  // ZSIO -> ZSEO
  ASSERT_EQ(Mgmt(2, ZoneAction::kOpen), ZoneError::kOk);
  EXPECT_EQ(State(0), ZoneState::kExplicitlyOpen);
  EXPECT_EQ(Write(1, 1, 1), ZoneError::kTooManyOpen);
  EXPECT_EQ(Mgmt(1, ZoneAction::kOpen), ZoneError::kTooManyOpen);
  EXPECT_EQ(State(1), ZoneState::kClosed);
  EXPECT_EQ(Stat("ftl.zns.errors.too_many_open"), 2);
  EXPECT_EQ(Stat("ftl.zns.errors.too_many_active"), 3);
  // Writes into an explicitly open zone keep it explicitly open.
  ASSERT_EQ(Write(0, 2, 1), ZoneError::kOk);
  EXPECT_EQ(State(0), ZoneState::kExplicitlyOpen);
}

TEST_F(ZnsTest, ExplicitOpenAndClose) {
  ASSERT_EQ(Mgmt(0, ZoneAction::kOpen), ZoneError::kOk);  // ZSE -> ZSEO
  EXPECT_EQ(State(0), ZoneState::kExplicitlyOpen);
  EXPECT_EQ(Mgmt(0, ZoneAction::kOpen), ZoneError::kOk);  // already open: no change
  ASSERT_EQ(Mgmt(0, ZoneAction::kClose), ZoneError::kOk);  // nothing written: ZSEO -> ZSE
  EXPECT_EQ(State(0), ZoneState::kEmpty);
  EXPECT_EQ(Stat("ftl.zns.active_zones"), 0);
  EXPECT_EQ(Mgmt(0, ZoneAction::kClose), ZoneError::kInvalidTransition);  // ZSE cannot close
  ASSERT_EQ(Mgmt(0, ZoneAction::kOpen), ZoneError::kOk);
  ASSERT_EQ(Write(0, 0, 3), ZoneError::kOk);
  EXPECT_EQ(State(0), ZoneState::kExplicitlyOpen);
  ASSERT_EQ(Mgmt(0, ZoneAction::kClose), ZoneError::kOk);  // ZSEO -> ZSC
  EXPECT_EQ(State(0), ZoneState::kClosed);
  EXPECT_EQ(Mgmt(0, ZoneAction::kClose), ZoneError::kOk);  // already closed: no change
  ASSERT_EQ(Mgmt(0, ZoneAction::kOpen), ZoneError::kOk);   // ZSC -> ZSEO
  EXPECT_EQ(State(0), ZoneState::kExplicitlyOpen);
  EXPECT_EQ(Wp(0), 3u);  // closing and opening keep the pointer
  ASSERT_EQ(Write(1, 0, 1), ZoneError::kOk);
  ASSERT_EQ(Mgmt(1, ZoneAction::kClose), ZoneError::kOk);  // ZSIO -> ZSC
  EXPECT_EQ(State(1), ZoneState::kClosed);
  ASSERT_EQ(Write(1, 1, 23), ZoneError::kOk);  // ZSC -> ZSIO -> ZSF
  EXPECT_EQ(State(1), ZoneState::kFull);
  EXPECT_EQ(Mgmt(1, ZoneAction::kOpen), ZoneError::kInvalidTransition);
  EXPECT_EQ(Mgmt(1, ZoneAction::kClose), ZoneError::kInvalidTransition);
  EXPECT_EQ(Stat("ftl.zns.errors.invalid_transition"), 3);
  EXPECT_EQ(Stat("ftl.zns.commands.open"), 4);
}

TEST_F(ZnsTest, FinishFromEveryStateThatAllowsIt) {
  ASSERT_EQ(Mgmt(0, ZoneAction::kFinish), ZoneError::kOk);  // ZSE -> ZSF
  ASSERT_EQ(Write(1, 0, 2), ZoneError::kOk);
  ASSERT_EQ(Mgmt(1, ZoneAction::kFinish), ZoneError::kOk);  // ZSIO -> ZSF
  ASSERT_EQ(Mgmt(2, ZoneAction::kOpen), ZoneError::kOk);
  ASSERT_EQ(Mgmt(2, ZoneAction::kFinish), ZoneError::kOk);  // ZSEO -> ZSF
  ASSERT_EQ(Write(3, 0, 2), ZoneError::kOk);
  ASSERT_EQ(Mgmt(3, ZoneAction::kClose), ZoneError::kOk);
  ASSERT_EQ(Mgmt(3, ZoneAction::kFinish), ZoneError::kOk);  // ZSC -> ZSF
  ASSERT_EQ(Mgmt(3, ZoneAction::kFinish), ZoneError::kOk);  // ZSF: no change
  for (uint64_t z = 0; z < 4; ++z) {
    EXPECT_EQ(State(z), ZoneState::kFull) << z;
    EXPECT_EQ(Wp(z), 24u) << z;  // the pointer moves to the capacity
    EXPECT_EQ(Write(z, 24, 1), ZoneError::kFull) << z;
  }
  EXPECT_EQ(Stat("ftl.zns.active_zones"), 0);
  EXPECT_EQ(Stat("ftl.host_writes"), 4);  // finish programs nothing
}

TEST_F(ZnsTest, ResetErasesTheZonesBlocksWithTheFlashEraseTime) {
  ASSERT_EQ(Write(0, 0, 24), ZoneError::kOk);
  ASSERT_EQ(State(0), ZoneState::kFull);
  const double erases = Stat("ftl.erases");
  BlockRequest* r = Do(BlockOp::kZoneMgmt, ZoneByte(0), 0, ZoneAction::kReset);  // ZSF -> ZSE
  ASSERT_EQ(r->status, IoStatus::kOk);
  EXPECT_EQ(State(0), ZoneState::kEmpty);
  EXPECT_EQ(Wp(0), 0u);
  EXPECT_EQ(Stat("ftl.erases") - erases, 2);  // the zone's two blocks
  EXPECT_EQ(Stat("ftl.zns.reset_blocks"), 2);
  // Both blocks are on one die's two planes; the die erases them one after
  // the other (this flash config merges no multi-plane erase): two tBERS.
  const sim::SimTime lat = r->complete_time - r->submit_time;
  EXPECT_GE(lat, flash::testing::TestFlashConfig().timing.t_erase * 2);
  EXPECT_LT(lat, flash::testing::TestFlashConfig().timing.t_erase * 3);
  FlashPlace p;
  EXPECT_FALSE(ssd_->Locate(ZoneByte(0), &p));  // reads as unwritten
  // The zone is writable from its start again.
  EXPECT_EQ(Write(0, 0, 24), ZoneError::kOk);
  EXPECT_EQ(State(0), ZoneState::kFull);
  // Reset of an open and of a closed zone; of an empty zone: no erase, no wait.
  ASSERT_EQ(Write(1, 0, 1), ZoneError::kOk);
  EXPECT_EQ(Mgmt(1, ZoneAction::kReset), ZoneError::kOk);  // ZSIO -> ZSE
  ASSERT_EQ(Write(2, 0, 1), ZoneError::kOk);
  ASSERT_EQ(Mgmt(2, ZoneAction::kClose), ZoneError::kOk);
  EXPECT_EQ(Mgmt(2, ZoneAction::kReset), ZoneError::kOk);  // ZSC -> ZSE
  ASSERT_EQ(Mgmt(4, ZoneAction::kOpen), ZoneError::kOk);
  EXPECT_EQ(Mgmt(4, ZoneAction::kReset), ZoneError::kOk);  // ZSEO -> ZSE
  EXPECT_EQ(State(1), ZoneState::kEmpty);
  EXPECT_EQ(State(2), ZoneState::kEmpty);
  EXPECT_EQ(State(4), ZoneState::kEmpty);
  EXPECT_EQ(Stat("ftl.zns.active_zones"), 0);
  const double before = Stat("ftl.erases");
  BlockRequest* e = Do(BlockOp::kZoneMgmt, ZoneByte(5), 0, ZoneAction::kReset);
  EXPECT_EQ(e->status, IoStatus::kOk);
  EXPECT_LT(e->complete_time - e->submit_time, flash::testing::TestFlashConfig().timing.t_erase);
  EXPECT_EQ(Stat("ftl.erases"), before);
  EXPECT_EQ(Stat("ssd.zone_commands"), 7);
}

TEST_F(ZnsTest, ReadOnlyAndOfflineZones) {
  ASSERT_EQ(Write(0, 0, 2), ZoneError::kOk);
  zoned_->FailZone(0, ZoneState::kReadOnly);  // the controller's ZSIO -> ZSRO
  EXPECT_EQ(State(0), ZoneState::kReadOnly);
  EXPECT_EQ(Stat("ftl.zns.active_zones"), 0);
  EXPECT_EQ(Write(0, 2, 1), ZoneError::kReadOnly);
  EXPECT_EQ(Mgmt(0, ZoneAction::kReset), ZoneError::kReadOnly);
  EXPECT_EQ(Mgmt(0, ZoneAction::kOpen), ZoneError::kReadOnly);
  EXPECT_EQ(Mgmt(0, ZoneAction::kFinish), ZoneError::kReadOnly);
  EXPECT_EQ(Do(BlockOp::kRead, ZoneByte(0), kPage)->status, IoStatus::kOk);  // still readable
  EXPECT_EQ(Mgmt(1, ZoneAction::kOffline), ZoneError::kInvalidTransition);  // only ZSRO -> ZSO
  ASSERT_EQ(Mgmt(0, ZoneAction::kOffline), ZoneError::kOk);                  // ZSRO -> ZSO
  EXPECT_EQ(State(0), ZoneState::kOffline);
  EXPECT_EQ(Write(0, 2, 1), ZoneError::kOffline);
  EXPECT_EQ(Mgmt(0, ZoneAction::kReset), ZoneError::kOffline);
  EXPECT_EQ(Mgmt(0, ZoneAction::kOffline), ZoneError::kOffline);
  zoned_->FailZone(2, ZoneState::kOffline);  // the controller's ZSE -> ZSO
  EXPECT_EQ(Mgmt(2, ZoneAction::kClose), ZoneError::kOffline);
  EXPECT_EQ(Stat("ftl.zns.errors.read_only"), 4);
  EXPECT_EQ(Stat("ftl.zns.errors.offline"), 4);
}

TEST_F(ZnsTest, ZoneCommandsOnANonZoneStartFailWithInvalidField) {
  BlockRequest* r = Do(BlockOp::kZoneMgmt, ZoneByte(1) + kPage, 0, ZoneAction::kReset);
  EXPECT_EQ(r->status, IoStatus::kZoneError);
  EXPECT_EQ(r->zone_error, ZoneError::kInvalidField);
  EXPECT_EQ(Stat("ftl.zns.errors.invalid_field"), 1);
}

TEST(ZnsLayoutTest, ConventionalAreaTakesRandomRewrites) {
  Rig t;
  t.Build(ZnsFtlConfig(1, 32, 32, 0, 0, 2 * 16 * kPage));
  ftl::Zoned* z = t.zoned_;
  EXPECT_EQ(z->conventional_pages(), 32u);
  for (uint64_t k = 0; k < 200; ++k) {
    BlockRequest* r = t.Do(BlockOp::kWrite, ((k * 7) % 32) * kPage, kPage);
    ASSERT_EQ(r->status, IoStatus::kOk) << k;
  }
  EXPECT_GT(t.Stat("ftl.page_mapped.gc_copies") + t.Stat("ftl.page_mapped.erases"), 0);
  // A write reaching from the conventional area into the first zone fails.
  BlockRequest* r = t.Do(BlockOp::kWrite, 31 * kPage, 2 * kPage);
  EXPECT_EQ(r->zone_error, ZoneError::kBoundary);
  EXPECT_EQ(t.Write(0, 0, 32), ZoneError::kOk);
  EXPECT_EQ(t.State(0), ZoneState::kFull);
}

// What `check` derives from the configuration (FtlConfig::Zones, used to
// check workloads before a run) is the layout the built device reports.
TEST(ZnsLayoutTest, TheLayoutCheckDerivesIsTheBuiltDevicesLayout) {
  for (const ftl::FtlConfig& fc : {ZnsFtlConfig(1, 32, 24, 2, 3), ZnsFtlConfig(2, 0, 0, 0, 0),
                                   ZnsFtlConfig(1, 32, 32, 0, 0, 2 * 16 * kPage)}) {
    Rig t;
    t.Build(fc);
    ftl::ZoneLayout want;
    ASSERT_TRUE(fc.Zones(t.geo_, &want));
    const ftl::ZoneLayout got = t.zoned_->layout();
    EXPECT_EQ(got.conventional_pages, want.conventional_pages);
    EXPECT_EQ(got.zones, want.zones);
    EXPECT_EQ(got.zone_pages, want.zone_pages);
    EXPECT_EQ(got.zone_capacity, want.zone_capacity);
    EXPECT_EQ(got.max_open, want.max_open);
    EXPECT_EQ(got.max_active, want.max_active);
  }
  ftl::FtlConfig page;
  page.kind = "page";
  ftl::ZoneLayout none;
  EXPECT_FALSE(page.Zones(flash::testing::TinyGeometry(), &none));
}

TEST(ZnsLayoutTest, AZoneStripesOverItsDiesPageByPage) {
  for (uint32_t dies : {1u, 2u, 4u}) {
    Rig t;
    t.Build(ZnsFtlConfig(dies, 0, 0, 0, 0));  // size 0: one row over the zone's dies
    const uint64_t lanes = dies * 2;
    EXPECT_EQ(t.zoned_->zone_pages(), lanes * 16) << dies;
    EXPECT_EQ(t.zoned_->zones(), 6u * 4 / dies) << dies;
    for (uint64_t z : {uint64_t{0}, uint64_t{1}}) {
      ASSERT_EQ(t.Write(z, 0, lanes * 2), ZoneError::kOk);
      std::set<std::pair<uint32_t, uint32_t>> die_set;
      std::set<uint64_t> planes;
      for (uint64_t o = 0; o < lanes * 2; ++o) {
        FlashPlace p;
        ASSERT_TRUE(t.ssd_->Locate(t.ZoneByte(z) + o * kPage, &p));
        die_set.insert({p.channel, p.chip});
        planes.insert((uint64_t{p.channel} * 2 + p.chip) * 2 + p.plane);
        if (o > 0) {
          FlashPlace q;
          ASSERT_TRUE(t.ssd_->Locate(t.ZoneByte(z) + (o - 1) * kPage, &q));
          EXPECT_FALSE(p.channel == q.channel && p.chip == q.chip && p.plane == q.plane)
              << "consecutive pages of a zone on one plane, dies " << dies;
        }
      }
      EXPECT_EQ(die_set.size(), dies);
      EXPECT_EQ(planes.size(), lanes);
      if (dies == 2) {  // channel-first: a two-die zone spans both channels
        std::set<uint32_t> channels;
        for (auto& d : die_set) channels.insert(d.first);
        EXPECT_EQ(channels.size(), 2u);
      }
    }
  }
}

TEST(ZnsConfigTest, BadZoneConfigsAreRefusedNamingTheKey) {
  const flash::Geometry g = flash::testing::TinyGeometry();
  auto err = [&](const ftl::FtlConfig& c) { return c.Validate(g).message(); };
  EXPECT_TRUE(ZnsFtlConfig(1, 32, 24, 2, 3).Validate(g).ok());
  EXPECT_NE(err(ZnsFtlConfig(1, 32, 40, 0, 0)).find("ftl.zns.zone_capacity"), std::string::npos);
  EXPECT_NE(err(ZnsFtlConfig(3, 32, 24, 0, 0)).find("ftl.zns.zone_dies"), std::string::npos);
  EXPECT_NE(err(ZnsFtlConfig(1, 32, 24, 4, 3)).find("ftl.zns.max_open"), std::string::npos);
  // 7 rows of blocks per plane needed, 6 there.
  EXPECT_NE(err(ZnsFtlConfig(1, 7 * 32, 7 * 32, 0, 0)).find("ftl.zns.zone_capacity"), std::string::npos);
  ftl::FtlConfig sz = ZnsFtlConfig(1, 32, 24, 0, 0);
  sz.kinds.Mutable<ZnsConfig>("zns").zone_size = sim::Bytes{32 * kPage + 512};
  EXPECT_NE(err(sz).find("ftl.zns.zone_size"), std::string::npos);
  ftl::FtlConfig pre = ZnsFtlConfig(1, 32, 24, 0, 0);
  pre.precondition.enabled = true;
  EXPECT_NE(err(pre).find("ftl.precondition.enabled"), std::string::npos);
  ftl::FtlConfig pm = ZnsFtlConfig(1, 32, 24, 0, 0);
  pm.kinds.Mutable<ftl::StaticBlockConfig>("static_block").page_mapped = sim::Bytes{kPage};
  EXPECT_NE(err(pm).find("ftl.static_block.page_mapped"), std::string::npos);
  // No write buffer in front of a zoned device.
  DeviceConfig dev = sim::MakeDefault<DeviceConfig>();
  dev.ssd.write_buffer.size = sim::Bytes{1 << 20};
  EXPECT_FALSE(ValidateDeviceForFtl(dev, ZnsFtlConfig(1, 32, 24, 0, 0)).ok());
}

}  // namespace
}  // namespace ssd
