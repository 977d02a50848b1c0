// TxManager (tx_manager.h): the contract there; how a commit goes here.
//
// Commit (f2fs_ioc_commit_atomic_file_set, "per-group page list"):
//  1. f2fs_balance_fs; every member's i_rwsem exclusive (ino order);
//     cp_rwsem shared for the whole commit (f2fs_lock_op): no checkpoint
//     can persist a half-applied transaction.
//  2. The held writes are applied to the members (blocks reserved, pages
//     dirtied) and written in one batch, out of place (never IPU: the old
//     blocks hold the committed state until the commit is durable); the
//     old blocks are collected, not invalidated (delayed invalidation).
//  3. The members' dirty dnodes and inode pages, written to the warm node
//     log without fsync marks, and waited for.
//  4. A cache flush (the data and nodes are durable), then the commit
//     record: for a set the master node (the member list, FSYNC-marked);
//     for a single-file atomic write the file's inode page with the FSYNC
//     mark (the kernel marks the last dnode); then, with every earlier
//     write of the warm node log (other files' fsyncs may have put nodes
//     in the chain before the record), waited for and flushed.
//  5. The old blocks are invalidated; the members unlocked.
// Roll-forward recovery (recovery.h) replays a member's nodes only up
// to an FSYNC-marked record naming it, so a commit whose record is not
// durable leaves no trace, and one whose record is replays whole (a lost
// node before the record breaks the chain, so the record is never reached
// without them). A member that needs a checkpoint for fsync
// (need_do_checkpoint) or whose dentry no checkpoint has (its name could
// not be re-linked by a master node) commits by a checkpoint instead: the
// writes applied and written as above under cp_rwsem, then a checkpoint.
//
// The master node takes a block of the warm node log (no nid, SSA owner
// nid 0) and stays valid until the next checkpoint, which covers the
// transaction and invalidates it just before writing the SIT: until then
// nothing (SSR included) may reuse the block recovery reads it from.
#include "fs/f2fs/tx_manager.h"

#include <algorithm>
#include <cstring>

#include <glog/logging.h>

namespace fs::f2fs {

namespace {

std::shared_ptr<DataBlock>& MutTxBlock(std::shared_ptr<DataBlock>& b) {
  if (!b) b = std::make_shared<DataBlock>();
  else if (b.use_count() > 1) b = std::make_shared<DataBlock>(*b);
  return b;
}

}  // namespace

TxManager::TxSet* TxManager::FindSet(uint64_t key) {
  auto it = sets_.find(key);
  return it == sets_.end() ? nullptr : &it->second;
}

Errno TxManager::Usable() const {
  // F2FS-J replays metadata records only; it has no commit record for a
  // group of files.
  if (journal_) return Errno::kNotSup;
  return Errno::kOk;
}

TxManager::TxManager(const Deps& d)
    : cfg_(*d.cfg),
      layout_(*d.layout),
      q_(d.events),
      image_(d.image),
      cache_(d.cache),
      wb_(d.writeback),
      io_(d.io),
      sm_(d.sm),
      alloc_(d.alloc),
      nodes_(d.nodes),
      itab_(d.inodes),
      dp_(d.pages),
      cpm_(d.cp),
      fsm_(d.fsync),
      durability_(d.durability),
      journal_(d.journal),
      stat_group_(d.stats),
      ssr_blocks_(d.ssr_blocks),
      app_bytes_written_(d.app_bytes_written),
      host_(d.host),
      wq_(d.events) {}

void TxManager::RegisterStats() {
  if (stats_registered_) return;
  stats_registered_ = true;
  // Registered at the first transaction call: a run without transactions
  // keeps its results as they were.
  sim::StatGroup t = stat_group_.Group("tx");
  t.Add(&stats_.commits, "commits", "count", "transactions committed (sets and single-file atomic writes)");
  t.Add(&stats_.commit_checkpoints, "commit_checkpoints", "count",
        "commits made durable by a checkpoint (a member needed one) instead of a master node");
  t.Add(&stats_.aborts, "aborts", "count", "running transactions aborted (TxEnd, AtomicWriteAbort)");
  t.Add(&stats_.pages, "pages", "pages", "pages written by commits");
  t.Add(&stats_.master_nodes, "master_nodes", "count", "master nodes written");
  t.Add(&stats_.commit_lat, "commit_lat", "ns", "commit duration, from the call to durable");
  t.Add(&stats_.recovered, "recovered", "count", "committed transactions roll-forward recovery replayed at mount");
  t.Add(&stats_.stolen, "stolen_pages", "pages", "running transactions' pages written early (stealing)");
  t.Add(&stats_.stolen_moved, "stolen_moved", "blocks", "stolen blocks moved by cleaning (shadow GC)");
}

FsResult<Inode*> TxManager::FileOf(Fd fd) {
  uint32_t flags = 0;
  FsResult<Inode*> f = host_->FdInode(fd, &flags);
  if (!f.ok()) return f;
  Inode* in = f.value;
  if (in->is_dir) return {nullptr, Errno::kIsDir};
  if (!(flags & (kWrOnly | kRdWr))) return {nullptr, Errno::kBadF};
  return {in, Errno::kOk};
}

sim::Task<Errno> TxManager::AddInode(TxSet* set, Inode* in) {
  if (in->tx) co_return Errno::kBusy;
  const uint64_t key = set->key;
  in->tx = std::make_unique<TxFile>();
  in->tx->key = key;
  set->members.emplace_back(itab_, in);
  if (!set->running) co_return Errno::kOk;
  // Joining a running transaction: the file's dirty data is written back
  // first, so the transaction starts from what the file holds.
  co_await in->lock.LockExclusive();
  vfs::ExclusiveLock g(&in->lock);
  co_await host_->WritebackInode(in, UINT64_MAX, /*wait=*/true, /*from_cp=*/false);
  while (in->wb_writes > 0 && !host_->Dead()) co_await io_->write_done_wq().Wait();
  if (in->tx && in->tx->key == key) {
    in->tx->running = true;
    in->tx->size = I(in).size;
  }
  co_return Errno::kOk;
}

sim::Task<FsResult<uint64_t>> TxManager::Add(uint64_t key, Fd fd) {
  host_->RequestArrived();
  co_await host_->Cpu(cfg_.cpu.syscall);
  RegisterStats();
  if (const Errno u = Usable(); u != Errno::kOk) co_return FsResult<uint64_t>{0, u};
  FsResult<Inode*> f = FileOf(fd);
  if (!f.ok()) co_return FsResult<uint64_t>{0, f.err};
  TxSet* set = nullptr;
  if (key == 0) {
    if (f.value->tx) co_return FsResult<uint64_t>{0, Errno::kBusy};
    key = next_key_++;
    set = &sets_[key];
    set->key = key;
  } else {
    set = FindSet(key);
    if (!set || set->single) co_return FsResult<uint64_t>{0, Errno::kNoEnt};
    if (set->committing) co_return FsResult<uint64_t>{0, Errno::kBusy};
  }
  InodeRef ref(itab_, f.value);
  const Errno e = co_await AddInode(set, ref.get());
  co_return FsResult<uint64_t>{e == Errno::kOk ? key : 0, e};
}

sim::Task<Errno> TxManager::StartSet(TxSet* set) {
  set->running = true;
  set->committing = true;  // no other call on the set while its members are prepared
  std::vector<Inode*> ms;
  for (InodeRef& r : set->members) ms.push_back(r.get());
  for (Inode* in : ms) {
    co_await in->lock.LockExclusive();
    vfs::ExclusiveLock g(&in->lock);
    // f2fs_ioc_start_atomic_write: the file's dirty data is written back
    // and waited for; the transaction starts from what the file holds.
    co_await host_->WritebackInode(in, UINT64_MAX, /*wait=*/true, /*from_cp=*/false);
    while (in->wb_writes > 0 && !host_->Dead()) co_await io_->write_done_wq().Wait();
    TxFile& t = *in->tx;
    t.running = true;
    t.pages.clear();
    t.size = I(in).size;
    t.cut = UINT64_MAX;
  }
  set->committing = false;
  wq_.NotifyAll();
  co_return Errno::kOk;
}

sim::Task<FsResult<TxManager::TxSet*>> TxManager::MultiSetOf(uint64_t key) {
  host_->RequestArrived();
  co_await host_->Cpu(cfg_.cpu.syscall);
  RegisterStats();
  if (const Errno u = Usable(); u != Errno::kOk) co_return FsResult<TxSet*>{nullptr, u};
  TxSet* set = FindSet(key);
  if (!set || set->single) co_return FsResult<TxSet*>{nullptr, Errno::kNoEnt};
  if (set->committing) co_return FsResult<TxSet*>{nullptr, Errno::kBusy};
  co_return FsResult<TxSet*>{set, Errno::kOk};
}

sim::Task<FsStatus> TxManager::Start(uint64_t key) {
  FsResult<TxSet*> s = co_await MultiSetOf(key);
  if (!s.ok()) co_return FsStatus{false, s.err};
  TxSet* set = s.value;
  if (set->running || set->members.empty()) co_return FsStatus{false, Errno::kInval};
  const Errno e = co_await StartSet(set);
  co_return FsStatus{e == Errno::kOk, e};
}

sim::Task<void> TxManager::AbortSet(TxSet* set) {
  std::vector<Inode*> ms;
  for (InodeRef& r : set->members) ms.push_back(r.get());
  for (Inode* in : ms) {
    // Writers of the member finish first; their writes go with the rest.
    co_await in->lock.LockExclusive();
    vfs::ExclusiveLock g(&in->lock);
    TxFile& t = *in->tx;
    if (!t.stolen.empty()) {
      vfs::SharedLock cp = co_await cpm_->LockOp();
      for (const auto& [idx, a] : t.stolen) ReleaseStolen(a);
      t.stolen.clear();
    }
    t.running = false;
    t.pages.clear();
    t.cut = UINT64_MAX;
  }
  set->running = false;
  stats_.aborts.Inc();
}

void TxManager::RemoveSet(uint64_t key) {
  auto it = sets_.find(key);
  if (it == sets_.end()) return;
  for (InodeRef& r : it->second.members) r->tx.reset();
  sets_.erase(it);  // the members' references go
}

uint64_t TxManager::HeldPages() const {
  uint64_t n = 0;
  for (const auto& [key, set] : sets_) {
    if (!set.running) continue;
    for (const InodeRef& r : set.members)
      if (r->tx) n += r->tx->pages.size();
  }
  return n;
}

void TxManager::ReleaseCoveredMasterNodes() {
  for (BlockAddr a : live_masters_) {
    sm_->Invalidate(a);
    host_->DecValidBlocks(1);
  }
  live_masters_.clear();
}

void TxManager::FillStolen(std::vector<uint32_t>* out) const {
  for (const auto& [a, owner] : stolen_owner_) out->push_back(a);
  std::sort(out->begin(), out->end());  // unordered_map order: sorted for a deterministic pack
}

void TxManager::ReleaseStolen(BlockAddr a) {
  auto it = stolen_owner_.find(a.v);
  CHECK(it != stolen_owner_.end()) << "block " << a.v << " is not stolen";
  stolen_owner_.erase(it);
  sm_->Invalidate(a);
  host_->DecValidBlocks(1);
}

sim::Task<std::shared_ptr<DataBlock>> TxManager::ReadStolen(Inode* in, uint64_t idx) {
  co_await io_->ReadBlock(in->tx->stolen.at(idx), Io::kData);
  // Cleaning may have moved it meanwhile: the content is the same.
  auto b = std::make_shared<DataBlock>();
  auto it = in->tx->stolen.find(idx);
  if (it == in->tx->stolen.end()) co_return b;
  const BlockPtr& c = image_->Read(it->second);
  if (c) {
    CHECK(c->type == BlockData::Type::kData) << "stolen block " << it->second.v << " holds another block type";
    b->bytes = static_cast<const DataBlock&>(*c).bytes;
  }
  co_return b;
}

// exF2FS steals a running transaction's pages when memory runs short; here
// the writer steals its file's held pages once the transactions' held
// pages and the dirty file data together pass dirty_ratio of the page
// cache (where plain writers would be throttled).
sim::Task<void> TxManager::StealPages(Inode* in) {
  TxFile& t = *in->tx;
  if (t.pages.empty()) co_return;
  IoBatch batch(q_);
  {
    vfs::SharedLock cp = co_await cpm_->LockOp();
    if (host_->Dead()) co_return;
    WriteBatcher wb(io_, Io::kData, &batch);
    std::vector<uint64_t> idxs;
    for (const auto& [idx, b] : t.pages) idxs.push_back(idx);
    for (uint64_t idx : idxs) {
      if (!host_->IncValidBlocks(1)) break;  // no room: the rest stays in memory
      auto it = t.pages.find(idx);
      const LogType lt = host_->DataLogType(in, /*hot=*/false, /*gc=*/false);
      sm_->OpenLog(lt);
      if (sm_->curseg(lt).ssr) ssr_blocks_->Inc();
      const BlockAddr a = sm_->Allocate(lt, Summary{in->ino, kStolenOfs, 0}, q_->now(), host_->NeedSsr());
      t.stolen[idx] = a;
      stolen_owner_[a.v] = {in->ino, idx};
      ++in->wb_writes;
      wb.Add(a, BlockPtr(std::move(it->second)), nullptr, in->ino);
      t.pages.erase(it);
      stats_.stolen.Inc();
    }
    wb.Flush();
  }
  co_await io_->WaitBatch(batch);
}

bool TxManager::MoveStolen(BlockAddr a, WriteBatcher& wb) {
  auto it = stolen_owner_.find(a.v);
  if (it == stolen_owner_.end() || !sm_->BlockValid(a)) return false;
  const auto [ino, idx] = it->second;
  Inode* in = itab_->Find(ino);
  CHECK(in != nullptr && in->tx && in->tx->stolen.count(idx)) << "stolen block " << a.v << " without its file";
  const LogType t = host_->DataLogType(in, /*hot=*/false, /*gc=*/true);
  sm_->OpenLog(t);
  if (sm_->curseg(t).ssr) ssr_blocks_->Inc();
  const BlockAddr to = sm_->Allocate(t, Summary{ino, kStolenOfs, 0}, q_->now(), host_->NeedSsr());
  BlockPtr content = image_->Read(a);
  sm_->Invalidate(a);
  stolen_owner_.erase(it);
  stolen_owner_[to.v] = {ino, idx};
  in->tx->stolen[idx] = to;
  ++in->wb_writes;
  wb.Add(to, std::move(content), nullptr, ino);
  stats_.stolen_moved.Inc();
  return true;
}

sim::Task<FsStatus> TxManager::End(uint64_t key) {
  FsResult<TxSet*> s = co_await MultiSetOf(key);
  if (!s.ok()) co_return FsStatus{false, s.err};
  TxSet* set = s.value;
  set->committing = true;
  if (set->running) co_await AbortSet(set);
  RemoveSet(key);
  wq_.NotifyAll();
  co_return FsStatus{true, Errno::kOk};
}

sim::Task<FsStatus> TxManager::Commit(uint64_t key) {
  FsResult<TxSet*> s = co_await MultiSetOf(key);
  if (!s.ok()) co_return FsStatus{false, s.err};
  TxSet* set = s.value;
  if (!set->running) co_return FsStatus{false, Errno::kInval};
  const Errno e = co_await CommitSet(set);
  co_return FsStatus{e == Errno::kOk, e};
}

// ---- Single-file atomic write: a set of one, without a key for the user
// (its key is taken from the same counter and never handed out).

sim::Task<FsStatus> TxManager::AtomicWriteStart(Fd fd) {
  host_->RequestArrived();
  co_await host_->Cpu(cfg_.cpu.syscall);
  RegisterStats();
  if (const Errno u = Usable(); u != Errno::kOk) co_return FsStatus{false, u};
  FsResult<Inode*> f = FileOf(fd);
  if (!f.ok()) co_return FsStatus{false, f.err};
  if (f.value->tx) co_return FsStatus{false, Errno::kBusy};
  const uint64_t key = next_key_++;
  TxSet* set = &sets_[key];
  set->key = key;
  set->single = true;
  InodeRef ref(itab_, f.value);
  Errno e = co_await AddInode(set, ref.get());
  if (e == Errno::kOk) e = co_await StartSet(set);
  co_return FsStatus{e == Errno::kOk, e};
}

sim::Task<FsResult<TxManager::TxSet*>> TxManager::SingleSetOf(Fd fd) {
  host_->RequestArrived();
  co_await host_->Cpu(cfg_.cpu.syscall);
  RegisterStats();
  if (const Errno u = Usable(); u != Errno::kOk) co_return FsResult<TxSet*>{nullptr, u};
  FsResult<Inode*> f = FileOf(fd);
  if (!f.ok()) co_return FsResult<TxSet*>{nullptr, f.err};
  TxSet* set = f.value->tx ? FindSet(f.value->tx->key) : nullptr;
  if (!set || !set->single) co_return FsResult<TxSet*>{nullptr, Errno::kInval};
  if (set->committing) co_return FsResult<TxSet*>{nullptr, Errno::kBusy};
  co_return FsResult<TxSet*>{set, Errno::kOk};
}

sim::Task<FsStatus> TxManager::AtomicWriteCommit(Fd fd) {
  FsResult<TxSet*> s = co_await SingleSetOf(fd);
  if (!s.ok()) co_return FsStatus{false, s.err};
  TxSet* set = s.value;
  const uint64_t key = set->key;
  const Errno e = co_await CommitSet(set);
  // Committed: the file is ordinary again (F2FS clears FI_ATOMIC_FILE).
  if (e == Errno::kOk) RemoveSet(key);
  co_return FsStatus{e == Errno::kOk, e};
}

sim::Task<FsStatus> TxManager::AtomicWriteAbort(Fd fd) {
  FsResult<TxSet*> s = co_await SingleSetOf(fd);
  if (!s.ok()) co_return FsStatus{false, s.err};
  TxSet* set = s.value;
  const uint64_t key = set->key;
  set->committing = true;
  co_await AbortSet(set);
  RemoveSet(key);
  wq_.NotifyAll();
  co_return FsStatus{true, Errno::kOk};
}

// ---- Reads, writes and truncates of a running transaction's member.

sim::Task<Errno> TxManager::Read(Inode* in, uint64_t offset, std::span<uint8_t> out, uint64_t* done) {
  *done = 0;
  const TxFile& t = *in->tx;
  if (offset >= t.size || out.empty()) co_return Errno::kOk;
  const uint64_t n = std::min<uint64_t>(out.size(), t.size - offset);
  std::memset(out.data(), 0, n);
  // What the file held before, below the transaction's truncates.
  const uint64_t base = std::min<uint64_t>(I(in).size, t.cut);
  if (offset < base) {
    uint64_t got = 0;
    const Errno e = co_await host_->DoRead(in, offset, out.data(), std::min<uint64_t>(n, base - offset), &got);
    if (e != Errno::kOk) co_return e;
  }
  // The transaction's pages on top (its truncates may have dropped some).
  const uint64_t first = offset / kBlockSize, last = (offset + n - 1) / kBlockSize;
  int64_t copied = 0;
  for (auto it = in->tx->pages.lower_bound(first); it != in->tx->pages.end() && it->first <= last; ++it) {
    const uint64_t page_start = it->first * kBlockSize;
    const uint64_t from = std::max(offset, page_start), to = std::min(offset + n, page_start + kBlockSize);
    if (it->second) std::memcpy(out.data() + (from - offset), it->second->bytes.data() + (from - page_start), to - from);
    else std::memset(out.data() + (from - offset), 0, to - from);
    ++copied;
  }
  std::vector<uint64_t> stolen;
  for (auto it = in->tx->stolen.lower_bound(first); it != in->tx->stolen.end() && it->first <= last; ++it)
    stolen.push_back(it->first);
  for (uint64_t idx : stolen) {
    const std::shared_ptr<DataBlock> b = co_await ReadStolen(in, idx);
    const uint64_t page_start = idx * kBlockSize;
    const uint64_t from = std::max(offset, page_start), to = std::min(offset + n, page_start + kBlockSize);
    std::memcpy(out.data() + (from - offset), b->bytes.data() + (from - page_start), to - from);
    ++copied;
  }
  *done = n;
  if (copied > 0) co_await host_->Cpu(cfg_.cpu.memcpy_page * copied);
  co_return Errno::kOk;
}

sim::Task<Errno> TxManager::Write(Inode* in, uint64_t offset, std::span<const uint8_t> data, uint64_t length,
                               uint64_t* done) {
  *done = 0;
  if (length == 0) co_return Errno::kOk;
  const uint64_t end = offset + length;
  if (end > MaxFileBlocks() * kBlockSize) co_return Errno::kFBig;
  const uint64_t first = offset / kBlockSize, last = (end - 1) / kBlockSize;
  for (uint64_t idx = first; idx <= last; ++idx) {
    const uint64_t page_start = idx * kBlockSize;
    const uint64_t from = std::max(offset, page_start), to = std::min(end, page_start + kBlockSize);
    const bool partial = to - from < kBlockSize;
    auto it = in->tx->pages.find(idx);
    if (it == in->tx->pages.end() && in->tx->stolen.count(idx)) {
      // Written again after it was stolen: back in memory, the block goes.
      std::shared_ptr<DataBlock> start;
      if (partial) start = co_await ReadStolen(in, idx);
      vfs::SharedLock cp = co_await cpm_->LockOp();
      auto st = in->tx->stolen.find(idx);
      ReleaseStolen(st->second);
      in->tx->stolen.erase(st);
      it = in->tx->pages.emplace(idx, std::move(start)).first;
    }
    if (it == in->tx->pages.end()) {
      // A page the transaction has not written yet starts from what the
      // file held (read-modify-write of a partly overwritten page).
      std::shared_ptr<DataBlock> start;
      const uint64_t base = std::min<uint64_t>(I(in).size, in->tx->cut);
      if (partial && page_start < base) {
        start = std::make_shared<DataBlock>();
        uint64_t got = 0;
        const Errno e =
            co_await host_->DoRead(in, page_start, start->bytes.data(), std::min<uint64_t>(kBlockSize, base - page_start), &got);
        if (e != Errno::kOk) co_return e;
      }
      it = in->tx->pages.emplace(idx, std::move(start)).first;
    }
    std::shared_ptr<DataBlock>& b = it->second;
    if (data.empty()) {
      if (!partial) b.reset();
      else if (b) std::memset(MutTxBlock(b)->bytes.data() + (from - page_start), 0, to - from);
    } else {
      std::memcpy(MutTxBlock(b)->bytes.data() + (from - page_start), data.data() + (from - offset), to - from);
    }
  }
  in->tx->size = std::max(in->tx->size, end);
  *done = length;
  app_bytes_written_->Inc(length);
  co_await host_->Cpu(cfg_.cpu.memcpy_page * static_cast<int64_t>(last - first + 1));
  const double limit = static_cast<double>(cache_->limit()) * cfg_.page_cache.dirty_ratio.value;
  if (static_cast<double>(HeldPages() + wb_->dirty_pages()) > limit) co_await StealPages(in);
  co_return Errno::kOk;
}

sim::Task<Errno> TxManager::Truncate(Inode* in, uint64_t size) {
  if (size > MaxFileBlocks() * kBlockSize) co_return Errno::kFBig;
  TxFile& t = *in->tx;
  if (size < t.size) {
    const uint64_t keep = (size + kBlockSize - 1) / kBlockSize;
    // A stolen page the new end cuts through comes back to memory (its
    // tail is zeroed below); stolen pages past the end go.
    if (size % kBlockSize && t.stolen.count(size / kBlockSize)) {
      std::shared_ptr<DataBlock> b = co_await ReadStolen(in, size / kBlockSize);
      auto st = t.stolen.find(size / kBlockSize);
      vfs::SharedLock cp = co_await cpm_->LockOp();
      ReleaseStolen(st->second);
      t.stolen.erase(st);
      t.pages[size / kBlockSize] = std::move(b);
    }
    if (t.stolen.lower_bound(keep) != t.stolen.end()) {
      vfs::SharedLock cp = co_await cpm_->LockOp();
      for (auto it = t.stolen.lower_bound(keep); it != t.stolen.end();) {
        ReleaseStolen(it->second);
        it = t.stolen.erase(it);
      }
    }
    t.pages.erase(t.pages.lower_bound(keep), t.pages.end());
    if (size % kBlockSize) {
      auto it = t.pages.find(size / kBlockSize);
      if (it != t.pages.end() && it->second)
        std::memset(MutTxBlock(it->second)->bytes.data() + size % kBlockSize, 0, kBlockSize - size % kBlockSize);
    }
    t.cut = std::min(t.cut, size);
  }
  t.size = size;
  co_return Errno::kOk;
}

// ---- Commit.

void TxManager::WriteMasterNode(const std::vector<Nid>& members, WriteBatcher& wb) {
  const LogType t = alloc_->NodeLog(NodePlacement{/*dnode=*/true, /*cold=*/true});
  auto mn = std::make_shared<NodeBlock>();
  mn->master = true;
  mn->members = members;
  if (sm_->curseg(t).ssr) ssr_blocks_->Inc();
  const BlockAddr addr = sm_->Allocate(t, Summary{kNullNid, 0, 0}, q_->now(), host_->NeedSsr());
  mn->footer.cp_ver = cpm_->version();
  mn->footer.next_blkaddr = sm_->NextAddr(t);
  mn->footer.fsync = true;
  host_->AddMasterNodeBlock();  // room checked by the commit; see live_masters_
  live_masters_.push_back(addr);
  uint64_t seq = 0;
  if (t == LogType::kWarmNode) {
    seq = io_->NextWarmNodeSeq();
  }
  stats_.master_nodes.Inc();
  wb.Add(addr, std::move(mn), nullptr, kNullNid, seq);
}

sim::Task<Errno> TxManager::TakeStolen(Inode* in, std::vector<BlockAddr>* revoke) {
  TxFile& t = *in->tx;
  // Dnode slots do not exist in an inline inode.
  if (I(in).inline_data) {
    const Errno e = co_await host_->ConvertInlineData(in);
    if (e != Errno::kOk) co_return e;
  }
  for (const auto& [idx, a0] : std::map<uint64_t, BlockAddr>(t.stolen)) {
    DnodeRef dn = co_await nodes_->GetDnode(in, idx, /*alloc=*/true);
    if (!dn.np) co_return dn.err == Errno::kOk ? Errno::kNoSpc : dn.err;
    // Cleaning may have moved the block while the dnode was read.
    const BlockAddr a = t.stolen.at(idx);
    // A cached page of the committed content is stale now (and if
    // cleaning dirtied it, its write must not bring that content back).
    if (dp_->Find(in, idx)) dp_->Drop(in, idx);
    const BlockAddr old = dn.np->blk->Addr(dn.ofs);
    if (old == kNullAddr) {
      ++nodes_->MutI(in).data_blocks;  // the stolen block is counted already
    } else {
      host_->DecValidBlocks(1);  // the replaced block (or reservation) goes
      if (IsValidBlkaddr(old)) revoke->push_back(old);
    }
    sm_->Reown(a, Summary{dn.np->nid, static_cast<uint16_t>(dn.ofs), 0});
    NodeManager::Mut(dn.np).SetAddr(dn.ofs, a);
    nodes_->SetDirty(dn.np, in);
    durability_->OnBlockUpdate(BlockUpdate{false, dn.np->nid, static_cast<uint16_t>(dn.ofs), in->ino, old, a, idx,
                                           I(in).size, false});
    stolen_owner_.erase(a.v);
    t.stolen.erase(idx);
    in->append_write = true;
    co_await host_->Cpu(cfg_.cpu.node_lookup);
  }
  co_return Errno::kOk;
}

sim::Task<Errno> TxManager::CommitSet(TxSet* set) {
  const sim::SimTime t0 = q_->now();
  set->committing = true;
  struct Done {
    TxManager* m;
    TxSet* set;
    ~Done() {
      set->committing = false;
      if (!m->host_->Dead()) m->wq_.NotifyAll();
    }
  } done{this, set};
  co_await host_->BalanceFs();
  std::vector<Inode*> ms;
  for (InodeRef& r : set->members) ms.push_back(r.get());
  std::sort(ms.begin(), ms.end(), [](const Inode* a, const Inode* b) { return a->ino < b->ino; });
  std::vector<vfs::ExclusiveLock> locks;
  for (Inode* in : ms) {
    co_await in->lock.LockExclusive();
    locks.emplace_back(&in->lock);
  }
  // An fsync of a member that began before it joined finishes first (later
  // ones hold the member's i_rwsem, see F2fs::DoFsync): none may write its nodes
  // while the commit applies the transaction.
  for (Inode* in : ms)
    while (in->fsyncs_in_flight > 0 && !host_->Dead()) co_await wq_.Wait();
  if (host_->Dead()) co_return Errno::kIo;
  // An unlinked member's writes go with it.
  std::vector<Inode*> live;
  uint64_t pages = 0, stolen = 0;
  for (Inode* in : ms) {
    if (in->unlinked) continue;
    live.push_back(in);
    pages += in->tx->pages.size();
    stolen += in->tx->stolen.size();
  }
  bool need_cp = false;
  std::vector<BlockAddr> revoke;
  {
    vfs::SharedLock cp = co_await cpm_->LockOp();
    if (host_->Dead()) co_return Errno::kIo;
    // Room for every page as a new block plus the nodes that may map them
    // (a direct node per kAddrsPerBlock pages, and an indirect path per
    // member), checked before anything is applied: a commit that fails
    // leaves the transaction running and the members untouched.
    const uint64_t nodes = (pages + stolen) / kAddrsPerBlock + 4 * live.size() + 2;
    if (host_->ValidBlocks() + pages + nodes > layout_.user_block_count) co_return Errno::kNoSpc;
    for (Inode* in : live) {
      in->tx_commit = true;
      in->tx_revoke = &revoke;
    }
    struct Clear {
      std::vector<Inode*>* live;
      ~Clear() {
        for (Inode* in : *live) {
          in->tx_commit = false;
          in->tx_revoke = nullptr;
        }
      }
    } clear{&live};
    for (Inode* in : live) {
      TxFile& t = *in->tx;
      Errno e = Errno::kOk;
      if (t.cut < I(in).size) e = co_await host_->DoTruncate(in, t.cut, /*in_commit=*/true);
      if (e == Errno::kOk && !t.stolen.empty()) e = co_await TakeStolen(in, &revoke);
      for (auto& [idx, blk] : t.pages) {
        if (e != Errno::kOk) break;
        const uint64_t len = std::min<uint64_t>(kBlockSize, t.size - idx * kBlockSize);
        std::span<const uint8_t> bytes;
        if (blk) bytes = std::span<const uint8_t>(blk->bytes.data(), len);
        uint64_t n = 0;
        e = co_await host_->DoWrite(in, idx * kBlockSize, bytes, len, &n, /*in_commit=*/true);
      }
      if (e == Errno::kOk && I(in).size != t.size) e = co_await host_->DoTruncate(in, t.size, /*in_commit=*/true);
      CHECK(e == Errno::kOk || host_->Dead()) << "commit of inode " << in->ino.v << " failed after its space check: "
                                      << ErrnoName(e);
      if (host_->Dead()) co_return Errno::kIo;
      if (fsm_->NeedDoCheckpoint(in) || fsm_->NeedDentryMark(in->ino)) need_cp = true;
    }
    // The data, in one batch, out of place.
    IoBatch data_batch(q_);
    {
      WriteBatcher wb(io_, Io::kData, &data_batch);
      for (Inode* in : live) {
        const std::vector<uint64_t> idxs = in->dirty_index.First(UINT64_MAX);
        for (uint64_t idx : idxs) {
          DataPage* p = dp_->Find(in, idx);
          if (!p || !p->dirty) continue;
          const Errno e = co_await host_->WriteDataPage(in, p, /*hot=*/false, /*sync=*/true, wb);
          CHECK(e == Errno::kOk || host_->Dead()) << "commit data write failed: " << ErrnoName(e);
        }
      }
      wb.Flush();
    }
    co_await io_->WaitBatch(data_batch);
    // Writes of these files others started (the flusher) complete too.
    for (Inode* in : live)
      while (in->wb_writes > 0 && !host_->Dead()) co_await io_->write_done_wq().Wait();
    if (host_->Dead()) co_return Errno::kIo;
    if (!need_cp && !live.empty()) {
      // The members' nodes, without fsync marks (a single file's inode
      // page is its commit record, written below).
      IoBatch node_batch(q_);
      {
        WriteBatcher wb(io_, Io::kNode, &node_batch);
        for (Inode* in : live) {
          std::vector<NodePage*> todo;
          for (NodePage* np = in->dirty_nodes.head; np; np = np->dnext)
            if (np->blk->IsDnode() && np->blk->footer.cold && np != in->ipage) todo.push_back(np);
          std::sort(todo.begin(), todo.end(), [](const NodePage* a, const NodePage* b) { return a->nid < b->nid; });
          for (NodePage* np : todo) nodes_->WriteNodePage(np, /*fsync_mark=*/false, /*dent_mark=*/false, wb);
          if (!set->single) {
            nodes_->MutInodeBlock(in);
            nodes_->WriteNodePage(in->ipage, /*fsync_mark=*/false, /*dent_mark=*/false, wb);
          }
        }
        wb.Flush();
      }
      co_await io_->WaitBatch(node_batch);
      if (host_->Dead()) co_return Errno::kIo;
      // The commit record, one write with REQ_PREFLUSH | REQ_FUA (the
      // kernel's __write_node_page for an atomic file's last node; the
      // exF2FS master node): the block layer issues the cache flush, then
      // the record with FUA, durable on completion — no flush after it.
      // Everything the record makes reachable, and every node before it in
      // the roll-forward chain (other files' fsyncs may sit between the
      // members' nodes and the record: a lost one would hide the record),
      // has completed before the flush.
      IoBatch rec_batch(q_);
      {
        WriteBatcher wb(io_, Io::kNode, &rec_batch);
        wb.set_fua(true);
        const uint64_t before_record = io_->warm_node_seq();
        if (set->single) {
          Inode* in = live.front();
          nodes_->MutInodeBlock(in);
          nodes_->WriteNodePage(in->ipage, /*fsync_mark=*/true, /*dent_mark=*/false, wb);
        } else {
          std::vector<Nid> inos;
          for (Inode* in : live) inos.push_back(in->ino);
          WriteMasterNode(inos, wb);
        }
        co_await io_->WaitWarmNodeWritesUpTo(before_record);
        co_await io_->IssueFlush();  // REQ_PREFLUSH
        if (host_->Dead()) co_return Errno::kIo;
        wb.Flush();  // REQ_FUA
      }
      co_await io_->WaitBatch(rec_batch);
      if (host_->Dead()) co_return Errno::kIo;
    }
    // Delayed invalidation: the replaced blocks go now (with a checkpoint
    // to come, now too: it must not count them valid, and nothing reuses
    // them before it commits).
    for (BlockAddr a : revoke) sm_->Invalidate(a);
    for (Inode* in : ms) {
      TxFile& t = *in->tx;
      for (const auto& [idx, a] : t.stolen) ReleaseStolen(a);  // an unlinked member's
      t.stolen.clear();
      stats_.pages.Inc(t.pages.size());
      t.running = false;
      t.pages.clear();
      t.cut = UINT64_MAX;
    }
  }
  if (need_cp) {
    co_await cpm_->Checkpoint(CpReason::kFsync);
    stats_.commit_checkpoints.Inc();
  }
  if (host_->Dead()) co_return Errno::kIo;
  set->running = false;
  stats_.commits.Inc();
  stats_.commit_lat.Record((q_->now() - t0).ns());
  co_return Errno::kOk;
}

}  // namespace fs::f2fs
