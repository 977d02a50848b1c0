// The durability modes: name lookup and the checkpoint mode's decisions.
#include "fs/f2fs/durability.h"

#include <gtest/gtest.h>

#include "fs/f2fs/segment_manager.h"
#include "sim/config.h"

namespace fs::f2fs {
namespace {

struct FakeHost final : DurabilityHost {
  sim::SimTime Now() const override { return now; }
  sim::SimTime LastRequestTime() const override { return last_request; }
  bool InflightIo(bool count_queued_discards) const override {
    return inflight_io || (count_queued_discards && queued_discards);
  }
  bool CheckpointLockHeld() const override { return lock_held; }
  uint64_t DirtyNodePages() const override { return dirty_nodes; }
  bool AnyIoInFlight() const override { return any_io; }
  bool HasUncheckpointedChanges() const override { return dirty; }
  sim::SimTime now;
  sim::SimTime last_request;
  bool inflight_io = false;
  bool queued_discards = false;
  bool lock_held = false;
  bool any_io = false;
  uint64_t dirty_nodes = 0;
  bool dirty = false;
};

struct Fixture {
  explicit Fixture(F2fsConfig c = sim::MakeDefault<F2fsConfig>())
      : cfg(std::move(c)),
        layout(ComputeLayout({256ull << 20, 1, 1, 0}).value()),
        alloc(MakeAllocationPolicy("default", AllocationPolicyContext{&cfg, &layout}).value()),
        nat(layout.max_nid, layout.nat_blocks),
        sm(layout, alloc.get()) {
    sm.FinishLoad();
  }
  std::unique_ptr<Durability> Make(const std::string& name) {
    auto d = MakeDurability(name, DurabilityContext{&cfg, &layout, &nat, &sm, &host});
    CHECK(d.ok()) << d.status().message();
    return std::move(d).value();
  }
  F2fsConfig cfg;
  Layout layout;
  std::unique_ptr<AllocationPolicy> alloc;
  NatTable nat;
  SegmentManager sm;
  FakeHost host;
};

FsyncFacts RegularFile() {
  FsyncFacts f;
  f.ino = Nid{4};
  f.pino = kRootIno;
  f.links = 1;
  return f;
}

TEST(DurabilityTest, UnknownModeListsTheChoices) {
  Fixture fx;
  auto d = MakeDurability("nope", DurabilityContext{&fx.cfg, &fx.layout, &fx.nat, &fx.sm, &fx.host});
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("choices: checkpoint"), std::string::npos) << d.status().message();
}

TEST(CheckpointDurabilityTest, FsyncRollsForwardUnlessACheckpointCaseApplies) {
  Fixture fx;
  auto d = fx.Make("checkpoint");
  EXPECT_FALSE(d->FsyncNeedsCheckpoint(RegularFile()));
  FsyncFacts f = RegularFile();
  f.is_dir = true;
  EXPECT_TRUE(d->FsyncNeedsCheckpoint(f));
  f = RegularFile();
  f.links = 2;
  EXPECT_TRUE(d->FsyncNeedsCheckpoint(f));
  f = RegularFile();
  f.lost_pino = true;
  EXPECT_TRUE(d->FsyncNeedsCheckpoint(f));
  f = RegularFile();
  f.valid_blocks_at_checkpoint = fx.layout.user_block_count;
  f.allocated_since_checkpoint = 1;
  EXPECT_TRUE(d->FsyncNeedsCheckpoint(f));
  f = RegularFile();
  f.parent_dentries_changed = true;
  EXPECT_FALSE(d->FsyncNeedsCheckpoint(f)) << "posix fsync_mode ignores the parent's changes";

  F2fsConfig fastboot = sim::MakeDefault<F2fsConfig>();
  fastboot.fastboot = true;
  Fixture fb(fastboot);
  EXPECT_TRUE(fb.Make("checkpoint")->FsyncNeedsCheckpoint(RegularFile()));
}

TEST(CheckpointDurabilityTest, BackgroundCheckpointWhenDirtyAndTheIntervalPassed) {
  Fixture fx;
  auto d = fx.Make("checkpoint");
  d->OnCheckpointCommitted(sim::SimTime::Zero());
  fx.host.dirty = true;
  fx.host.now = fx.cfg.checkpoint.interval - sim::Sec(1);
  EXPECT_FALSE(d->NeedBackgroundCheckpoint());
  fx.host.now = fx.cfg.checkpoint.interval;
  EXPECT_TRUE(d->NeedBackgroundCheckpoint());
  fx.host.dirty = false;
  EXPECT_FALSE(d->NeedBackgroundCheckpoint()) << "nothing to write";
  fx.host.dirty = true;
  fx.host.inflight_io = true;
  EXPECT_FALSE(d->NeedBackgroundCheckpoint()) << "I/O in flight and below every threshold";
  fx.host.dirty_nodes = fx.cfg.checkpoint.dirty_nodes_threshold;
  EXPECT_TRUE(d->NeedBackgroundCheckpoint()) << "excess dirty nodes";
  d->OnCheckpointCommitted(fx.host.now);
  fx.host.inflight_io = false;
  fx.host.dirty_nodes = 0;
  EXPECT_FALSE(d->NeedBackgroundCheckpoint()) << "the interval restarts at the commit";
}

// Linux 4.15's f2fs_balance_fs_bg: no dirty-node trigger, and under load
// (a request in flight or within idle_interval) only excess dirty NATs
// write a checkpoint; once idle, excess prefree or the interval do too.
TEST(CheckpointDurabilityTest, Linux415TriggersNeedIdleAndIgnoreDirtyNodes) {
  F2fsConfig c = sim::MakeDefault<F2fsConfig>();
  c.checkpoint.bg_triggers = "linux-4.15";
  Fixture fx(c);
  auto d = fx.Make("checkpoint");
  d->OnCheckpointCommitted(sim::SimTime::Zero());
  fx.host.dirty = true;
  fx.host.now = fx.cfg.checkpoint.interval + sim::Sec(1);
  fx.host.last_request = fx.host.now - sim::Ms(10);
  EXPECT_FALSE(d->NeedBackgroundCheckpoint()) << "a request 10 ms ago: not idle";
  fx.host.dirty_nodes = 100 * fx.cfg.checkpoint.dirty_nodes_threshold;
  EXPECT_FALSE(d->NeedBackgroundCheckpoint()) << "no dirty-node trigger in 4.15";
  fx.host.last_request = fx.host.now - fx.cfg.checkpoint.idle_interval;
  EXPECT_TRUE(d->NeedBackgroundCheckpoint()) << "idle and the interval passed";
  fx.host.any_io = true;
  EXPECT_FALSE(d->NeedBackgroundCheckpoint()) << "a request in flight (any kind): not idle";
  fx.host.any_io = false;
  d->OnCheckpointCommitted(fx.host.now);
  EXPECT_FALSE(d->NeedBackgroundCheckpoint()) << "idle, but the interval restarted and nothing is in excess";
  // The same host state under the default (5.15) triggers checkpoints for
  // the dirty nodes.
  Fixture f515;
  auto d515 = f515.Make("checkpoint");
  f515.host = fx.host;
  d515->OnCheckpointCommitted(fx.host.now);
  EXPECT_TRUE(d515->NeedBackgroundCheckpoint());
}

// f2fs_balance_fs_bg: the periodic checkpoint needs no idle period, only no
// I/O in flight and no operation of a recent request holding cp_rwsem.
TEST(CheckpointDurabilityTest, PeriodicCheckpointUnderLoadWhenNoIoInFlightAndTheLockIsFree) {
  Fixture fx;
  auto d = fx.Make("checkpoint");
  d->OnCheckpointCommitted(sim::SimTime::Zero());
  fx.host.dirty = true;
  fx.host.now = fx.cfg.checkpoint.interval + sim::Sec(1);
  fx.host.last_request = fx.host.now - sim::Ms(10);  // busy: far less than idle_interval ago
  EXPECT_TRUE(d->NeedBackgroundCheckpoint()) << "no I/O in flight, cp_rwsem free";
  fx.host.lock_held = true;
  EXPECT_FALSE(d->NeedBackgroundCheckpoint()) << "an operation of a recent request holds cp_rwsem";
  fx.host.last_request = fx.host.now - fx.cfg.checkpoint.idle_interval;
  EXPECT_TRUE(d->NeedBackgroundCheckpoint()) << "the holder's request is older than idle_interval";
  fx.host.lock_held = false;
  fx.host.last_request = fx.host.now - sim::Ms(10);
  fx.host.inflight_io = true;
  EXPECT_FALSE(d->NeedBackgroundCheckpoint()) << "I/O in flight";
  fx.host.inflight_io = false;
  fx.host.queued_discards = true;
  EXPECT_FALSE(d->NeedBackgroundCheckpoint()) << "discards in flight count for the checkpoint's check";
}

// excess_prefree_segs (like excess dirty nodes/NATs) triggers a checkpoint
// whatever the load.
TEST(CheckpointDurabilityTest, ExcessPrefreeSegmentsCheckpointUnderLoad) {
  Fixture fx;
  auto d = fx.Make("checkpoint");
  d->OnCheckpointCommitted(sim::SimTime::Zero());
  fx.host.dirty = true;
  fx.host.now = sim::Sec(1);
  fx.host.last_request = fx.host.now;
  fx.host.inflight_io = true;
  fx.host.lock_held = true;
  EXPECT_FALSE(d->NeedBackgroundCheckpoint());
  // More segments in use without valid blocks (prefree) than prefree_ratio
  // of the main area.
  const uint32_t reclaim = static_cast<uint32_t>(fx.cfg.checkpoint.prefree_ratio.value * fx.sm.main_segments());
  for (uint32_t s = fx.sm.main_segments() - 1; fx.sm.prefree_segments() <= reclaim; --s)
    if (fx.sm.IsFree(SegNo{s})) fx.sm.ReserveSegment(SegNo{s});
  ASSERT_GT(fx.sm.prefree_segments(), reclaim);
  EXPECT_TRUE(d->NeedBackgroundCheckpoint());
}

}  // namespace
}  // namespace fs::f2fs
