// The durability modes: name lookup and the checkpoint mode's decisions.
#include "fs/f2fs/durability.h"

#include <gtest/gtest.h>

#include "fs/f2fs/segment_manager.h"
#include "sim/config.h"

namespace fs::f2fs {
namespace {

struct FakeHost final : DurabilityHost {
  sim::SimTime Now() const override { return now; }
  bool IsIdle(sim::SimTime interval) const override { return idle; }
  uint64_t DirtyNodePages() const override { return dirty_nodes; }
  bool HasUncheckpointedChanges() const override { return dirty; }
  sim::SimTime now;
  bool idle = false;
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
  f.valid_blocks = fx.layout.user_block_count;
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

TEST(CheckpointDurabilityTest, BackgroundCheckpointWhenIdleDirtyAndTheIntervalPassed) {
  Fixture fx;
  auto d = fx.Make("checkpoint");
  d->OnCheckpointCommitted(sim::SimTime::Zero());
  fx.host.idle = true;
  fx.host.dirty = true;
  fx.host.now = fx.cfg.checkpoint.interval - sim::Sec(1);
  EXPECT_FALSE(d->NeedBackgroundCheckpoint());
  fx.host.now = fx.cfg.checkpoint.interval;
  EXPECT_TRUE(d->NeedBackgroundCheckpoint());
  fx.host.dirty = false;
  EXPECT_FALSE(d->NeedBackgroundCheckpoint()) << "nothing to write";
  fx.host.dirty = true;
  fx.host.idle = false;
  EXPECT_FALSE(d->NeedBackgroundCheckpoint()) << "busy and below every threshold";
  fx.host.dirty_nodes = fx.cfg.checkpoint.dirty_nodes_threshold;
  EXPECT_TRUE(d->NeedBackgroundCheckpoint()) << "excess dirty nodes";
  d->OnCheckpointCommitted(fx.host.now);
  fx.host.idle = true;
  fx.host.dirty_nodes = 0;
  EXPECT_FALSE(d->NeedBackgroundCheckpoint()) << "the interval restarts at the commit";
}

}  // namespace
}  // namespace fs::f2fs
