// Checkpoint-based durability (Linux 5.15 fs/f2fs): metadata reaches flash
// with the next checkpoint, so the operation-time hooks have nothing to do;
// fsync relies on roll-forward recovery except in need_do_checkpoint's
// cases; f2fs_balance_fs_bg decides the background checkpoints.
#include <algorithm>

#include "fs/f2fs/durability.h"
#include "fs/f2fs/segment_manager.h"
#include "sim/registry.h"

namespace fs::f2fs {
namespace {

class CheckpointDurability final : public Durability {
 public:
  explicit CheckpointDurability(const DurabilityContext& ctx)
      : cfg_(*ctx.cfg), layout_(*ctx.layout), nat_(*ctx.nat), sm_(*ctx.sm), host_(*ctx.host) {}

  void OnCreate(Nid, Nid, std::string_view, bool) override {}
  void OnUnlink(Nid, Nid, std::string_view, bool) override {}
  void OnRename(Nid, std::string_view, Nid, std::string_view, Nid, Nid) override {}
  void OnLink(Nid, Nid, std::string_view) override {}
  void OnSetattr(Nid, uint64_t) override {}
  void OnBlockUpdate(const BlockUpdate&) override {}

  // need_do_checkpoint, in the kernel's order of cases.
  bool FsyncNeedsCheckpoint(const FsyncFacts& f) const override {
    if (f.is_dir) return true;          // CP_NON_REGULAR
    if (f.links != 1) return true;      // CP_HARDLINK
    if (f.lost_pino) return true;       // CP_WRONG_PINO
    // f2fs_space_for_roll_forward: blocks allocated since the checkpoint must
    // fit the user space on top of the checkpoint's count (recovery replays
    // them on top of the checkpoint, where what was freed since is in use).
    if (f.valid_blocks_at_checkpoint + f.allocated_since_checkpoint > layout_.user_block_count) return true;
    if (!nat_.Valid(f.pino) || !nat_.Get(f.pino).checkpointed) return true;  // CP_NODE_NEED_CP
    if (cfg_.fastboot) return true;            // CP_FASTBOOT_MODE
    if (cfg_.active_logs == 2) return true;    // CP_SPEC_LOG_NUM
    if (cfg_.fsync_mode == "strict" && f.parent_dentries_changed) {
      const NatTable::Entry& e = nat_.Get(f.ino);
      if (!e.checkpointed && !e.fsynced_inode) return true;  // CP_RECOVER_DIR
    }
    return false;
  }

  // f2fs_balance_fs_bg's checkpoint triggers, in the kernel's order.
  bool NeedBackgroundCheckpoint() const override {
    const CheckpointConfig& c = cfg_.checkpoint;
    if (!c.background) return false;
    // do_sync writes no checkpoint when nothing is dirty (f2fs_write_checkpoint).
    if (!host_.HasUncheckpointedChanges()) return false;
    // Too much to write at the next checkpoint: one now, whatever the load.
    const bool excess_nats = static_cast<double>(nat_.dirty_count()) >= c.dirty_nats_ratio.value * layout_.max_nid;
    const bool excess_nodes = host_.DirtyNodePages() >= c.dirty_nodes_threshold;
    const uint32_t reclaim =
        std::min<uint32_t>(static_cast<uint32_t>(c.prefree_ratio.value * sm_.main_segments()), 4096);
    const bool excess_prefree = sm_.prefree_segments() > reclaim;
    if (c.bg_triggers == "linux-4.15") {
      // Linux 4.15: if (!is_idle(sbi) && !excess_dirty_nats(sbi)) return;
      // then excess prefree, excess NATs or cp_interval (no dirty-node
      // trigger). is_idle: no request queued and none for REQ_TIME.
      const bool idle =
          !host_.AnyIoInFlight() && host_.Now() - host_.LastRequestTime() >= c.idle_interval;
      if (!idle && !excess_nats) return false;
      return excess_prefree || excess_nats || host_.Now() - last_cp_time_ >= c.interval;
    }
    if (excess_nats || excess_nodes || excess_prefree) return true;
    // Background I/O in flight, or a foreground operation recently (a request
    // within idle_interval while cp_rwsem is held): not now.
    const bool recent_request = host_.Now() - host_.LastRequestTime() < c.idle_interval;
    if (host_.InflightIo(/*count_queued_discards=*/true) || (recent_request && host_.CheckpointLockHeld()))
      return false;
    if (host_.Now() - last_cp_time_ >= c.interval) return true;
    // The kernel also checkpoints when both the NAT entry and the ino entry
    // caches exceed their memory budgets (f2fs_available_free_memory): a
    // checkpoint is what shrinks them. The model does not bound those
    // caches, so this trigger never fires.
    return false;
  }

  void OnCheckpointCommitted(sim::SimTime when) override { last_cp_time_ = when; }

 private:
  const F2fsConfig& cfg_;
  const Layout& layout_;
  const NatTable& nat_;
  const SegmentManager& sm_;
  const DurabilityHost& host_;
  sim::SimTime last_cp_time_;
};

}  // namespace

const sim::Registrar<DurabilityInfo> kRegistered{{
    "checkpoint",
    "the kernel's: metadata is durable at the next checkpoint; fsync writes dnodes for roll-forward recovery "
    "or a checkpoint (need_do_checkpoint); background checkpoints (f2fs_balance_fs_bg)",
    [](const DurabilityContext& ctx) -> std::unique_ptr<Durability> {
      return std::make_unique<CheckpointDurability>(ctx);
    },
    {}}};

}  // namespace fs::f2fs
