#include "fs/f2fs/checkpoint_manager.h"

#include <algorithm>

#include <glog/logging.h>

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

CheckpointManager::CheckpointManager(const Deps& d)
    : cfg_(*d.cfg),
      q_(d.events),
      image_(d.image),
      sm_(d.sm),
      nodes_(d.nodes),
      itab_(d.inodes),
      cpw_(d.writer),
      durability_(d.durability),
      journal_(d.journal),
      io_(d.io),
      dm_(d.dm),
      erase_before_reuse_(d.erase_before_reuse),
      host_(d.host),
      cp_lock_(d.events),
      wq_(d.events) {
  cp_lock_.set_lock_class(d.cp_rwsem);
}

sim::Task<vfs::SharedLock> CheckpointManager::LockOp() {
  const sim::SimTime t0 = q_->now();
  co_await cp_lock_.LockShared();
  const sim::SimTime waited = q_->now() - t0;
  if (waited > sim::SimTime::Zero()) {
    stats_.stall.Record(waited.ns());
    stats_.stall_ns.Inc(static_cast<uint64_t>(waited.ns()));
  }
  co_return vfs::SharedLock(&cp_lock_);
}

sim::Task<void> CheckpointManager::Checkpoint(CpReason reason) {
  // Requests arriving while a checkpoint runs need the next one (its state
  // may predate them); concurrent requesters share it (checkpoint_merge).
  const uint64_t target = started_ + 1;
  while (completed_ < target && !host_->Dead()) {
    if (!running_) {
      running_ = true;
      ++started_;
      co_await DoCheckpoint(reason);
      ++completed_;
      running_ = false;
      active_ = false;
      wq_.NotifyAll();
    } else {
      co_await wq_.Wait();
    }
  }
}

sim::Task<void> CheckpointManager::WaitRunning() {
  if (!running_) co_return;
  const uint64_t running = started_;
  while (completed_ < running && !host_->Dead()) co_await wq_.Wait();
}

sim::Task<void> CheckpointManager::WaitRecordsCheckpointed(uint64_t seq) {
  while (!host_->Dead() && durable_record_seq_ < seq) co_await wq_.Wait();
}

sim::Task<void> CheckpointManager::WriteMetaBlocks(std::vector<std::pair<BlockAddr, BlockPtr>>& blocks, Io kind,
                                                   IoBatch* batch) {
  std::sort(blocks.begin(), blocks.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  WriteBatcher wb(io_, kind, batch);
  for (auto& [a, c] : blocks) wb.Add(a, std::move(c), nullptr);
  wb.Flush();
  stats_.blocks.Inc(blocks.size());
  co_return;
}

sim::Task<void> CheckpointManager::DoCheckpoint(CpReason reason) {
  const bool umount = reason == CpReason::kUmount;
  const bool skip =
      !umount && reason != CpReason::kRecovery && !host_->HasUncheckpointedChanges() && itab_->orphans().empty();
  if (skip) co_return;
  active_ = true;
  ++begun_;
  // Not for a checkpoint cleaning asks for: free segments are short then,
  // and a page dirtied again after its apply would be written twice.
  if (host_->ApplyCommittedMode() &&
      (reason == CpReason::kBackground || reason == CpReason::kJournal || reason == CpReason::kSync)) {
    co_await host_->ApplyCommitted();
    if (host_->Dead()) co_return;
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
    if (host_->Dead()) co_return;
    if (host_->DirtyDentryPages() == 0 || round == kUnlockedDentryRounds) break;
    all.Release();
    co_await host_->SyncDirtyDirs();
    if (host_->Dead()) co_return;
  }
  const uint64_t new_ver = cp_ver_ + 1;
  if (listener_) listener_->OnCheckpointBegin(new_ver);
  // The journal's records so far are covered: replay starts after them.
  JournalPosition jpos;
  if (journal_) {
    jpos = journal_->CheckpointBegin();
    covered_record_seq_ = jpos.record_seq;
  }
  co_await host_->Cpu(cfg_.cpu.checkpoint_fixed);

  IoBatch batch(q_);
  // 1. Dentry pages still dirty after the last unlocked round.
  co_await host_->SyncDirtyDirs();
  // 2. Inode metadata (f2fs_sync_inode_meta): lazily kept times go to the
  //    inode pages. The kernel also does this with cp_rwsem released and
  //    retries; here it takes no simulated time, so it is done under the lock.
  host_->SyncInodeMeta();
  // 3. All dirty node pages (f2fs_sync_node_pages): indirect nodes, directory
  //    dnodes, file dnodes; fsync/dentry marks cleared.
  {
    WriteBatcher wb(io_, Io::kNode, &batch);
    for (int step = 0; step < 3; ++step) {
      std::vector<NodePage*> pages;
      nodes_->cache().dirty().ForEach([&](uint64_t nid) {
        NodePage* np = nodes_->cache().DirtyPage(static_cast<uint32_t>(nid));
        const NodeBlock& b = *np->blk;
        const bool take = step == 0 ? !b.IsDnode() : step == 1 ? (b.IsDnode() && !b.footer.cold)
                                                               : (b.IsDnode() && b.footer.cold);
        if (take) pages.push_back(np);
        return true;
      });
      for (NodePage* np : pages) nodes_->WriteNodePage(np, false, false, wb);
      stats_.blocks.Inc(pages.size());
    }
    wb.Flush();
  }
  CHECK(nodes_->cache().dirty().empty()) << "dirty nodes left after the checkpoint's node pass";
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
  if (host_->Dead()) co_return;

  // 4–5. NAT and SIT (to their journals or blocks), SSA blocks.
  // Master nodes of transactions this checkpoint covers: free from now on
  // (no block of the main area is allocated before the commit).
  host_->ReleaseCoveredMasterNodes();
  std::vector<std::pair<BlockAddr, BlockPtr>> meta = cpw_->FlushMeta(umount);
  IoBatch meta_batch(q_);
  co_await WriteMetaBlocks(meta, Io::kMeta, &meta_batch);

  // 6. The checkpoint pack (do_checkpoint).
  CheckpointWriter::PackFacts facts;
  facts.cp_ver = new_ver;
  facts.umount = umount;
  host_->FillPackFacts(&facts);
  for (uint32_t o : itab_->orphans()) facts.orphans.push_back(Nid{o});
  if (journal_) {
    facts.journal_head = jpos.head;
    facts.journal_block_seq = jpos.block_seq;
    facts.journal_record_seq = jpos.record_seq;
  }
  CheckpointWriter::Pack pack = cpw_->BuildPack(facts);
  std::shared_ptr<CheckpointBlock> cp = pack.cp;
  // Open-segment summaries the pack leaves out (regions): to their SSA
  // blocks, durable before the commit like the pack.
  if (!pack.ssa.empty()) co_await WriteMetaBlocks(pack.ssa, Io::kMeta, &meta_batch);
  co_await WriteMetaBlocks(pack.blocks, Io::kCp, &meta_batch);
  co_await io_->WaitBatch(meta_batch);
  if (host_->Dead()) co_return;
  // commit_checkpoint: cache flush, then the second CP block with FUA.
  co_await io_->IssueFlush();
  {
    IoBatch commit(q_);
    std::vector<BlockPtr> c = {cp};
    std::vector<Page*> none = {nullptr};
    io_->SubmitWrite(pack.commit, c, none, Io::kCp, &commit, /*fua=*/true);
    stats_.blocks.Inc();
    co_await io_->WaitBatch(commit);
  }
  if (host_->Dead()) co_return;

  // 7. The checkpoint is durable: prefree segments become free, freed nids
  //    become allocatable (PlanFlush), what it freed is queued for discard
  //    (f2fs_clear_prefree_segments).
  cp_ver_ = new_ver;
  cpw_->PackCommitted();
  if (journal_) {
    journal_->CheckpointCommitted(jpos);
    durable_record_seq_ = jpos.record_seq;
    host_->JournalCheckpointed(jpos.record_seq);
  }
  durability_->OnCheckpointCommitted(q_->now());
  host_->CheckpointCommitted();
  std::vector<SegmentManager::DiscardRange> d = sm_->CommitCheckpoint();
  // What it freed no mount can read any more (roll-forward stops at a block
  // of an older cp_ver, and the marker is no node block): the image lets the
  // old versions go.
  for (const auto& r : d) image_->Forget(r.start, r.len);
  if (erase_before_reuse_) dm_->TrimFreedSections(&d);
  if (cfg_.discard.enabled) dm_->Queue(d);
  itab_->ClearTransDir();
  stats_.count.Inc();
  stats_.by_reason[static_cast<int>(reason)].Inc();
  stats_.duration.Record((q_->now() - t0).ns());
  if (listener_) listener_->OnCheckpointCommitted(new_ver);
  all.Release();
  // Idle clean inodes may leave memory now.
  host_->EvictIdleInodes();
}

}  // namespace fs::f2fs
