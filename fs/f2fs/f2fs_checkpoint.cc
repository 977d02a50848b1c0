// Checkpoint (f2fs_write_checkpoint), the background thread's checkpoint
// check (f2fs_balance_fs_bg; the durability mode decides), the trims of a
// fixed-placement device and the discard thread.
#include <algorithm>

#include <fmt/format.h>

#include "fs/f2fs/f2fs.h"

namespace fs::f2fs {
namespace {

// block_operations retries until it holds cp_rwsem with no dentry page
// dirty; each unlocked round lets the operations queued behind the
// checkpoint run, and they may dirty directories again. The kernel does not
// bound the retries, so a steady stream of namespace operations could hold
// a checkpoint off indefinitely. Here, after this many unlocked rounds the
// dentry pages still dirty are written with the lock held (operations then
// wait, as for the node pass). Each round writes only what the operations
// let in by the previous one dirtied, so even many threads creating files
// in one directory drain in a few rounds; the bound leaves room for that
// and caps what a workload that never drains adds to a checkpoint at a
// handful of lock hand-offs.
constexpr int kUnlockedDentryRounds = 8;

}  // namespace

bool F2fs::FsDirty() const {
  return !node_cache_.dirty().empty() || nat_->dirty_count() > 0 || !sm_->dirty_sit().empty() || dirty_dentry_pages_ > 0 ||
         !sm_->DirtySsaSegments().empty() || sm_->prefree_segments() > 0;
}

sim::Task<void> F2fs::Checkpoint(CpReason reason) {
  // Requests arriving while a checkpoint runs need the next one (its state
  // may predate them); concurrent requesters share it (checkpoint_merge).
  const uint64_t target = cp_started_ + 1;
  while (cp_completed_ < target && !dead_) {
    if (!cp_running_) {
      cp_running_ = true;
      ++cp_started_;
      co_await DoCheckpoint(reason);
      ++cp_completed_;
      cp_running_ = false;
      cp_active_ = false;
      cp_wq_.NotifyAll();
    } else {
      co_await cp_wq_.Wait();
    }
  }
}

sim::Task<void> F2fs::WriteMetaBlocks(std::vector<std::pair<BlockAddr, BlockPtr>>& blocks, Io kind,
                                      IoBatch* batch) {
  std::sort(blocks.begin(), blocks.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  WriteBatcher wb(io_.get(), kind, batch);
  for (auto& [a, c] : blocks) wb.Add(a, std::move(c), nullptr);
  wb.Flush();
  stats_.cp_blocks.Inc(blocks.size());
  co_return;
}

sim::Task<void> F2fs::SyncDirtyDirs() {
  std::vector<uint32_t> dirs(dirty_dirs_.begin(), dirty_dirs_.end());
  for (uint32_t ino : dirs) {
    Inode* d = FindInode(Nid{ino});
    if (!d) continue;
    stats_.cp_blocks.Inc(d->dirty_pages);  // every dirty dentry page is written
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
  const uint64_t durable = journal_durable_seq_;
  IoBatch batch(q_);
  {
    vfs::SharedLock cp = co_await LockOp();
    if (dead_) co_return;
    std::vector<NodePage*> pages;
    uint64_t held = 0;
    for (uint32_t nid : node_cache_.dirty()) {
      NodePage* np = node_cache_.DirtyPage(nid);
      if (np->dirty_seq < durable) {
        pages.push_back(np);
      } else {
        ++held;
      }
    }
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

sim::Task<void> F2fs::DoCheckpoint(CpReason reason) {
  const bool umount = reason == CpReason::kUmount;
  const bool skip = !umount && reason != CpReason::kRecovery && !FsDirty() && itab_.orphans().empty();
  if (skip) co_return;
  cp_active_ = true;
  ++cp_begun_;
  // Not for a checkpoint cleaning asks for: free segments are short then,
  // and a page dirtied again after its apply would be written twice.
  if (ApplyCommittedMode() &&
      (reason == CpReason::kBackground || reason == CpReason::kJournal || reason == CpReason::kSync)) {
    co_await ApplyCommitted();
    if (dead_) co_return;
  }
  // The checkpoint proper (fs.cp.duration) starts here; the apply before it
  // is fs.journal.apply_lat.
  const sim::SimTime t0 = q_->now();
  // block_operations: take cp_rwsem exclusive; while dentry pages are dirty,
  // release it, write them back (f2fs_sync_dirty_inodes(DIR_INODE); dentry
  // writes take no cp_rwsem) and take it again, so the operations queued
  // behind the checkpoint run meanwhile. Once the lock is held with no
  // dentry page dirty, every operation taking cp_rwsem waits.
  vfs::ExclusiveLock all;
  for (int round = 0;; ++round) {
    co_await cp_lock_.LockExclusive();
    all = vfs::ExclusiveLock(&cp_lock_);
    if (dead_) co_return;
    if (dirty_dentry_pages_ == 0 || round == kUnlockedDentryRounds) break;
    all.Release();
    co_await SyncDirtyDirs();
    if (dead_) co_return;
  }
  const uint64_t new_ver = cp_ver_ + 1;
  if (listener_) listener_->OnCheckpointBegin(new_ver);
  // The journal's records so far are covered: replay starts after them.
  JournalPosition jpos;
  if (journal_) {
    jpos = journal_->CheckpointBegin();
    covered_record_seq_ = jpos.record_seq;
  }
  co_await Cpu(cfg_.cpu.checkpoint_fixed);

  IoBatch batch(q_);
  // 1. Dentry pages still dirty after the last unlocked round.
  co_await SyncDirtyDirs();
  // 2. Inode metadata (f2fs_sync_inode_meta): lazily kept times go to the
  //    inode pages. The kernel also does this with cp_rwsem released and
  //    retries; here it takes no simulated time, so it is done under the lock.
  //    The inodes are those of the time_dirty list (a superset: every inode
  //    whose flag was set since the last pass); the node pages they dirty
  //    are written in nid order below, so the order here does not matter.
  itab_.SyncTimeDirty([this](Inode* in) {
    if (in->time_dirty && !in->freed) {
      MutI(in).mtime = q_->now();
      in->time_dirty = false;
    }
  });
  // 3. All dirty node pages (f2fs_sync_node_pages): indirect nodes, directory
  //    dnodes, file dnodes; fsync/dentry marks cleared.
  {
    WriteBatcher wb(io_.get(), Io::kNode, &batch);
    for (int step = 0; step < 3; ++step) {
      std::vector<NodePage*> pages;
      for (uint32_t nid : node_cache_.dirty()) {
        NodePage* np = node_cache_.DirtyPage(nid);
        const NodeBlock& b = *np->blk;
        const bool take = step == 0 ? !b.IsDnode() : step == 1 ? (b.IsDnode() && !b.footer.cold)
                                                               : (b.IsDnode() && b.footer.cold);
        if (take) pages.push_back(np);
      }
      for (NodePage* np : pages) WriteNodePage(np, false, false, wb);
      stats_.cp_blocks.Inc(pages.size());
    }
    wb.Flush();
  }
  CHECK(node_cache_.dirty().empty()) << "dirty nodes left after the checkpoint's node pass";
  // The writes a checkpoint guarantees (nodes, meta, dentries, data moved by
  // cleaning) complete before the flush (f2fs_wait_on_all_pages(
  // F2FS_WB_CP_DATA)), so the checkpoint never points at such a block whose
  // write could still be lost. Plain file data in flight is not waited for:
  // only fsync promises it, and after a power cut a file may point at a
  // block whose write was lost (its old content shows). One exception: the
  // kernel never invalidates a block while its write is in flight (a page
  // is rewritten or truncated only after its writeback ends,
  // f2fs_wait_on_page_writeback); the model does not make writers wait, so
  // the checkpoint that would let such a block be reused or discarded waits
  // for that write instead.
  co_await io_->WaitBatch(batch);
  co_await io_->WaitCheckpointWrites();
  if (dead_) co_return;

  // 4–5. NAT and SIT (to their journals or blocks), SSA blocks.
  // Master nodes of transactions this checkpoint covers: free from now on
  // (no block of the main area is allocated before the commit).
  for (BlockAddr a : live_masters_) {
    sm_->Invalidate(a);
    DecValidBlocks(1);
  }
  live_masters_.clear();
  std::vector<std::pair<BlockAddr, BlockPtr>> meta = cpw_->FlushMeta(umount);
  IoBatch meta_batch(q_);
  co_await WriteMetaBlocks(meta, Io::kMeta, &meta_batch);

  // 6. The checkpoint pack (do_checkpoint).
  CheckpointWriter::PackFacts facts;
  facts.cp_ver = new_ver;
  facts.umount = umount;
  facts.valid_block_count = valid_block_count_;
  facts.stolen_blocks = stolen_owner_.size();
  for (const auto& [a, owner] : stolen_owner_) facts.stolen.push_back(a);
  std::sort(facts.stolen.begin(), facts.stolen.end());  // unordered_map order: sorted for a deterministic pack
  facts.valid_inode_count = valid_inode_count_;
  for (uint32_t o : itab_.orphans()) facts.orphans.push_back(Nid{o});
  if (journal_) {
    facts.journal_head = jpos.head;
    facts.journal_block_seq = jpos.block_seq;
    facts.journal_record_seq = jpos.record_seq;
  }
  CheckpointWriter::Pack pack = cpw_->BuildPack(facts);
  std::shared_ptr<CheckpointBlock> cp = pack.cp;
  co_await WriteMetaBlocks(pack.blocks, Io::kCp, &meta_batch);
  co_await io_->WaitBatch(meta_batch);
  if (dead_) co_return;
  // commit_checkpoint: cache flush, then the second CP block with FUA.
  co_await io_->IssueFlush();
  {
    IoBatch commit(q_);
    std::vector<BlockPtr> c = {cp};
    std::vector<Page*> none = {nullptr};
    io_->SubmitWrite(pack.commit, c, none, Io::kCp, &commit, /*fua=*/true);
    stats_.cp_blocks.Inc();
    co_await io_->WaitBatch(commit);
  }
  if (dead_) co_return;

  // 7. The checkpoint is durable: prefree segments become free, freed nids
  //    become allocatable (PlanFlush), what it freed is queued for discard
  //    (f2fs_clear_prefree_segments).
  cp_ver_ = new_ver;
  if (journal_) {
    journal_->CheckpointCommitted(jpos);
    journal_durable_seq_ = std::max(journal_durable_seq_, jpos.record_seq);
    cp_durable_record_seq_ = jpos.record_seq;
    journal_wq_.NotifyAll();
  }
  durability_->OnCheckpointCommitted(q_->now());
  alloc_since_cp_ = 0;
  std::vector<SegmentManager::DiscardRange> d = sm_->CommitCheckpoint();
  // What it freed no mount can read any more (roll-forward stops at a block
  // of an older cp_ver, and the marker is no node block): the image lets the
  // old versions go (issue 15's memory budget).
  for (const auto& r : d) image_->Forget(r.start, r.len);
  if (erase_before_reuse_) dm_->TrimFreedSections(&d);
  if (cfg_.discard.enabled) dm_->Queue(d);
  itab_.ClearTransDir();
  stats_.cp_count.Inc();
  stats_.cp_by_reason[static_cast<int>(reason)].Inc();
  stats_.cp_duration.Record((q_->now() - t0).ns());
  if (listener_) listener_->OnCheckpointCommitted(new_ver);
  all.Release();
  // Idle clean inodes may leave memory now.
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
  // apply: committed — background checkpoints follow a commit (the commit
  // thread's, as F2FS-J's j_checkpoint runs after one), so the apply finds
  // the latest epochs committed; a checkpoint found due elsewhere wakes the
  // commit thread instead.
  if (ApplyCommittedMode() && !after_commit) {
    commit_timer_.Kick();
    co_return;
  }
  co_await Checkpoint(CpReason::kBackground);
}

sim::Status F2fs::MoveLogsPastUncheckpointedWrites(bool all) {
  dm_->TrimAllFreeSections();
  if (mounted_clean_ && !all) return sim::Status::Ok();
  const ssd::DeviceLayout& d = dev_->layout();
  const uint64_t flash_block = uint64_t{d.page_size} * d.pages_per_block;
  // The logs the device programmed past (all with `all`, or when it does
  // not report its write pointers), and those stopped inside a page.
  std::vector<std::pair<LogType, uint32_t>> moves;
  for (uint32_t r = 0; r < sm_->regions(); ++r) {
    for (int l = 0; l < kNumPersistentLogs; ++l) {
      const LogType t = static_cast<LogType>(l);
      if (!sm_->LogActive(t, r)) continue;
      const uint64_t pos = uint64_t{sm_->NextAddrOf(t, r).v} * kBlockSize;  // device byte the log writes next
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
  for (const auto& [t, r] : moves) sm_->MoveLogToNewSegment(t, r);
  stats_.logs_moved_at_mount.Inc(moves.size());
  return sim::Status::Ok();
}

}  // namespace fs::f2fs
