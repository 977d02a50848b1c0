// Transactions: exF2FS's multi-file transactions (membership-oriented:
// the application names the files of a set) and F2FS's single-file atomic
// write, which they generalize.
//
// Running transaction: a member's writes and truncates go to its TxFile
// (exF2FS's inmem pages), not to the page cache: the flusher, fsync, sync
// and checkpoints never see them; reads and stat of the member see them.
// Stealing (exF2FS's stolen pages): when the held pages and the dirty file
// data pass dirty_ratio of the page cache, the writer's held pages are
// written early to blocks no dnode names (valid in the SIT, owned in the
// SSA by (ino, kStolenOfs)); a checkpoint counts them and mount frees
// them, so they too are invisible to recovery until a commit record names
// the files. Shadow GC: cleaning moves stolen blocks, which stay the
// transaction's (MoveStolen).
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
// Roll-forward recovery (f2fs_mount.cc) replays a member's nodes only up
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
#include <algorithm>
#include <cstring>

#include "fs/f2fs/f2fs.h"

namespace fs::f2fs {

namespace {

std::shared_ptr<DataBlock>& MutTxBlock(std::shared_ptr<DataBlock>& b) {
  if (!b) b = std::make_shared<DataBlock>();
  else if (b.use_count() > 1) b = std::make_shared<DataBlock>(*b);
  return b;
}

}  // namespace

F2fs::TxSet* F2fs::FindTxSet(uint64_t key) {
  auto it = tx_sets_.find(key);
  return it == tx_sets_.end() ? nullptr : &it->second;
}

Errno F2fs::TxUsable() const {
  // F2FS-J replays metadata records only; it has no commit record for a
  // group of files.
  if (journal_) return Errno::kNotSup;
  return Errno::kOk;
}

void F2fs::RegisterTxStats() {
  if (tx_stats_registered_) return;
  tx_stats_registered_ = true;
  // Registered at the first transaction call: a run without transactions
  // keeps its results as they were.
  sim::StatGroup t = stat_group_.Group("tx");
  t.Add(&stats_.tx_commits, "commits", "count", "transactions committed (sets and single-file atomic writes)");
  t.Add(&stats_.tx_commit_checkpoints, "commit_checkpoints", "count",
        "commits made durable by a checkpoint (a member needed one) instead of a master node");
  t.Add(&stats_.tx_aborts, "aborts", "count", "running transactions aborted (TxEnd, AtomicWriteAbort)");
  t.Add(&stats_.tx_pages, "pages", "pages", "pages written by commits");
  t.Add(&stats_.tx_master_nodes, "master_nodes", "count", "master nodes written");
  t.Add(&stats_.tx_commit_lat, "commit_lat", "ns", "commit duration, from the call to durable");
  t.Add(&stats_.tx_recovered, "recovered", "count", "committed transactions roll-forward recovery replayed at mount");
  t.Add(&stats_.tx_stolen, "stolen_pages", "pages", "running transactions' pages written early (stealing)");
  t.Add(&stats_.tx_stolen_moved, "stolen_moved", "blocks", "stolen blocks moved by cleaning (shadow GC)");
}

FsResult<F2fs::Inode*> F2fs::TxFileOf(Fd fd) {
  FsResult<OpenFile*> of = GetFd(fd);
  if (!of.ok()) return {nullptr, of.err};
  Inode* in = of.value->inode;
  if (I(in).is_dir) return {nullptr, Errno::kIsDir};
  if (!(of.value->flags & (kWrOnly | kRdWr))) return {nullptr, Errno::kBadF};
  return {in, Errno::kOk};
}

sim::Task<Errno> F2fs::TxAddInode(TxSet* set, Inode* in) {
  if (in->tx) co_return Errno::kBusy;
  const uint64_t key = set->key;
  in->tx = std::make_unique<TxFile>();
  in->tx->key = key;
  set->members.emplace_back(&itab_, in);
  if (!set->running) co_return Errno::kOk;
  // Joining a running transaction: the file's dirty data is written back
  // first, so the transaction starts from what the file holds.
  co_await in->lock.LockExclusive();
  vfs::ExclusiveLock g(&in->lock);
  co_await WritebackInode(in, UINT64_MAX, /*wait=*/true);
  while (in->wb_writes > 0 && !dead_) co_await io_->write_done_wq().Wait();
  if (in->tx && in->tx->key == key) {
    in->tx->running = true;
    in->tx->size = I(in).size;
  }
  co_return Errno::kOk;
}

sim::Task<FsResult<uint64_t>> F2fs::TxAdd(uint64_t key, Fd fd) {
  last_op_time_ = q_->now();
  co_await Cpu(cfg_.cpu.syscall);
  RegisterTxStats();
  if (const Errno u = TxUsable(); u != Errno::kOk) co_return FsResult<uint64_t>{0, u};
  FsResult<Inode*> f = TxFileOf(fd);
  if (!f.ok()) co_return FsResult<uint64_t>{0, f.err};
  TxSet* set = nullptr;
  if (key == 0) {
    if (f.value->tx) co_return FsResult<uint64_t>{0, Errno::kBusy};
    key = next_tx_key_++;
    set = &tx_sets_[key];
    set->key = key;
  } else {
    set = FindTxSet(key);
    if (!set || set->single) co_return FsResult<uint64_t>{0, Errno::kNoEnt};
    if (set->committing) co_return FsResult<uint64_t>{0, Errno::kBusy};
  }
  InodeRef ref(&itab_, f.value);
  const Errno e = co_await TxAddInode(set, ref.get());
  co_return FsResult<uint64_t>{e == Errno::kOk ? key : 0, e};
}

sim::Task<Errno> F2fs::TxStartSet(TxSet* set) {
  set->running = true;
  set->committing = true;  // no other call on the set while its members are prepared
  std::vector<Inode*> ms;
  for (InodeRef& r : set->members) ms.push_back(r.get());
  for (Inode* in : ms) {
    co_await in->lock.LockExclusive();
    vfs::ExclusiveLock g(&in->lock);
    // f2fs_ioc_start_atomic_write: the file's dirty data is written back
    // and waited for; the transaction starts from what the file holds.
    co_await WritebackInode(in, UINT64_MAX, /*wait=*/true);
    while (in->wb_writes > 0 && !dead_) co_await io_->write_done_wq().Wait();
    TxFile& t = *in->tx;
    t.running = true;
    t.pages.clear();
    t.size = I(in).size;
    t.cut = UINT64_MAX;
  }
  set->committing = false;
  tx_wq_.NotifyAll();
  co_return Errno::kOk;
}

sim::Task<FsResult<F2fs::TxSet*>> F2fs::MultiTxSetOf(uint64_t key) {
  last_op_time_ = q_->now();
  co_await Cpu(cfg_.cpu.syscall);
  RegisterTxStats();
  if (const Errno u = TxUsable(); u != Errno::kOk) co_return FsResult<TxSet*>{nullptr, u};
  TxSet* set = FindTxSet(key);
  if (!set || set->single) co_return FsResult<TxSet*>{nullptr, Errno::kNoEnt};
  if (set->committing) co_return FsResult<TxSet*>{nullptr, Errno::kBusy};
  co_return FsResult<TxSet*>{set, Errno::kOk};
}

sim::Task<FsStatus> F2fs::TxStart(uint64_t key) {
  FsResult<TxSet*> s = co_await MultiTxSetOf(key);
  if (!s.ok()) co_return FsStatus{false, s.err};
  TxSet* set = s.value;
  if (set->running || set->members.empty()) co_return FsStatus{false, Errno::kInval};
  const Errno e = co_await TxStartSet(set);
  co_return FsStatus{e == Errno::kOk, e};
}

sim::Task<void> F2fs::TxAbortSet(TxSet* set) {
  std::vector<Inode*> ms;
  for (InodeRef& r : set->members) ms.push_back(r.get());
  for (Inode* in : ms) {
    // Writers of the member finish first; their writes go with the rest.
    co_await in->lock.LockExclusive();
    vfs::ExclusiveLock g(&in->lock);
    TxFile& t = *in->tx;
    if (!t.stolen.empty()) {
      vfs::SharedLock cp = co_await LockOp();
      for (const auto& [idx, a] : t.stolen) ReleaseStolen(a);
      t.stolen.clear();
    }
    t.running = false;
    t.pages.clear();
    t.cut = UINT64_MAX;
  }
  set->running = false;
  stats_.tx_aborts.Inc();
}

void F2fs::TxRemoveSet(uint64_t key) {
  auto it = tx_sets_.find(key);
  if (it == tx_sets_.end()) return;
  for (InodeRef& r : it->second.members) r->tx.reset();
  tx_sets_.erase(it);  // the members' references go
}

uint64_t F2fs::TxHeldPages() const {
  uint64_t n = 0;
  for (const auto& [key, set] : tx_sets_) {
    if (!set.running) continue;
    for (const InodeRef& r : set.members)
      if (r->tx) n += r->tx->pages.size();
  }
  return n;
}

void F2fs::ReleaseStolen(BlockAddr a) {
  auto it = stolen_owner_.find(a.v);
  CHECK(it != stolen_owner_.end()) << "block " << a.v << " is not stolen";
  stolen_owner_.erase(it);
  sm_->Invalidate(a);
  DecValidBlocks(1);
}

sim::Task<std::shared_ptr<DataBlock>> F2fs::ReadStolen(Inode* in, uint64_t idx) {
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
sim::Task<void> F2fs::StealPages(Inode* in) {
  TxFile& t = *in->tx;
  if (t.pages.empty()) co_return;
  IoBatch batch(q_);
  {
    vfs::SharedLock cp = co_await LockOp();
    if (dead_) co_return;
    WriteBatcher wb(io_.get(), Io::kData, &batch);
    std::vector<uint64_t> idxs;
    for (const auto& [idx, b] : t.pages) idxs.push_back(idx);
    for (uint64_t idx : idxs) {
      if (!IncValidBlocks(1)) break;  // no room: the rest stays in memory
      auto it = t.pages.find(idx);
      const LogType lt = DataLogType(in, /*hot=*/false, /*gc=*/false);
      sm_->OpenLog(lt);
      if (sm_->curseg(lt).ssr) stats_.ssr_blocks.Inc();
      const BlockAddr a = sm_->Allocate(lt, Summary{in->ino, kStolenOfs, 0}, q_->now(), NeedSsr());
      t.stolen[idx] = a;
      stolen_owner_[a.v] = {in->ino, idx};
      ++in->wb_writes;
      wb.Add(a, BlockPtr(std::move(it->second)), nullptr, in->ino);
      t.pages.erase(it);
      stats_.tx_stolen.Inc();
    }
    wb.Flush();
  }
  co_await io_->WaitBatch(batch);
}

bool F2fs::MoveStolen(BlockAddr a, WriteBatcher& wb) {
  auto it = stolen_owner_.find(a.v);
  if (it == stolen_owner_.end() || !sm_->BlockValid(a)) return false;
  const auto [ino, idx] = it->second;
  Inode* in = FindInode(ino);
  CHECK(in != nullptr && in->tx && in->tx->stolen.count(idx)) << "stolen block " << a.v << " without its file";
  const LogType t = DataLogType(in, /*hot=*/false, /*gc=*/true);
  sm_->OpenLog(t);
  if (sm_->curseg(t).ssr) stats_.ssr_blocks.Inc();
  const BlockAddr to = sm_->Allocate(t, Summary{ino, kStolenOfs, 0}, q_->now(), NeedSsr());
  BlockPtr content = image_->Read(a);
  sm_->Invalidate(a);
  stolen_owner_.erase(it);
  stolen_owner_[to.v] = {ino, idx};
  in->tx->stolen[idx] = to;
  ++in->wb_writes;
  wb.Add(to, std::move(content), nullptr, ino);
  stats_.tx_stolen_moved.Inc();
  return true;
}

sim::Task<FsStatus> F2fs::TxEnd(uint64_t key) {
  FsResult<TxSet*> s = co_await MultiTxSetOf(key);
  if (!s.ok()) co_return FsStatus{false, s.err};
  TxSet* set = s.value;
  set->committing = true;
  if (set->running) co_await TxAbortSet(set);
  TxRemoveSet(key);
  tx_wq_.NotifyAll();
  co_return FsStatus{true, Errno::kOk};
}

sim::Task<FsStatus> F2fs::TxCommit(uint64_t key) {
  FsResult<TxSet*> s = co_await MultiTxSetOf(key);
  if (!s.ok()) co_return FsStatus{false, s.err};
  TxSet* set = s.value;
  if (!set->running) co_return FsStatus{false, Errno::kInval};
  const Errno e = co_await TxCommitSet(set);
  co_return FsStatus{e == Errno::kOk, e};
}

// ---- Single-file atomic write: a set of one, without a key for the user
// (its key is taken from the same counter and never handed out).

sim::Task<FsStatus> F2fs::AtomicWriteStart(Fd fd) {
  last_op_time_ = q_->now();
  co_await Cpu(cfg_.cpu.syscall);
  RegisterTxStats();
  if (const Errno u = TxUsable(); u != Errno::kOk) co_return FsStatus{false, u};
  FsResult<Inode*> f = TxFileOf(fd);
  if (!f.ok()) co_return FsStatus{false, f.err};
  if (f.value->tx) co_return FsStatus{false, Errno::kBusy};
  const uint64_t key = next_tx_key_++;
  TxSet* set = &tx_sets_[key];
  set->key = key;
  set->single = true;
  InodeRef ref(&itab_, f.value);
  Errno e = co_await TxAddInode(set, ref.get());
  if (e == Errno::kOk) e = co_await TxStartSet(set);
  co_return FsStatus{e == Errno::kOk, e};
}

sim::Task<FsResult<F2fs::TxSet*>> F2fs::SingleTxSetOf(Fd fd) {
  last_op_time_ = q_->now();
  co_await Cpu(cfg_.cpu.syscall);
  RegisterTxStats();
  if (const Errno u = TxUsable(); u != Errno::kOk) co_return FsResult<TxSet*>{nullptr, u};
  FsResult<Inode*> f = TxFileOf(fd);
  if (!f.ok()) co_return FsResult<TxSet*>{nullptr, f.err};
  TxSet* set = f.value->tx ? FindTxSet(f.value->tx->key) : nullptr;
  if (!set || !set->single) co_return FsResult<TxSet*>{nullptr, Errno::kInval};
  if (set->committing) co_return FsResult<TxSet*>{nullptr, Errno::kBusy};
  co_return FsResult<TxSet*>{set, Errno::kOk};
}

sim::Task<FsStatus> F2fs::AtomicWriteCommit(Fd fd) {
  FsResult<TxSet*> s = co_await SingleTxSetOf(fd);
  if (!s.ok()) co_return FsStatus{false, s.err};
  TxSet* set = s.value;
  const uint64_t key = set->key;
  const Errno e = co_await TxCommitSet(set);
  // Committed: the file is ordinary again (F2FS clears FI_ATOMIC_FILE).
  if (e == Errno::kOk) TxRemoveSet(key);
  co_return FsStatus{e == Errno::kOk, e};
}

sim::Task<FsStatus> F2fs::AtomicWriteAbort(Fd fd) {
  FsResult<TxSet*> s = co_await SingleTxSetOf(fd);
  if (!s.ok()) co_return FsStatus{false, s.err};
  TxSet* set = s.value;
  const uint64_t key = set->key;
  set->committing = true;
  co_await TxAbortSet(set);
  TxRemoveSet(key);
  tx_wq_.NotifyAll();
  co_return FsStatus{true, Errno::kOk};
}

// ---- Reads, writes and truncates of a running transaction's member.

sim::Task<Errno> F2fs::TxRead(Inode* in, uint64_t offset, std::span<uint8_t> out, uint64_t* done) {
  *done = 0;
  const TxFile& t = *in->tx;
  if (offset >= t.size || out.empty()) co_return Errno::kOk;
  const uint64_t n = std::min<uint64_t>(out.size(), t.size - offset);
  std::memset(out.data(), 0, n);
  // What the file held before, below the transaction's truncates.
  const uint64_t base = std::min<uint64_t>(I(in).size, t.cut);
  if (offset < base) {
    uint64_t got = 0;
    const Errno e = co_await DoRead(in, offset, out.data(), std::min<uint64_t>(n, base - offset), &got);
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
  if (copied > 0) co_await Cpu(cfg_.cpu.memcpy_page * copied);
  co_return Errno::kOk;
}

sim::Task<Errno> F2fs::TxWrite(Inode* in, uint64_t offset, std::span<const uint8_t> data, uint64_t length,
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
      vfs::SharedLock cp = co_await LockOp();
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
            co_await DoRead(in, page_start, start->bytes.data(), std::min<uint64_t>(kBlockSize, base - page_start), &got);
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
  stats_.app_bytes_written.Inc(length);
  co_await Cpu(cfg_.cpu.memcpy_page * static_cast<int64_t>(last - first + 1));
  const double limit = static_cast<double>(cache_.limit()) * cfg_.page_cache.dirty_ratio.value;
  if (static_cast<double>(TxHeldPages() + wb_.dirty_pages()) > limit) co_await StealPages(in);
  co_return Errno::kOk;
}

sim::Task<Errno> F2fs::TxTruncate(Inode* in, uint64_t size) {
  if (size > MaxFileBlocks() * kBlockSize) co_return Errno::kFBig;
  TxFile& t = *in->tx;
  if (size < t.size) {
    const uint64_t keep = (size + kBlockSize - 1) / kBlockSize;
    // A stolen page the new end cuts through comes back to memory (its
    // tail is zeroed below); stolen pages past the end go.
    if (size % kBlockSize && t.stolen.count(size / kBlockSize)) {
      std::shared_ptr<DataBlock> b = co_await ReadStolen(in, size / kBlockSize);
      auto st = t.stolen.find(size / kBlockSize);
      vfs::SharedLock cp = co_await LockOp();
      ReleaseStolen(st->second);
      t.stolen.erase(st);
      t.pages[size / kBlockSize] = std::move(b);
    }
    if (t.stolen.lower_bound(keep) != t.stolen.end()) {
      vfs::SharedLock cp = co_await LockOp();
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

void F2fs::WriteMasterNode(const std::vector<Nid>& members, WriteBatcher& wb) {
  const LogType t = alloc_->NodeLog(NodePlacement{/*dnode=*/true, /*cold=*/true});
  auto mn = std::make_shared<NodeBlock>();
  mn->master = true;
  mn->members = members;
  if (sm_->curseg(t).ssr) stats_.ssr_blocks.Inc();
  const BlockAddr addr = sm_->Allocate(t, Summary{kNullNid, 0, 0}, q_->now(), NeedSsr());
  mn->footer.cp_ver = cpm_->version();
  mn->footer.next_blkaddr = sm_->NextAddr(t);
  mn->footer.fsync = true;
  ++valid_block_count_;  // room checked by the commit; see live_masters_
  live_masters_.push_back(addr);
  uint64_t seq = 0;
  if (t == LogType::kWarmNode) {
    seq = io_->NextWarmNodeSeq();
  }
  stats_.tx_master_nodes.Inc();
  wb.Add(addr, std::move(mn), nullptr, kNullNid, seq);
}

sim::Task<Errno> F2fs::TxTakeStolen(Inode* in, std::vector<BlockAddr>* revoke) {
  TxFile& t = *in->tx;
  // Dnode slots do not exist in an inline inode.
  if (I(in).inline_data) {
    const Errno e = co_await ConvertInlineData(in);
    if (e != Errno::kOk) co_return e;
  }
  for (const auto& [idx, a0] : std::map<uint64_t, BlockAddr>(t.stolen)) {
    DnodeRef dn = co_await GetDnode(in, idx, /*alloc=*/true);
    if (!dn.np) co_return dn.err == Errno::kOk ? Errno::kNoSpc : dn.err;
    // Cleaning may have moved the block while the dnode was read.
    const BlockAddr a = t.stolen.at(idx);
    // A cached page of the committed content is stale now (and if
    // cleaning dirtied it, its write must not bring that content back).
    if (FindDataPage(in, idx)) DropDataPage(in, idx);
    const BlockAddr old = dn.np->blk->Addr(dn.ofs);
    if (old == kNullAddr) {
      ++MutI(in).data_blocks;  // the stolen block is counted already
    } else {
      DecValidBlocks(1);  // the replaced block (or reservation) goes
      if (IsValidBlkaddr(old)) revoke->push_back(old);
    }
    sm_->Reown(a, Summary{dn.np->nid, static_cast<uint16_t>(dn.ofs), 0});
    MutNode(dn.np).SetAddr(dn.ofs, a);
    SetNodeDirty(dn.np, in);
    durability_->OnBlockUpdate(BlockUpdate{false, dn.np->nid, static_cast<uint16_t>(dn.ofs), in->ino, old, a, idx,
                                           I(in).size, false});
    stolen_owner_.erase(a.v);
    t.stolen.erase(idx);
    in->append_write = true;
    co_await Cpu(cfg_.cpu.node_lookup);
  }
  co_return Errno::kOk;
}

sim::Task<Errno> F2fs::TxCommitSet(TxSet* set) {
  const sim::SimTime t0 = q_->now();
  set->committing = true;
  struct Done {
    F2fs* fs;
    TxSet* set;
    ~Done() {
      set->committing = false;
      if (!fs->dead_) fs->tx_wq_.NotifyAll();
    }
  } done{this, set};
  co_await BalanceFs();
  std::vector<Inode*> ms;
  for (InodeRef& r : set->members) ms.push_back(r.get());
  std::sort(ms.begin(), ms.end(), [](const Inode* a, const Inode* b) { return a->ino < b->ino; });
  std::vector<vfs::ExclusiveLock> locks;
  for (Inode* in : ms) {
    co_await in->lock.LockExclusive();
    locks.emplace_back(&in->lock);
  }
  // An fsync of a member that began before it joined finishes first (later
  // ones hold the member's i_rwsem, see DoFsync): none may write its nodes
  // while the commit applies the transaction.
  for (Inode* in : ms)
    while (in->fsyncs_in_flight > 0 && !dead_) co_await tx_wq_.Wait();
  if (dead_) co_return Errno::kIo;
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
    vfs::SharedLock cp = co_await LockOp();
    if (dead_) co_return Errno::kIo;
    // Room for every page as a new block plus the nodes that may map them
    // (a direct node per kAddrsPerBlock pages, and an indirect path per
    // member), checked before anything is applied: a commit that fails
    // leaves the transaction running and the members untouched.
    const uint64_t nodes = (pages + stolen) / kAddrsPerBlock + 4 * live.size() + 2;
    if (valid_block_count_ + pages + nodes > layout_.user_block_count) co_return Errno::kNoSpc;
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
      if (t.cut < I(in).size) e = co_await DoTruncate(in, t.cut, /*in_commit=*/true);
      if (e == Errno::kOk && !t.stolen.empty()) e = co_await TxTakeStolen(in, &revoke);
      for (auto& [idx, blk] : t.pages) {
        if (e != Errno::kOk) break;
        const uint64_t len = std::min<uint64_t>(kBlockSize, t.size - idx * kBlockSize);
        std::span<const uint8_t> bytes;
        if (blk) bytes = std::span<const uint8_t>(blk->bytes.data(), len);
        uint64_t n = 0;
        e = co_await DoWrite(in, idx * kBlockSize, bytes, len, &n, /*in_commit=*/true);
      }
      if (e == Errno::kOk && I(in).size != t.size) e = co_await DoTruncate(in, t.size, /*in_commit=*/true);
      CHECK(e == Errno::kOk || dead_) << "commit of inode " << in->ino.v << " failed after its space check: "
                                      << ErrnoName(e);
      if (dead_) co_return Errno::kIo;
      if (NeedDoCheckpoint(in) || NeedDentryMark(in->ino)) need_cp = true;
    }
    // The data, in one batch, out of place.
    IoBatch data_batch(q_);
    {
      WriteBatcher wb(io_.get(), Io::kData, &data_batch);
      for (Inode* in : live) {
        const std::vector<uint64_t> idxs(in->dirty_index.begin(), in->dirty_index.end());
        for (uint64_t idx : idxs) {
          DataPage* p = FindDataPage(in, idx);
          if (!p || !p->dirty) continue;
          const Errno e = co_await WriteDataPage(in, p, /*hot=*/false, /*sync=*/true, wb);
          CHECK(e == Errno::kOk || dead_) << "commit data write failed: " << ErrnoName(e);
        }
      }
      wb.Flush();
    }
    co_await io_->WaitBatch(data_batch);
    // Writes of these files others started (the flusher) complete too.
    for (Inode* in : live)
      while (in->wb_writes > 0 && !dead_) co_await io_->write_done_wq().Wait();
    if (dead_) co_return Errno::kIo;
    if (!need_cp && !live.empty()) {
      // The members' nodes, without fsync marks (a single file's inode
      // page is its commit record, written below).
      IoBatch node_batch(q_);
      {
        WriteBatcher wb(io_.get(), Io::kNode, &node_batch);
        for (Inode* in : live) {
          std::vector<NodePage*> todo;
          for (NodePage* np = in->dirty_nodes.head; np; np = np->dnext)
            if (np->blk->IsDnode() && np->blk->footer.cold && np != in->ipage) todo.push_back(np);
          std::sort(todo.begin(), todo.end(), [](const NodePage* a, const NodePage* b) { return a->nid < b->nid; });
          for (NodePage* np : todo) WriteNodePage(np, /*fsync_mark=*/false, /*dent_mark=*/false, wb);
          if (!set->single) {
            MutInodeBlock(in);
            WriteNodePage(in->ipage, /*fsync_mark=*/false, /*dent_mark=*/false, wb);
          }
        }
        wb.Flush();
      }
      co_await io_->WaitBatch(node_batch);
      if (dead_) co_return Errno::kIo;
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
        WriteBatcher wb(io_.get(), Io::kNode, &rec_batch);
        wb.set_fua(true);
        const uint64_t before_record = io_->warm_node_seq();
        if (set->single) {
          Inode* in = live.front();
          MutInodeBlock(in);
          WriteNodePage(in->ipage, /*fsync_mark=*/true, /*dent_mark=*/false, wb);
        } else {
          std::vector<Nid> inos;
          for (Inode* in : live) inos.push_back(in->ino);
          WriteMasterNode(inos, wb);
        }
        co_await io_->WaitWarmNodeWritesUpTo(before_record);
        co_await io_->IssueFlush();  // REQ_PREFLUSH
        if (dead_) co_return Errno::kIo;
        wb.Flush();  // REQ_FUA
      }
      co_await io_->WaitBatch(rec_batch);
      if (dead_) co_return Errno::kIo;
    }
    // Delayed invalidation: the replaced blocks go now (with a checkpoint
    // to come, now too: it must not count them valid, and nothing reuses
    // them before it commits).
    for (BlockAddr a : revoke) sm_->Invalidate(a);
    for (Inode* in : ms) {
      TxFile& t = *in->tx;
      for (const auto& [idx, a] : t.stolen) ReleaseStolen(a);  // an unlinked member's
      t.stolen.clear();
      stats_.tx_pages.Inc(t.pages.size());
      t.running = false;
      t.pages.clear();
      t.cut = UINT64_MAX;
    }
  }
  if (need_cp) {
    co_await Checkpoint(CpReason::kFsync);
    stats_.tx_commit_checkpoints.Inc();
  }
  if (dead_) co_return Errno::kIo;
  set->running = false;
  stats_.tx_commits.Inc();
  stats_.tx_commit_lat.Record((q_->now() - t0).ns());
  co_return Errno::kOk;
}

}  // namespace fs::f2fs
