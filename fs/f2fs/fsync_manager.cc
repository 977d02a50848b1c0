#include "fs/f2fs/fsync_manager.h"

#include <algorithm>
#include <vector>

#include <glog/logging.h>

namespace fs::f2fs {

FsyncManager::FsyncManager(const Deps& d)
    : cfg_(*d.cfg),
      q_(d.events),
      io_(d.io),
      nodes_(d.nodes),
      cpm_(d.cp),
      durability_(d.durability),
      itab_(d.inodes),
      journal_(d.journal),
      journal_fsync_commit_(d.journal_fsync_commit),
      host_(d.host) {}

bool FsyncManager::NeedDentryMark(Nid ino) const {
  const NatTable::Entry& e = nodes_->nat().Get(ino);
  return !e.checkpointed && !e.fsynced_inode;
}

bool FsyncManager::NeedInodeBlockUpdate(Nid ino) const {
  const NatTable::Entry& e = nodes_->nat().Get(ino);
  return !(e.last_fsync && (e.checkpointed || e.fsynced_inode));
}

bool FsyncManager::NeedDoCheckpoint(Inode* inode) {
  const InodeFields& f = I(inode);
  const Inode* parent = itab_->Find(f.pino);
  return durability_->FsyncNeedsCheckpoint(FsyncFacts{inode->ino, f.pino, f.is_dir, f.links, f.lost_pino,
                                                      host_->ValidBlocksAtCheckpoint(), host_->AllocatedSinceCheckpoint(),
                                                      parent != nullptr && parent->trans_dir});
}

sim::Task<uint32_t> FsyncManager::FsyncNodePages(Inode* inode, IoBatch* batch) {
  // The lookup: the kernel walks every dirty page of the node mapping and
  // skips those of other inodes; the per-file list visits only this file's.
  const uint64_t visited = cfg_.fsync_node_lookup == "list" ? inode->dirty_nodes.count : nodes_->cache().dirty().size();
  stats_.visited.Record(static_cast<int64_t>(visited));
  stats_.nodes_visited.Inc(visited);
  co_await host_->Cpu(cfg_.cpu.fsync_scan_page * static_cast<int64_t>(visited));
  vfs::SharedLock cp = co_await cpm_->LockOp();
  std::vector<NodePage*> todo;
  for (NodePage* np = inode->dirty_nodes.head; np; np = np->dnext) {
    if (np->blk->IsDnode() && np->blk->footer.cold) todo.push_back(np);
  }
  // Written in nid order, as the scan of the node mapping finds them.
  std::sort(todo.begin(), todo.end(), [](const NodePage* a, const NodePage* b) { return a->nid < b->nid; });
  WriteBatcher wb(io_, Io::kNode, batch);
  for (NodePage* np : todo) {
    const bool dent = np->blk->IsInode() && NeedDentryMark(inode->ino);
    nodes_->WriteNodePage(np, /*fsync_mark=*/true, dent, wb);
  }
  uint32_t written = static_cast<uint32_t>(todo.size());
  // f2fs_need_inode_block_update: the last node written for this inode must
  // carry the fsync mark (and a never-checkpointed inode must have been
  // fsynced), else the inode block is written again with it. Done under the
  // same cp_rwsem hold so no checkpoint slips in between.
  if (NeedInodeBlockUpdate(inode->ino)) {
    nodes_->MutInodeBlock(inode);
    nodes_->WriteNodePage(inode->ipage, /*fsync_mark=*/true, NeedDentryMark(inode->ino), wb);
    ++written;
  }
  wb.Flush();
  stats_.nodes_written.Inc(written);
  co_return written;
}

sim::Task<Errno> FsyncManager::SyncFile(Inode* inode, bool datasync) {
  stats_.calls.Inc();
  const sim::SimTime t0 = q_->now();
  ++inode->fsyncs_in_flight;
  struct Done {
    Host* host;
    Inode* in;
    ~Done() {
      --in->fsyncs_in_flight;
      host->FsyncEnded(in);  // a commit may wait for it
    }
  } done{host_, inode};
  if (journal_ && journal_fsync_commit_) {
    const Errno e = co_await host_->JournalFsync(inode);
    stats_.total.Record((q_->now() - t0).ns());
    co_return e;
  }
  bool go_write = false;
  sim::SimTime t_data = t0, t_node = t0;
  if (inode->is_dir) {
    go_write = true;
  } else {
    // Small fsyncs and fdatasync update in place (FI_NEED_IPU).
    if (datasync || inode->dirty_pages <= cfg_.min_fsync_blocks) inode->need_ipu = true;
    co_await host_->WritebackInode(inode, UINT64_MAX, /*wait=*/true, /*from_cp=*/false);
    // filemap_fdatawait: data writes of this file submitted by others (the
    // flusher, cleaning) complete too before the nodes point at them durably.
    while (inode->wb_writes > 0 && !host_->Dead()) co_await io_->write_done_wq().Wait();
    inode->need_ipu = false;
    t_data = q_->now();
    stats_.data.Record((t_data - t0).ns());
    if (I(inode).inline_data && inode->ipage->dirty) go_write = true;
    if (!datasync && inode->time_dirty) {
      vfs::SharedLock cp = co_await cpm_->LockOp();
      nodes_->MutI(inode).mtime = q_->now();
      inode->time_dirty = false;
    }
    // need_inode_page_update: the inode page is dirty, or its last write
    // was not an fsync's and no checkpoint has it.
    if (inode->ipage->dirty || NeedInodeBlockUpdate(inode->ino)) go_write = true;
    if (!go_write && !inode->append_write && cpm_->running()) {
      // Nothing of the file left to write, but a checkpoint in progress may
      // be what wrote it (its node pages are no longer dirty and the NAT
      // flags already read as checkpointed): the fsync is answered once
      // that checkpoint commits. The kernel returns at once here.
      co_await cpm_->WaitRunning();
    }
    if (!go_write && !inode->append_write) {
      if (inode->dirty_nodes.count > 0) {
        go_write = true;
      } else if (inode->update_write) {
        goto flush_out;
      } else {
        stats_.total.Record((q_->now() - t0).ns());
        co_return Errno::kOk;
      }
    }
    go_write = true;
  }
  if (go_write) {
    if (NeedDoCheckpoint(inode)) {
      const sim::SimTime tc = q_->now();
      co_await cpm_->Checkpoint(CpReason::kFsync);
      stats_.cp.Record((q_->now() - tc).ns());
      stats_.checkpoints.Inc();
      // try_to_fix_pino: the checkpoint made the namespace durable.
      if (I(inode).lost_pino && inode->cur_pino != kNullNid) {
        vfs::SharedLock cp = co_await cpm_->LockOp();
        InodeFields& f = nodes_->MutI(inode);
        f.pino = inode->cur_pino;
        f.name = inode->cur_name;
        f.lost_pino = false;
      }
      inode->append_write = false;
      inode->update_write = false;
      stats_.total.Record((q_->now() - t0).ns());
      co_return Errno::kOk;
    }
    const sim::SimTime tn0 = q_->now();
    IoBatch batch(q_);
    co_await FsyncNodePages(inode, &batch);
    co_await io_->WaitBatch(batch);
    co_await io_->WaitWarmNodeWrites();
    inode->append_write = false;
    t_node = q_->now();
    stats_.node.Record((t_node - tn0).ns());
  }
flush_out:
  if (cfg_.fsync_mode != "nobarrier") {
    const sim::SimTime tf = q_->now();
    co_await io_->IssueFlush();
    stats_.flush.Record((q_->now() - tf).ns());
  }
  inode->update_write = false;
  stats_.total.Record((q_->now() - t0).ns());
  co_return Errno::kOk;
}

}  // namespace fs::f2fs
