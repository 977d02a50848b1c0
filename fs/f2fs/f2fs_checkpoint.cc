// The F2fs's side of the checkpoint (CheckpointManager::Host,
// checkpoint_manager.h): the dentry writeback it asks for, the journal's
// apply (apply: committed), the inode times, the transactions' master
// nodes and the pack's space counts; the background thread's checkpoint
// check (f2fs_balance_fs_bg; the durability mode decides); and at mount,
// the logs a fixed-placement device programmed past.
#include <algorithm>

#include <fmt/format.h>

#include "fs/f2fs/f2fs.h"

namespace fs::f2fs {

bool F2fs::FsDirty() const {
  return !nm_->cache().dirty().empty() || nat_->dirty_count() > 0 || !sm_->dirty_sit().empty() || dp_->dirty_dentry_pages() > 0 ||
         !sm_->DirtySsaSegments().empty() || sm_->prefree_segments() > 0;
}

sim::Task<void> F2fs::SyncDirtyDirs() {
  std::vector<uint32_t> dirs(dp_->dirty_dirs().begin(), dp_->dirty_dirs().end());
  for (uint32_t ino : dirs) {
    Inode* d = FindInode(Nid{ino});
    if (!d) continue;
    cpm_->stats().blocks.Inc(d->dirty_pages);  // every dirty dentry page is written
    co_await WritebackInode(d, UINT64_MAX, /*wait=*/false, /*from_cp=*/true);
  }
}

sim::Task<void> F2fs::ApplyCommitted() {
  const sim::SimTime t0 = q_->now();
  // The apply does not commit the running epoch itself: a commit waits for
  // the data writes its records describe, and a writer may be waiting for
  // this checkpoint (foreground cleaning) with such a write in its batch.
  // Records below `durable` are durable; a page last dirtied before it
  // (dirty_seq) carries only their changes, so it is written now, once,
  // with its latest content. Pages dirtied since are held back for the
  // checkpoint's pass. Replay needs none of these writes (it starts from
  // the checkpoint's state); they shorten the time the checkpoint holds
  // cp_rwsem exclusive.
  const uint64_t durable = jcm_->durable_seq();
  IoBatch batch(q_);
  {
    vfs::SharedLock cp = co_await LockOp();
    if (dead_) co_return;
    std::vector<NodePage*> pages;
    uint64_t held = 0;
    nm_->cache().dirty().ForEach([&](uint64_t nid) {
      NodePage* np = nm_->cache().DirtyPage(static_cast<uint32_t>(nid));
      if (np->dirty_seq < durable) {
        pages.push_back(np);
      } else {
        ++held;
      }
      return true;
    });
    WriteBatcher wb(io_.get(), Io::kNode, &batch);
    for (NodePage* np : pages) WriteNodePage(np, false, false, wb);
    wb.Flush();
    stats_.j_applies.Inc();
    stats_.j_apply_blocks.Inc(pages.size());
    stats_.j_apply_held.Inc(held);
  }
  co_await io_->WaitBatch(batch);
  stats_.j_apply_lat.Record((q_->now() - t0).ns());
}

void F2fs::SyncInodeMeta() {
  // The inodes are those of the time_dirty list (a superset: every inode
  // whose flag was set since the last pass); the node pages they dirty are
  // written in nid order by the checkpoint, so the order here does not
  // matter.
  itab_.SyncTimeDirty([this](Inode* in) {
    if (in->time_dirty && !in->freed) {
      MutI(in).mtime = q_->now();
      in->time_dirty = false;
    }
  });
}

void F2fs::ReleaseCoveredMasterNodes() { txm_->ReleaseCoveredMasterNodes(); }

void F2fs::FillPackFacts(CheckpointWriter::PackFacts* facts) const {
  facts->valid_block_count = valid_block_count_;
  facts->stolen_blocks = txm_->stolen_blocks();
  txm_->FillStolen(&facts->stolen);
  facts->valid_inode_count = valid_inode_count_;
}

void F2fs::JournalCheckpointed(uint64_t record_seq) { jcm_->Checkpointed(record_seq); }

void F2fs::EvictIdleInodes() {
  std::vector<Inode*> idle;
  for (auto& [ino, in] : itab_.all())
    if (in->refs == 0) idle.push_back(in.get());
  for (Inode* in : idle) MaybeEvictInode(in);
}

bool F2fs::ApplyCommittedMode() const {
  return journal_ && cfg_.impl_configs.Get<JournalConfig>("journal").apply == "committed";
}

sim::Task<void> F2fs::BalanceFsBg(bool after_commit) {
  // Unlinked inodes nobody references any more are released first.
  std::vector<Nid> orphans;
  for (uint32_t o : itab_.orphans()) orphans.push_back(Nid{o});
  for (Nid o : orphans) {
    Inode* in = FindInode(o);
    if (in && in->refs == 0 && in->unlinked && !in->freed) co_await ReleaseInode(in);
  }
  if (!durability_->NeedBackgroundCheckpoint()) co_return;
  // apply: committed (or checkpoint_after_commit) — background checkpoints
  // follow a commit (the commit thread's, as F2FS-J's j_checkpoint runs
  // after one), so the apply finds the latest epochs committed; a
  // checkpoint found due elsewhere wakes the commit thread instead.
  if ((ApplyCommittedMode() || (journal_ && cfg_.impl_configs.Get<JournalConfig>("journal").checkpoint_after_commit)) &&
      !after_commit) {
    commit_timer_.Kick();
    co_return;
  }
  co_await cpm_->Checkpoint(CpReason::kBackground);
}

sim::Status F2fs::MoveLogsPastUncheckpointedWrites(bool all) {
  dm_->TrimAllFreeSections();
  const ssd::DeviceLayout& d = dev_->layout();
  // A zoned volume checks every log against its zone at every mount
  // (f2fs_check_write_pointer): mkfs's blocks (the root inode and
  // directory) reach the image untimed, without the device's write
  // pointers moving, so the first mount finds those logs ahead of them.
  if (mounted_clean_ && !all && d.zoned == nullptr) return sim::Status::Ok();
  const uint64_t flash_block = uint64_t{d.page_size} * d.pages_per_block;
  // The logs the device programmed past (all with `all`, or when it does
  // not report its write pointers), and those stopped inside a page.
  std::vector<std::pair<LogType, uint32_t>> moves;
  for (uint32_t r = 0; r < sm_->regions(); ++r) {
    for (int l = 0; l < kNumPersistentLogs; ++l) {
      const LogType t = static_cast<LogType>(l);
      if (!sm_->LogActive(t, r)) continue;
      const uint64_t pos = uint64_t{sm_->NextAddrOf(t, r).v} * kBlockSize;  // device byte the log writes next
      if (d.zoned != nullptr) {
        // f2fs_check_write_pointer / fix_curseg_write_pointer: the zone's
        // write pointer past the log's position moves the log.
        const ssd::ZoneInfo z = d.zoned->Report(d.zoned->ZoneOf(pos / d.page_size));
        if (all || z.write_pointer * d.page_size != pos) moves.emplace_back(t, r);
        continue;
      }
      const int64_t written = d.fixed->WrittenPages(pos / flash_block);
      // A log inside a flash page would program part of a page: it moves too.
      if (all || written < 0 || uint64_t(written) * d.page_size > pos % flash_block || pos % d.page_size != 0)
        moves.emplace_back(t, r);
    }
  }
  if (sm_->free_sections() < moves.size())
    return sim::Status::InvalidInput(fmt::format(
        "mount: {} logs must move to fresh sections (the device cannot overwrite what was written after the "
        "checkpoint) and {} sections are free: the volume is too full to remount after this power cut",
        moves.size(), sm_->free_sections()));
  for (const auto& [t, r] : moves) {
    const SegNo left = sm_->curseg(t, r).segno;
    sm_->MoveLogToNewSegment(t, r, /*new_section=*/d.zoned != nullptr);
    // The zone left behind would stay open (or closed) and count against
    // the device's active-zone limit until cleaned: finish it.
    if (d.zoned != nullptr) {
      const uint64_t byte = uint64_t{layout_.SegStart(SegNo{layout_.SecOf(left) * layout_.segs_per_sec}).v} * kBlockSize;
      const ssd::ZoneInfo z = d.zoned->Report(d.zoned->ZoneOf(byte / d.page_size));
      if (z.state != ssd::ZoneState::kEmpty && z.state != ssd::ZoneState::kFull)
        io_->SubmitZoneFinish(BlockAddr{static_cast<uint32_t>(byte / kBlockSize)});
    }
  }
  stats_.logs_moved_at_mount.Inc(moves.size());
  return sim::Status::Ok();
}

}  // namespace fs::f2fs
