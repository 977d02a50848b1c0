// The ext4 model's JBD2 journal, metadata cache and device I/O: running
// transactions, commits, checkpoints, home writeback, replay at mount and
// decoding the volume.
#include <algorithm>

#include <fmt/format.h>
#include <glog/logging.h>

#include "fs/ext4/ext4_internal.h"

namespace fs::ext4 {
namespace {

bool Bit(const std::vector<uint64_t>& w, uint32_t i) { return (w[i / 64] >> (i % 64)) & 1; }

}  // namespace

// ---------------------------------------------------------------------------
// Running transaction

Ext4::Tx& Ext4::Running() {
  if (!running_) {
    running_ = std::make_unique<Tx>();
    running_->tid = next_tid_++;
    running_->start = q_->now();
    commit_timer_.Kick();
  }
  return *running_;
}

sim::Task<Ext4::Handle> Ext4::StartHandle() {
  // wait_transaction_locked: a new handle waits while the commit has the
  // running transaction locked and waits for its updates.
  if (t_locked_ && !dead_) {
    const sim::SimTime t0 = q_->now();
    stats_.handle_locked_waits.Inc();
    while (t_locked_ && !dead_) co_await locked_wq_.Wait();
    stats_.handle_locked_wait.Record((q_->now() - t0).ns());
  }
  ++t_updates_;
  stats_.handles.Inc();
  co_return Handle(this);
}

void Ext4::Handle::Stop() {
  if (fs_ == nullptr) return;
  Ext4* fs = fs_;
  fs_ = nullptr;
  CHECK_GT(fs->t_updates_, 0u);
  if (--fs->t_updates_ == 0 && fs->t_locked_) fs->updates_wq_.NotifyAll();
}

bool Ext4::RunningLogs(uint32_t blk) const { return running_ && running_->blocks.count(blk) > 0; }

void Ext4::Dirty(uint32_t blk) {
  if (dead_) return;
  Tx& t = Running();
  t.blocks.insert(blk);
  t.revokes.erase(blk);
  MakeResident(blk);
  UpdateMetaPage(blk);
  // jbd2 commits early once a transaction fills a quarter of the log.
  if (t.blocks.size() > (layout_.journal_blocks - 1) / 4 && commit_request_ < t.tid) {
    commit_request_ = t.tid;
    commit_timer_.Kick();
  }
}

void Ext4::DirtyInode(Inode* in, bool data_change) {
  Dirty(layout_.InodeBlock(in->ino));
  const uint32_t tid = Running().tid;
  in->sync_tid = tid;
  if (data_change) in->datasync_tid = tid;
}

void Ext4::DirtyGroup(uint32_t g, bool block_bitmap, bool inode_bitmap) {
  if (block_bitmap) Dirty(layout_.block_bitmap[g]);
  if (inode_bitmap) Dirty(layout_.inode_bitmap[g]);
  Dirty(1 + g / kDescsPerBlock);
}

// jbd2_journal_revoke: a freed metadata block is not replayed from older
// transactions, and its pending home write is dropped (bforget).
void Ext4::Revoke(uint32_t blk) {
  Tx& t = Running();
  t.blocks.erase(blk);
  t.revokes.insert(blk);
  stats_.revokes.Inc();
  auto c = ckpt_.find(blk);
  if (c != ckpt_.end()) {
    auto tl = tx_log_.find(c->second.tid);
    if (tl != tx_log_.end() && tl->second.live > 0) --tl->second.live;
    ckpt_.erase(c);
  }
  ckpt_written_.erase(blk);
  auto m = meta_pages_.find(blk);
  if (m != meta_pages_.end() && m->second->writeback == 0 && m->second->pin == 0) {
    cache_.Detach(std::move(m->second));
    meta_pages_.erase(m);
  } else if (m != meta_pages_.end()) {
    m->second->dirty = false;
  }
}

// ---------------------------------------------------------------------------
// Metadata blocks as the state says now

BlockPtr Ext4::Materialize(uint32_t blk) const {
  const Layout& l = layout_;
  if (blk == 0) {
    auto sb = std::make_shared<SuperBlock>();
    sb->layout = l;
    sb->hash_seed = hash_seed_;
    sb->mounts = mounts_;
    sb->orphans.assign(orphans_.begin(), orphans_.end());
    return sb;
  }
  if (blk <= l.gdt_blocks) {
    auto gb = std::make_shared<GroupDescBlock>();
    const uint32_t k = blk - 1;
    for (uint32_t g = k * kDescsPerBlock; g < std::min(l.groups, (k + 1) * kDescsPerBlock); ++g)
      gb->descs.push_back(gd_[g]);
    return gb;
  }
  auto dm = dyn_meta_.find(blk);
  if (dm != dyn_meta_.end()) {
    const Inode* in = inodes_.at(dm->second.ino).get();
    if (dm->second.kind == 0) {
      auto db = std::make_shared<DirBlock>();
      const uint32_t lblk = dm->second.index;
      if (in->indexed && lblk == 0) {
        db->kind = DirBlock::Kind::kDxRoot;
        db->index = in->dx;
      } else if (in->indexed && std::find(in->dx_nodes.begin(), in->dx_nodes.end(), lblk) != in->dx_nodes.end()) {
        db->kind = DirBlock::Kind::kDxNode;
      } else {
        for (const std::string& n : in->dblocks[lblk].names)
          db->entries.push_back(DirEntry{in->children.find(n)->second.ino, n});
      }
      return db;
    }
    auto eb = std::make_shared<ExtentBlock>();
    const uint32_t i = dm->second.index;
    std::vector<Extent> all;
    for (const auto& [lb, e] : in->ext) all.push_back(Extent{lb, e.pblk, e.len});
    if (i < in->leaves) {
      eb->depth = 0;
      for (size_t k = size_t{i} * kExtentsPerBlock; k < std::min(all.size(), size_t{i + 1} * kExtentsPerBlock); ++k)
        eb->entries.push_back(all[k]);
    } else {
      eb->depth = 1;
      const uint32_t k0 = (i - in->leaves) * kExtentsPerBlock;
      for (uint32_t j = k0; j < std::min(in->leaves, k0 + kExtentsPerBlock); ++j)
        eb->entries.push_back(Extent{all[size_t{j} * kExtentsPerBlock].lblk, in->tree[j], 0});
    }
    return eb;
  }
  for (uint32_t g = 0; g < l.groups; ++g) {
    if (blk == l.block_bitmap[g] || blk == l.inode_bitmap[g]) {
      auto bm = std::make_shared<BitmapBlock>();
      bm->words = blk == l.block_bitmap[g] ? bbits_[g] : ibits_[g];
      return bm;
    }
  }
  // An inode-table block.
  auto it = std::upper_bound(l.inode_table.begin(), l.inode_table.end(), blk);
  CHECK(it != l.inode_table.begin()) << "block " << blk << " is not metadata";
  const uint32_t g = static_cast<uint32_t>(it - l.inode_table.begin()) - 1;
  CHECK_LT(blk, l.inode_table[g] + l.itable_blocks) << "block " << blk << " is not metadata";
  auto tb = std::make_shared<InodeTableBlock>();
  const uint32_t ipb = l.InodesPerBlock();
  tb->inodes.resize(ipb);
  const uint32_t first_ino = g * l.inodes_per_group + (blk - l.inode_table[g]) * ipb + 1;
  for (uint32_t k = 0; k < ipb; ++k) {
    auto n = inodes_.find(first_ino + k);
    if (n == inodes_.end()) continue;
    const Inode& in = *n->second;
    DiskInode& d = tb->inodes[k];
    d.mode = in.is_dir ? 2 : 1;
    d.links = static_cast<uint16_t>(std::min<uint32_t>(in.is_dir ? 2 + in.subdirs : in.names, 65000));
    d.size = in.is_dir ? uint64_t{in.dblocks.size()} * kBlockSize : in.disksize;
    d.mtime_ns = in.mtime.ns();
    d.depth = in.depth;
    d.parent = in.parent;
    if (in.depth == 0) {
      for (const auto& [lb, e] : in.ext) d.root.push_back(Extent{lb, e.pblk, e.len});
    } else {
      std::vector<uint32_t> firsts;  // first logical block of each leaf
      size_t k2 = 0;
      for (const auto& [lb, e] : in.ext) {
        if (k2 % kExtentsPerBlock == 0) firsts.push_back(lb);
        ++k2;
      }
      if (in.depth == 1) {
        for (uint32_t j = 0; j < in.leaves; ++j) d.root.push_back(Extent{firsts[j], in.tree[j], 0});
      } else {
        for (uint32_t j = in.leaves; j < in.tree.size(); ++j)
          d.root.push_back(Extent{firsts[size_t{j - in.leaves} * kExtentsPerBlock], in.tree[j], 0});
      }
    }
  }
  return tb;
}

// ---------------------------------------------------------------------------
// Metadata cache

bool Ext4::MetaHeld(uint32_t blk) const {
  return (running_ && running_->blocks.count(blk)) || ckpt_.count(blk) || committing_blocks_.count(blk);
}

void Ext4::UpdateMetaPage(uint32_t blk) {
  auto it = meta_pages_.find(blk);
  if (it == meta_pages_.end()) return;
  MetaPage* p = it->second.get();
  const bool held = MetaHeld(blk);
  if (held && !p->dirty) {
    p->dirty = true;
    cache_.LruRemove(p);
  } else if (!held && p->dirty) {
    p->dirty = false;
    cache_.MaybeLru(p);
  }
}

void Ext4::MakeResident(uint32_t blk) {
  auto it = meta_pages_.find(blk);
  if (it != meta_pages_.end()) {
    cache_.Touch(it->second.get());
    return;
  }
  cache_.Admit();
  auto p = std::make_unique<MetaPage>();
  p->blk = blk;
  MetaPage* raw = p.get();
  meta_pages_.emplace(blk, std::move(p));
  UpdateMetaPage(blk);
  cache_.MaybeLru(raw);
}

// Reads the blocks not cached (an inode-table miss reads ahead around it)
// and waits for them and for reads of them already in flight.
sim::Task<void> Ext4::ReadMeta(std::vector<uint32_t> blocks) {
  if (blocks.empty() || dead_) co_return;
  std::vector<uint32_t> miss;
  const Layout& l = layout_;
  const uint32_t ra = cfg_.inode_readahead_blks;
  for (uint32_t b : blocks) {
    auto it = meta_pages_.find(b);
    if (it != meta_pages_.end()) {
      cache_.Touch(it->second.get());
      continue;
    }
    miss.push_back(b);
    // __ext4_get_inode_loc: read ahead the table blocks around a miss, up
    // to the last inode in use in the group.
    auto t = std::upper_bound(l.inode_table.begin(), l.inode_table.end(), b);
    if (ra > 1 && t != l.inode_table.begin()) {
      const uint32_t g = static_cast<uint32_t>(t - l.inode_table.begin()) - 1;
      if (b < l.inode_table[g] + l.itable_blocks) {
        const uint32_t used = l.inodes_per_group - gd_[g].itable_unused;
        const uint32_t used_blocks = (used + l.InodesPerBlock() - 1) / l.InodesPerBlock();
        const uint32_t rel = b - l.inode_table[g];
        const uint32_t lo = rel & ~(ra - 1);
        for (uint32_t r = lo; r < std::min(lo + ra, used_blocks); ++r) {
          const uint32_t x = l.inode_table[g] + r;
          if (x != b && !meta_pages_.count(x)) {
            miss.push_back(x);
            stats_.inode_readahead_blocks.Inc();
          }
        }
      }
    }
  }
  std::sort(miss.begin(), miss.end());
  miss.erase(std::unique(miss.begin(), miss.end()), miss.end());
  uint64_t pending = 0;
  std::vector<MetaPage*> fresh;
  for (uint32_t b : miss) {
    cache_.Admit();
    auto p = std::make_unique<MetaPage>();
    p->blk = b;
    p->uptodate = false;
    p->pin = 1;
    fresh.push_back(p.get());
    meta_pages_.emplace(b, std::move(p));
    stats_.meta_misses.Inc();
  }
  const uint32_t max_blocks = static_cast<uint32_t>(cfg_.max_io.value / kBlockSize);
  for (size_t i = 0; i < miss.size();) {
    size_t j = i + 1;
    while (j < miss.size() && miss[j] == miss[j - 1] + 1 && j - i < max_blocks) ++j;
    const uint32_t start = miss[i], n = static_cast<uint32_t>(j - i);
    std::vector<MetaPage*> pages(fresh.begin() + static_cast<std::ptrdiff_t>(i),
                                 fresh.begin() + static_cast<std::ptrdiff_t>(j));
    ++pending;
    // A pinned page outlives its owner's map entry (a zombie), so the
    // pointers stay valid until unpinned here.
    SubmitRead(start, n, IoKind::kMeta, [this, pages, &pending] {
      --pending;
      for (MetaPage* p : pages) {
        p->uptodate = true;
        const bool zombie = p->zombie;
        const uint32_t b = p->blk;
        cache_.Unpin(p);
        if (!zombie) UpdateMetaPage(b);
      }
    });
    i = j;
  }
  for (;;) {
    bool waiting = pending > 0;
    for (uint32_t b : blocks) {
      auto it = meta_pages_.find(b);
      if (it != meta_pages_.end() && !it->second->uptodate) waiting = true;
    }
    if (!waiting || dead_) break;
    co_await io_wq_.Wait();
  }
}

std::unique_ptr<vfs::CachedPage> Ext4::Evict(vfs::CachedPage* p) {
  if (auto* dp = dynamic_cast<DataPage*>(p)) {
    auto it = inodes_.find(dp->ino);
    CHECK(it != inodes_.end());
    CHECK(it->second->pages.Find(dp->index) == dp);
    return it->second->pages.Take(dp->index);
  }
  auto* mp = static_cast<MetaPage*>(p);
  auto it = meta_pages_.find(mp->blk);
  CHECK(it != meta_pages_.end());
  std::unique_ptr<vfs::CachedPage> out = std::move(it->second);
  meta_pages_.erase(it);
  return out;
}

FsStatus Ext4::DropCaches() {
  // Pages jbd2 still references (the checkpoint list) stay.
  std::vector<MetaPage*> held;
  for (uint32_t b : ckpt_written_) {
    auto m = meta_pages_.find(b);
    if (m == meta_pages_.end()) continue;
    cache_.Pin(m->second.get());
    held.push_back(m->second.get());
  }
  cache_.EvictAll();
  for (MetaPage* p : held) cache_.Unpin(p);
  for (auto& [ino, n] : inodes_) n->ra_next = UINT64_MAX;
  return FsStatus{true, Errno::kOk};
}

// ---------------------------------------------------------------------------
// Commit (jbd2_journal_commit_transaction)

uint32_t Ext4::LogUsed(uint32_t tail) const {
  const uint32_t ring = layout_.journal_blocks - 1;
  return (log_head_ + ring - tail) % ring;
}

uint32_t Ext4::LogTail() const {
  for (const auto& [tid, tl] : tx_log_)
    if (tl.live > 0) return tl.start;
  return log_head_;
}

sim::Task<void> Ext4::CommitThread() {
  while (!dead_) {
    if (stopping_ && (!running_ || running_->blocks.empty())) break;
    if (!running_ || (running_->blocks.empty() && running_->revokes.empty())) {
      co_await commit_timer_.Sleep(sim::Sec(3600));
      continue;
    }
    const sim::SimTime due = running_->start + cfg_.commit_interval;
    if (commit_request_ < running_->tid && q_->now() < due && !stopping_) {
      co_await commit_timer_.Sleep(due - q_->now());
      continue;
    }
    co_await Commit();
  }
  commit_thread_done_ = true;
  commit_wq_.NotifyAll();
}

sim::Task<void> Ext4::Commit() {
  if (!running_ || dead_) co_return;
  const sim::SimTime start = q_->now();
  // T_LOCKED (jbd2_journal_commit_transaction): no new handle joins the
  // transaction; the open ones finish their changes
  // (jbd2_journal_wait_updates). Then a new running transaction can start
  // and the blocks are taken as they are at that instant.
  t_locked_ = true;
  while (t_updates_ > 0 && !dead_) co_await updates_wq_.Wait();
  stats_.commit_locked.Record((q_->now() - start).ns());
  t_locked_ = false;
  locked_wq_.NotifyAll();
  if (dead_ || !running_) co_return;
  std::unique_ptr<Tx> t = std::move(running_);
  const uint32_t tid = t->tid;
  committing_tid_ = tid;
  commit_flush_sent_ = false;
  ckpt_written_.clear();  // __jbd2_journal_clean_checkpoint_list
  committing_ordered_ += t->ordered;
  // The state the transaction persists: its blocks as they are now.
  std::vector<std::pair<uint32_t, BlockPtr>> copies;
  for (uint32_t b : t->blocks) copies.emplace_back(b, Materialize(b));
  committing_blocks_ = t->blocks;
  if (listener_) listener_->OnCommitBegin(tid);
  std::vector<uint32_t> revokes(t->revokes.begin(), t->revokes.end());
  co_await Cpu(cfg_.cpu.commit_fixed);
  // Log blocks: descriptors (255 tags each) with their copies, revoke
  // blocks, the commit block.
  std::vector<BlockPtr> log;
  for (size_t i = 0; i < copies.size(); i += kJournalTagsPerBlock) {
    auto d = std::make_shared<JournalDescBlock>();
    d->sequence = tid;
    const size_t e = std::min(copies.size(), i + kJournalTagsPerBlock);
    for (size_t k = i; k < e; ++k) d->tags.push_back(copies[k].first);
    log.push_back(d);
    for (size_t k = i; k < e; ++k) {
      auto c = std::make_shared<JournalCopyBlock>();
      c->sequence = tid;
      c->home = copies[k].first;
      c->content = copies[k].second;
      log.push_back(c);
    }
  }
  for (size_t i = 0; i < revokes.size(); i += kRevokesPerBlock) {
    auto r = std::make_shared<JournalRevokeBlock>();
    r->sequence = tid;
    r->blocks.assign(revokes.begin() + static_cast<std::ptrdiff_t>(i),
                     revokes.begin() + static_cast<std::ptrdiff_t>(std::min(revokes.size(), i + kRevokesPerBlock)));
    log.push_back(r);
  }
  const uint32_t need = static_cast<uint32_t>(log.size()) + 1;
  CHECK_LT(need, layout_.journal_blocks - 1) << "transaction larger than the journal";
  while (LogFree() < need + 1 && !dead_) co_await Checkpoint(need + 1);
  if (dead_) co_return;
  // Write the log blocks (the ring may wrap), then wait for them and the
  // ordered data.
  const uint32_t ring = layout_.journal_blocks - 1;
  const uint32_t first_pos = log_head_;
  uint64_t pending = 0;
  auto write_run = [&](std::vector<BlockPtr> run, uint32_t pos, bool fua) {
    ++pending;
    SubmitWrite(layout_.journal_start + pos, std::move(run), IoKind::kJournal, fua, [&pending] { --pending; });
  };
  {
    size_t i = 0;
    uint32_t pos = log_head_;
    while (i < log.size()) {
      const size_t n = std::min<size_t>(log.size() - i, ring + 1 - pos);
      const size_t m = std::min<size_t>(n, cfg_.max_io.value / kBlockSize);
      write_run(std::vector<BlockPtr>(log.begin() + static_cast<std::ptrdiff_t>(i),
                                      log.begin() + static_cast<std::ptrdiff_t>(i + m)),
                pos, false);
      i += m;
      pos = pos + static_cast<uint32_t>(m);
      if (pos > ring) pos = 1;
    }
    log_head_ = pos;
  }
  stats_.journal_blocks.Inc(log.size() + 1);
  while ((pending > 0 || committing_ordered_ > 0) && !dead_) co_await io_wq_.Wait();
  if (dead_) co_return;
  commit_flush_sent_ = true;
  if (cfg_.barrier) co_await Flush();
  if (dead_) co_return;
  auto cb = std::make_shared<JournalCommitBlock>();
  cb->sequence = tid;
  cb->blocks = static_cast<uint32_t>(log.size());
  const uint32_t cpos = log_head_;
  write_run({cb}, cpos, cfg_.barrier);
  log_head_ = cpos + 1 > ring ? 1 : cpos + 1;
  while (pending > 0 && !dead_) co_await io_wq_.Wait();
  if (dead_) co_return;
  // Committed: the blocks wait for their home writes; freed blocks become
  // allocatable.
  TxLog& tl = tx_log_[tid];
  tl.start = first_pos;
  tl.len = need;
  for (auto& [b, content] : copies) {
    auto c = ckpt_.find(b);
    if (c != ckpt_.end()) {
      auto old = tx_log_.find(c->second.tid);
      if (old != tx_log_.end() && old->second.live > 0) --old->second.live;
    }
    Ckpt& k = ckpt_[b];
    k.tid = tid;
    k.content = content;
    k.committed = q_->now();
    ++tl.live;
  }
  while (!tx_log_.empty() && tx_log_.begin()->second.live == 0 && tx_log_.begin()->first != tid)
    tx_log_.erase(tx_log_.begin());
  for (auto [s, n] : t->freed) {
    for (uint32_t b = s; b < s + n; ++b) {
      const uint32_t g = layout_.GroupOf(b), i = b % layout_.blocks_per_group;
      busy_bits_[g][i / 64] &= ~(uint64_t{1} << (i % 64));
      --busy_blocks_;
    }
  }
  committed_tid_ = tid;
  committing_tid_ = 0;
  committing_blocks_.clear();
  for (auto& [b, content] : copies) UpdateMetaPage(b);
  stats_.commits.Inc();
  stats_.commit_blocks.Inc(copies.size());
  stats_.commit_tx_blocks.Record(static_cast<int64_t>(copies.size()));
  stats_.commit_lat.Record((q_->now() - start).ns());
  if (listener_) listener_->OnCommitted(tid);
  commit_wq_.NotifyAll();
}

// jbd2_complete_transaction: asks for the commit of `tid` and waits for it.
sim::Task<void> Ext4::ForceCommit(uint32_t tid) {
  while (committed_tid_ < tid && !dead_) {
    if (!running_ && committing_tid_ == 0) break;
    if (running_ && running_->tid <= tid && commit_request_ < running_->tid) {
      commit_request_ = running_->tid;
      commit_timer_.Kick();
    }
    co_await commit_wq_.Wait();
  }
}

// jbd2_log_do_checkpoint: writes home the metadata of the oldest
// transactions until `need` log blocks are free (all of it when need is the
// journal size), then moves the tail.
sim::Task<void> Ext4::Checkpoint(uint32_t need) {
  while (checkpointing_ && !dead_) co_await space_wq_.Wait();
  if (dead_) co_return;
  checkpointing_ = true;
  stats_.checkpoints.Inc();
  const bool all = need >= layout_.journal_blocks - 1;
  const uint32_t ring = layout_.journal_blocks - 1;
  while (!dead_ && (all ? !ckpt_.empty() : ring - LogUsed(LogTail()) < need)) {
    // The oldest transaction with blocks not home yet.
    uint32_t oldest = 0;
    for (const auto& [tid, tl] : tx_log_)
      if (tl.live > 0) {
        oldest = tid;
        break;
      }
    if (oldest == 0) break;
    std::vector<uint32_t> blocks;
    for (auto& [b, c] : ckpt_)
      if (c.tid == oldest && c.writing_tid != c.tid) blocks.push_back(b);
    for (uint32_t b : blocks) WriteHome(b);
    if (blocks.empty()) {
      bool writing = false;
      for (const auto& [b, c] : ckpt_)
        if (c.tid == oldest && c.writing_tid == c.tid) writing = true;
      CHECK(writing) << "transaction " << oldest << " counts blocks not home that are not there";
    }
    while (!dead_) {
      auto it = tx_log_.find(oldest);
      if (it == tx_log_.end() || it->second.live == 0) break;
      co_await io_wq_.Wait();
    }
  }
  while (!tx_log_.empty() && tx_log_.begin()->second.live == 0) tx_log_.erase(tx_log_.begin());
  co_await WriteJournalSuper();
  checkpointing_ = false;
  space_wq_.NotifyAll();
}

void Ext4::WriteHome(uint32_t blk) {
  auto it = ckpt_.find(blk);
  if (it == ckpt_.end() || it->second.writing_tid == it->second.tid) return;
  const uint32_t tid = it->second.tid;
  it->second.writing_tid = tid;
  stats_.home_writes.Inc();
  SubmitWrite(blk, {it->second.content}, IoKind::kMeta, false, [this, blk, tid] {
    auto c = ckpt_.find(blk);
    if (c == ckpt_.end() || c->second.tid != tid) return;  // relogged or freed since
    auto tl = tx_log_.find(tid);
    if (tl != tx_log_.end() && tl->second.live > 0) --tl->second.live;
    ckpt_.erase(c);
    ckpt_written_.insert(blk);
    UpdateMetaPage(blk);
  });
}

// The home writes become durable, then the superblock names the new tail
// (jbd2_cleanup_journal_tail): the oldest transaction with blocks not home,
// else the one committing, else the next to commit, at the log head.
sim::Task<void> Ext4::WriteJournalSuper() {
  while (!dead_) {
    bool writing = false;
    for (const auto& [b, c] : ckpt_)
      if (c.writing_tid == c.tid) writing = true;
    if (!writing) break;
    co_await io_wq_.Wait();
  }
  if (dead_) co_return;
  uint32_t seq = 0, start = 0;
  for (const auto& [tid, tl] : tx_log_)
    if (tl.live > 0) {
      seq = tid;
      start = tl.start;
      break;
    }
  if (seq == 0) {
    seq = committing_tid_ != 0 ? committing_tid_ : (running_ ? running_->tid : next_tid_);
    start = log_head_;
  }
  if (seq == jsb_sequence_ && start == jsb_start_) co_return;
  if (cfg_.barrier) co_await Flush();
  if (dead_) co_return;
  auto j = std::make_shared<JournalSuperBlock>();
  j->sequence = seq;
  j->start = start;
  uint64_t pending = 1;
  stats_.jsb_writes.Inc();
  SubmitWrite(layout_.journal_start, {j}, IoKind::kJournal, cfg_.barrier, [&pending] { --pending; });
  while (pending > 0 && !dead_) co_await io_wq_.Wait();
  jsb_sequence_ = seq;
  jsb_start_ = start;
}

sim::Task<void> Ext4::AfterWritebackPass() {
  // Committed metadata older than dirty_expire goes home (the block
  // device's own writeback of buffer heads).
  const sim::SimTime now = q_->now();
  std::vector<uint32_t> due;
  for (const auto& [b, c] : ckpt_)
    if (c.writing_tid != c.tid && now - c.committed >= cfg_.page_cache.dirty_expire) due.push_back(b);
  for (uint32_t b : due) WriteHome(b);
  co_return;
}

// ---------------------------------------------------------------------------
// Device I/O

sim::Task<void> Ext4::Flush() {
  if (dead_) co_return;
  stats_.flushes.Inc();
  IoReq* r = AllocReq();
  r->op = ssd::BlockOp::kFlush;
  r->queue = cfg_.io_queue;
  r->client = this;
  r->flush_marker = image_->FlushBegin();
  bool done = false;
  r->done = [&done] { done = true; };
  ++ios_in_flight_;
  dev_->Submit(r);
  while (!done && !dead_) co_await io_wq_.Wait();
}

void Ext4::SubmitWrite(uint32_t start, std::vector<BlockPtr> contents, IoKind kind, bool fua,
                       std::function<void()> done) {
  if (dead_) return;
  stats_.blocks_written[static_cast<int>(kind)].Inc(contents.size());
  const uint64_t offset = uint64_t{start} * kBlockSize, length = uint64_t{contents.size()} * kBlockSize;
  if (!fua && !plug_.empty()) {
    IoReq* last = plug_.back();
    const bool back = last->offset + last->length == offset;
    const bool front = offset + length == last->offset;
    if (!last->fua && (back || front) && last->length + length <= cfg_.max_io.value) {
      std::vector<uint64_t> ids;
      for (size_t i = 0; i < contents.size(); ++i)
        ids.push_back(image_->Submit(BlockNo{start + static_cast<uint32_t>(i)}, contents[i]));
      if (back) {
        last->write_ids.insert(last->write_ids.end(), ids.begin(), ids.end());
      } else {
        last->write_ids.insert(last->write_ids.begin(), ids.begin(), ids.end());
        last->offset = offset;
      }
      last->length += length;
      if (done) last->merged_done.push_back(std::move(done));
      return;
    }
  }
  IoReq* r = AllocReq();
  r->op = ssd::BlockOp::kWrite;
  r->offset = offset;
  r->length = length;
  r->fua = fua;
  r->queue = cfg_.io_queue;
  r->client = this;
  r->kind = kind;
  r->done = std::move(done);
  for (size_t i = 0; i < contents.size(); ++i)
    r->write_ids.push_back(image_->Submit(BlockNo{start + static_cast<uint32_t>(i)}, contents[i]));
  ++ios_in_flight_;
  plug_.push_back(r);
  if (!unplug_event_.scheduled()) q_->Schedule(&unplug_event_, q_->now());
}

void Ext4::Unplug() {
  if (dead_) return;  // the pool frees the requests with the Ext4
  std::vector<IoReq*> out;
  out.swap(plug_);
  for (IoReq* r : out) dev_->Submit(r);
}

void Ext4::SubmitRead(uint32_t start, uint32_t count, IoKind kind, std::function<void()> done) {
  if (dead_) return;
  IoReq* r = AllocReq();
  r->op = ssd::BlockOp::kRead;
  r->offset = uint64_t{start} * kBlockSize;
  r->length = uint64_t{count} * kBlockSize;
  r->queue = cfg_.io_queue;
  r->client = this;
  r->kind = kind;
  r->done = std::move(done);
  stats_.blocks_read[static_cast<int>(kind)].Inc(count);
  ++ios_in_flight_;
  dev_->Submit(r);
}

Ext4::IoReq* Ext4::AllocReq() {
  if (free_reqs_ == nullptr) {
    all_reqs_.push_back(std::make_unique<IoReq>());
    return all_reqs_.back().get();
  }
  IoReq* r = free_reqs_;
  free_reqs_ = r->next_free;
  r->next_free = nullptr;
  return r;
}

void Ext4::FreeReq(IoReq* r) {
  *static_cast<ssd::BlockRequest*>(r) = ssd::BlockRequest{};
  r->kind = IoKind::kData;
  r->write_ids.clear();
  r->done = nullptr;
  r->merged_done.clear();
  r->flush_marker = 0;
  r->next_free = free_reqs_;
  free_reqs_ = r;
}

void Ext4::OnBlockComplete(ssd::BlockRequest* req) {
  auto* r = static_cast<IoReq*>(req);
  if (dead_) return;  // the pool frees it with the Ext4
  --ios_in_flight_;
  if (r->op == ssd::BlockOp::kWrite) {
    for (uint64_t id : r->write_ids) image_->Complete(id, r->fua);
  } else if (r->op == ssd::BlockOp::kFlush) {
    image_->FlushEnd(r->flush_marker);
  }
  std::function<void()> done = std::move(r->done);
  std::vector<std::function<void()>> merged = std::move(r->merged_done);
  FreeReq(r);
  if (done) done();
  for (auto& d : merged) d();
  io_wq_.NotifyAll();
}

// ---------------------------------------------------------------------------
// Mount: replay (jbd2_journal_recover: scan, revoke, replay) and decode

sim::Task<sim::Status> Ext4::Recover() {
  const Layout& l = layout_;
  const auto* js = As<JournalSuperBlock>(image_->Read(BlockNo{l.journal_start}));
  if (js == nullptr) co_return sim::Status::InvalidInput("ext4: journal superblock missing");
  std::vector<uint32_t> jsb_block(1, l.journal_start);
  co_await ReadMeta(std::move(jsb_block));
  const uint32_t ring = l.journal_blocks - 1;
  uint32_t seq = js->sequence;
  uint32_t pos = js->start;
  jsb_sequence_ = seq;
  jsb_start_ = 0;
  next_tid_ = seq;
  committed_tid_ = seq - 1;
  if (pos == 0) {
    co_await ResetLog(seq);
    co_return sim::Status::Ok();
  }
  // Scan: complete transactions from the tail, in sequence.
  struct TxFound {
    uint32_t seq;
    std::vector<std::pair<uint32_t, BlockPtr>> copies;
  };
  std::vector<TxFound> found;
  std::map<uint32_t, uint32_t> revoked;  // block -> newest revoking sequence
  uint32_t scanned = 0;
  auto next = [&](uint32_t p) { return p + 1 > ring ? 1u : p + 1; };
  for (;;) {
    TxFound tx{seq, {}};
    std::vector<std::pair<uint32_t, uint32_t>> tx_revokes;
    uint32_t p = pos;
    bool complete = false;
    uint32_t steps = 0;
    while (steps++ < ring) {
      const BlockPtr& b = image_->Read(BlockNo{l.journal_start + p});
      ++scanned;
      if (const auto* d = As<JournalDescBlock>(b); d && d->sequence == seq) {
        p = next(p);
        bool ok = true;
        for (uint32_t home : d->tags) {
          const auto* c = As<JournalCopyBlock>(image_->Read(BlockNo{l.journal_start + p}));
          ++scanned;
          if (c == nullptr || c->sequence != seq || c->home != home) {
            ok = false;
            break;
          }
          tx.copies.emplace_back(home, c->content);
          p = next(p);
        }
        if (!ok) break;
        continue;
      }
      if (const auto* r = As<JournalRevokeBlock>(b); r && r->sequence == seq) {
        for (uint32_t x : r->blocks) tx_revokes.emplace_back(x, seq);
        p = next(p);
        continue;
      }
      if (const auto* c = As<JournalCommitBlock>(b); c && c->sequence == seq) {
        complete = true;
        p = next(p);
      }
      break;
    }
    if (!complete) break;
    for (auto [x, s] : tx_revokes) revoked[x] = std::max(revoked[x], s);
    found.push_back(std::move(tx));
    ++seq;
    pos = p;
  }
  // The scan's reads.
  {
    uint64_t pending = 1;
    const uint32_t n = std::min(scanned, ring);
    const uint32_t first = js->start;
    const uint32_t run1 = std::min(n, ring + 1 - first);
    SubmitRead(l.journal_start + first, run1, IoKind::kJournal, [&pending] { --pending; });
    if (n > run1) {
      ++pending;
      SubmitRead(l.journal_start + 1, n - run1, IoKind::kJournal, [&pending] { --pending; });
    }
    while (pending > 0 && !dead_) co_await io_wq_.Wait();
  }
  // Replay: newest copy of each block wins, unless revoked at or after it.
  std::map<uint32_t, BlockPtr> home;
  for (const TxFound& tx : found) {
    for (const auto& [b, c] : tx.copies) {
      auto r = revoked.find(b);
      if (r != revoked.end() && r->second >= tx.seq) continue;
      home[b] = c;
    }
  }
  uint64_t pending = 0;
  for (auto& [b, c] : home) {
    ++pending;
    SubmitWrite(b, {c}, IoKind::kMeta, false, [&pending] { --pending; });
  }
  while (pending > 0 && !dead_) co_await io_wq_.Wait();
  if (cfg_.barrier) co_await Flush();
  co_await ResetLog(seq);
  co_return sim::Status::Ok();
}

// journal_reset: the log restarts at its first block with sequence `seq`,
// and the superblock says so (in use: a crash from now on scans from there).
sim::Task<void> Ext4::ResetLog(uint32_t seq) {
  next_tid_ = seq;
  committed_tid_ = seq - 1;
  log_head_ = 1;
  auto j = std::make_shared<JournalSuperBlock>();
  j->sequence = seq;
  j->start = 1;
  uint64_t pending = 1;
  SubmitWrite(layout_.journal_start, {j}, IoKind::kJournal, true, [&pending] { --pending; });
  while (pending > 0 && !dead_) co_await io_wq_.Wait();
  jsb_sequence_ = seq;
  jsb_start_ = 1;
}

sim::Status Ext4::Load() {
  const Layout& l = layout_;
  const auto* sb = As<SuperBlock>(image_->Read(BlockNo{0}));
  if (sb == nullptr) return sim::Status::InvalidInput("ext4: superblock unreadable");
  hash_seed_ = sb->hash_seed;
  mounts_ = sb->mounts;
  rng_ = sim::Rng(hash_seed_, "ext4.orlov");
  orphans_ = std::set<uint32_t>(sb->orphans.begin(), sb->orphans.end());
  const uint32_t words = (l.blocks_per_group + 63) / 64;
  const uint32_t iwords = (l.inodes_per_group + 63) / 64;
  bbits_.assign(l.groups, {});
  busy_bits_.assign(l.groups, std::vector<uint64_t>(words, 0));
  ibits_.assign(l.groups, {});
  gd_.assign(l.groups, {});
  for (uint32_t k = 0; k < l.gdt_blocks; ++k) {
    const auto* gb = As<GroupDescBlock>(image_->Read(BlockNo{1 + k}));
    if (gb == nullptr) return sim::Status::InvalidInput(fmt::format("ext4: group descriptor block {} unreadable", 1 + k));
    for (size_t i = 0; i < gb->descs.size(); ++i) gd_[k * kDescsPerBlock + i] = gb->descs[i];
  }
  for (uint32_t g = 0; g < l.groups; ++g) {
    const auto* bb = As<BitmapBlock>(image_->Read(BlockNo{l.block_bitmap[g]}));
    const auto* ib = As<BitmapBlock>(image_->Read(BlockNo{l.inode_bitmap[g]}));
    if (bb == nullptr || ib == nullptr || bb->words.size() != words || ib->words.size() != iwords)
      return sim::Status::InvalidInput(fmt::format("ext4: bitmaps of group {} unreadable", g));
    bbits_[g] = bb->words;
    ibits_[g] = ib->words;
  }
  inodes_.clear();
  dyn_meta_.clear();
  const uint32_t ipb = l.InodesPerBlock();
  for (uint32_t g = 0; g < l.groups; ++g) {
    for (uint32_t i = 0; i < l.inodes_per_group; ++i) {
      const uint32_t ino = g * l.inodes_per_group + i + 1;
      if (!Bit(ibits_[g], i) || (ino < kFirstIno && ino != kRootIno)) continue;
      const auto* tb = As<InodeTableBlock>(image_->Read(BlockNo{l.InodeBlock(ino)}));
      if (tb == nullptr) return sim::Status::InvalidInput(fmt::format("ext4: inode {} unreadable", ino));
      const DiskInode& d = tb->inodes[(ino - 1) % ipb];
      if (d.mode == 0) return sim::Status::InvalidInput(fmt::format("ext4: inode {} in use but free", ino));
      auto n = std::make_unique<Inode>();
      n->ino = ino;
      n->gen = next_gen_++;
      n->is_dir = d.mode == 2;
      n->size = n->disksize = d.size;
      n->mtime = n->ctime = n->atime = sim::SimTime::FromNs(d.mtime_ns);  // one stamp on disk
      n->group = g;
      n->depth = d.depth;
      n->parent = d.parent;
      std::vector<Extent> exts;
      if (d.depth == 0) {
        exts = d.root;
      } else {
        std::vector<uint32_t> level;
        for (const Extent& e : d.root) level.push_back(e.pblk);
        if (d.depth == 2) {
          std::vector<uint32_t> leaves;
          for (uint32_t b : level) {
            const auto* eb = As<ExtentBlock>(image_->Read(BlockNo{b}));
            if (eb == nullptr) return sim::Status::InvalidInput(fmt::format("ext4: extent block {} unreadable", b));
            for (const Extent& e : eb->entries) leaves.push_back(e.pblk);
          }
          n->tree = leaves;
          n->tree.insert(n->tree.end(), level.begin(), level.end());
          n->leaves = static_cast<uint32_t>(leaves.size());
          level = leaves;
        } else {
          n->tree = level;
          n->leaves = static_cast<uint32_t>(level.size());
        }
        for (uint32_t b : level) {
          const auto* eb = As<ExtentBlock>(image_->Read(BlockNo{b}));
          if (eb == nullptr) return sim::Status::InvalidInput(fmt::format("ext4: extent block {} unreadable", b));
          exts.insert(exts.end(), eb->entries.begin(), eb->entries.end());
        }
      }
      for (const Extent& e : exts) n->ext.emplace(e.lblk, Inode::Ext{e.pblk, e.len});
      for (uint32_t k = 0; k < n->tree.size(); ++k) dyn_meta_[n->tree[k]] = MetaRef{ino, 1, k};
      inodes_[ino] = std::move(n);
    }
  }
  // Directories: their blocks, entries and hash index.
  std::map<uint32_t, uint32_t> names;  // ino -> entries naming it
  for (auto& [ino, n] : inodes_) {
    if (!n->is_dir) continue;
    const uint32_t nblocks = static_cast<uint32_t>(n->size / kBlockSize);
    n->dblocks.resize(nblocks);
    for (uint32_t lb = 0; lb < nblocks; ++lb) {
      const uint32_t pb = MapBlock(n.get(), lb);
      const auto* db = pb == 0 ? nullptr : As<DirBlock>(image_->Read(BlockNo{pb}));
      if (db == nullptr) return sim::Status::InvalidInput(fmt::format("ext4: block {} of directory {} unreadable", lb, ino));
      dyn_meta_[pb] = MetaRef{ino, 0, lb};
      if (db->kind == DirBlock::Kind::kDxRoot) {
        n->indexed = true;
        n->dx = db->index;
      } else if (db->kind == DirBlock::Kind::kDxNode) {
        n->dx_nodes.push_back(lb);
      } else {
        for (const DirEntry& e : db->entries) {
          n->dblocks[lb].names.push_back(e.name);
          n->dblocks[lb].used += DirRecLen(e.name.size());
          n->children.emplace(e.name, Inode::Child{e.ino, lb});
          ++names[e.ino];
        }
      }
    }
  }
  for (auto& [ino, n] : inodes_) {
    if (n->is_dir) {
      n->names = ino == kRootIno ? 1 : names[ino];
      for (const auto& [name, c] : n->children) {
        auto it = inodes_.find(c.ino);
        if (it == inodes_.end()) return sim::Status::InvalidInput(fmt::format("ext4: entry '{}' names free inode {}", name, c.ino));
        if (it->second->is_dir) ++n->subdirs;
      }
    } else {
      n->names = names[ino];
    }
  }
  return sim::Status::Ok();
}

// ---------------------------------------------------------------------------
// Statistics

void Ext4::RegisterStats() {
  const sim::StatGroup& g = stat_group_;
  if (g.prefix().empty()) return;
  ops_.Register(g);
  static const char* kKinds[] = {"data", "meta", "journal"};
  for (int i = 0; i < 3; ++i) {
    g.Add(&stats_.blocks_written[i], std::string("blocks_written.") + kKinds[i], "blocks",
          std::string(kKinds[i]) + " blocks written");
    g.Add(&stats_.blocks_read[i], std::string("blocks_read.") + kKinds[i], "blocks",
          std::string(kKinds[i]) + " blocks read");
  }
  sim::StatGroup j = g.Group("journal");
  j.Add(&stats_.commits, "commits", "count", "journal commits");
  j.Add(&stats_.commit_blocks, "logged_blocks", "blocks", "metadata blocks logged by commits");
  j.Add(&stats_.journal_blocks, "blocks", "blocks", "journal blocks written (descriptors, copies, revokes, commits)");
  j.Add(&stats_.revokes, "revokes", "count", "metadata blocks revoked (freed)");
  j.Add(&stats_.checkpoints, "checkpoints", "count", "journal checkpoints (log space, unmount)");
  j.Add(&stats_.home_writes, "home_writes", "blocks", "committed metadata blocks written to their home location");
  j.Add(&stats_.jsb_writes, "super_writes", "count", "journal superblock updates (tail moved)");
  j.Add(&stats_.commit_lat, "commit_lat", "ns", "commit duration");
  j.Add(&stats_.commit_tx_blocks, "tx_blocks", "blocks", "metadata blocks per committed transaction");
  j.Add(&stats_.handles, "handles", "count", "JBD2 handles started (metadata changes of namespace calls)");
  j.Add(&stats_.handle_locked_waits, "handle_locked_waits", "count",
        "handles that waited for a commit's locked phase to end (wait_transaction_locked)");
  j.Add(&stats_.handle_locked_wait, "handle_locked_wait", "ns", "how long those handles waited");
  j.Add(&stats_.commit_locked, "commit_locked", "ns",
        "a commit's locked phase: waiting for the open handles to finish (jbd2_journal_wait_updates)");
  sim::StatGroup f = g.Group("fsync");
  f.Add(&stats_.fsync_calls, "calls", "count", "fsync and fdatasync calls");
  f.Add(&stats_.fsync_commits, "commits", "count", "fsyncs that waited for a commit");
  f.Add(&stats_.fsync_flushes, "flushes", "count", "fsyncs that only flushed the device cache");
  f.Add(&stats_.fsync_lat, "lat_total", "ns", "fsync/fdatasync latency inside the file system");
  g.Add(&stats_.flushes, "flushes", "count", "device cache flushes");
  sim::StatGroup a = g.Group("alloc");
  a.Add(&stats_.alloc_requests, "requests", "count", "mballoc searches");
  a.Add(&stats_.alloc_goal_hits, "goal_hits", "count", "searches satisfied at the goal");
  a.Add(&stats_.groups_scanned, "groups_scanned", "count", "block groups scanned");
  a.Add(&stats_.lg_prealloc, "lg_preallocs", "count", "locality-group preallocations taken");
  a.Add(&stats_.inode_prealloc, "inode_preallocs", "count", "inode preallocations kept");
  g.Add(&stats_.meta_misses, "meta_misses", "count", "metadata blocks read on a cache miss");
  g.Add(&stats_.inode_readahead_blocks, "inode_readahead", "blocks", "inode-table blocks read ahead");
  sim::StatGroup app = g.Group("app");
  app.Add(&stats_.app_bytes_written, "bytes_written", "bytes", "bytes written by the application");
  app.Add(&stats_.app_bytes_read, "bytes_read", "bytes", "bytes read by the application");
  g.AddFormula(
      [this] {
        const double app = static_cast<double>(stats_.app_bytes_written.value());
        double dev = 0;
        for (const auto& c : stats_.blocks_written) dev += static_cast<double>(c.value()) * kBlockSize;
        return app > 0 ? dev / app : 0.0;
      },
      "write_amplification", "ratio", "blocks the file system wrote / bytes the application wrote");
  if (device_wa_) {
    g.AddFormula(
        [this] {
          const double app = static_cast<double>(stats_.app_bytes_written.value());
          double dev = 0;
          for (const auto& c : stats_.blocks_written) dev += static_cast<double>(c.value()) * kBlockSize;
          return app > 0 ? dev / app * device_wa_() : 0.0;
        },
        "write_amplification_end_to_end", "ratio", "file-system write amplification x the device's");
  }
}

}  // namespace fs::ext4
