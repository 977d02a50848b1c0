// DataPath (data_path.h): reads, writes, truncation and a data page's write.
#include "fs/f2fs/data_path.h"

#include <algorithm>
#include <cstring>

#include <boost/container/small_vector.hpp>
#include <glog/logging.h>

namespace fs::f2fs {

DataPath::DataPath(const Deps& d)
    : cfg_(*d.cfg),
      layout_(*d.layout),
      q_(d.events),
      image_(d.image),
      cache_(d.cache),
      io_(d.io),
      sm_(d.sm),
      alloc_(d.alloc),
      nodes_(d.nodes),
      itab_(d.inodes),
      dp_(d.pages),
      cpm_(d.cp),
      durability_(d.durability),
      journal_(d.journal),
      jcm_(d.committer),
      n_(d.counters),
      host_(d.host) {
  static const char* kBits[] = {"force", "ssr", "util", "ssr_util", "fsync", "async"};
  for (const std::string& b : cfg_.ipu_policy)
    for (int i = 0; i < 6; ++i)
      if (b == kBits[i]) ipu_bits_[i] = true;
}

// ---- Reads.

sim::Task<Errno> DataPath::ReadPages(Inode* inode, uint64_t first, uint64_t last, std::vector<DataPage*>* pinned) {
  const uint64_t size = I(inode).size;
  const uint64_t eof_page = size == 0 ? 0 : (size - 1) / kBlockSize;
  const uint64_t want_last = last;
  if (inode->ra_next == first) {
    const uint64_t ra = std::max<uint64_t>(1, cfg_.page_cache.readahead.value / kBlockSize);
    last = std::max(last, std::min(eof_page, first + ra - 1));
  }
  inode->ra_next = last + 1;
  auto take = [&](uint64_t idx, DataPage* p) {
    if (pinned && idx <= want_last) {
      cache_->Pin(p);
      pinned->push_back(p);
    }
  };
  std::vector<std::pair<uint64_t, BlockAddr>> todo;
  for (uint64_t idx = first; idx <= last; ++idx) {
    if (DataPage* p = dp_->Find(inode, idx)) {
      take(idx, p);
      continue;
    }
    DnodeRef dn;
    if (!nodes_->TryGetDnodeCached(inode, idx, &dn)) dn = co_await nodes_->GetDnode(inode, idx, false);
    if (DataPage* p = dp_->Find(inode, idx)) {
      take(idx, p);
      continue;
    }
    const BlockAddr a = dn.np ? dn.np->blk->Addr(dn.ofs) : kNullAddr;
    if (!IsValidBlkaddr(a)) {
      take(idx, dp_->New(inode, idx));  // hole or reserved block: zeros
      continue;
    }
    todo.emplace_back(idx, a);
  }
  if (todo.empty()) co_return Errno::kOk;
  std::vector<BlockAddr> addrs;
  for (const auto& t : todo) addrs.push_back(t.second);
  co_await io_->ReadBlocks(addrs, Io::kData);
  for (const auto& [idx, a] : todo) {
    if (DataPage* p = dp_->Find(inode, idx)) {
      take(idx, p);
      continue;
    }
    DnodeRef dn;
    if (nodes_->TryGetDnodeCached(inode, idx, &dn) && dn.np && dn.np->blk->Addr(dn.ofs) != a) continue;  // moved: retry later
    DataPage* p = dp_->New(inode, idx);
    // After a power cut a checkpoint may point at a block whose plain data
    // write was lost (a checkpoint does not wait for file data): the block
    // holds whatever it held before, maybe a node of a freed segment; such
    // foreign content reads as zeros.
    const BlockPtr& c = image_->Read(a);
    if (c && c->type == BlockData::Type::kData)
      p->bytes = std::const_pointer_cast<DataBlock>(std::static_pointer_cast<const DataBlock>(c));
    take(idx, p);
  }
  co_return Errno::kOk;
}

sim::Task<Errno> DataPath::Read(Inode* inode, uint64_t offset, uint8_t* dst, uint64_t len, uint64_t* done) {
  *done = 0;
  const Inode::ReadFields rf = nodes_->ReadFields(inode);
  const uint64_t size = rf.size;
  if (offset >= size || len == 0) co_return Errno::kOk;
  const uint64_t n = std::min<uint64_t>(len, size - offset);
  if (rf.inline_data) {
    const std::vector<uint8_t>& d = inode->ipage->blk->inline_data;
    if (dst)
      for (uint64_t i = 0; i < n; ++i) dst[i] = offset + i < d.size() ? d[offset + i] : 0;
    *done = n;
    co_await host_->Cpu(cfg_.cpu.memcpy_page);
    co_return Errno::kOk;
  }
  const uint64_t first = offset / kBlockSize, last = (offset + n - 1) / kBlockSize;
  // Pin the pages while they are read and copied. Reads of up to
  // kInlinePages pages (64 KiB) list them without allocating.
  constexpr size_t kInlinePages = 16;
  boost::container::small_vector<DataPage*, kInlinePages> pinned;
  boost::container::small_vector<DataPage*, kInlinePages> pages(last - first + 1, nullptr);
  for (uint64_t idx = first; idx <= last; ++idx) {
    if (DataPage* p = dp_->Find(inode, idx)) {
      cache_->Pin(p);
      pinned.push_back(p);
      pages[idx - first] = p;
    }
  }
  for (int round = 0;; ++round) {
    uint64_t missing = UINT64_MAX;
    for (uint64_t idx = first; idx <= last && missing == UINT64_MAX; ++idx)
      if (!pages[idx - first]) missing = idx;
    if (missing == UINT64_MAX) break;
    CHECK_LT(round, 100) << "read of page " << missing << " keeps missing";
    std::vector<DataPage*> got;
    co_await ReadPages(inode, missing, last, &got);
    for (DataPage* p : got) {
      pinned.push_back(p);
      if (p->index >= first && p->index <= last && !pages[p->index - first]) pages[p->index - first] = p;
    }
  }
  for (uint64_t pos = offset; dst && pos < offset + n;) {
    DataPage* p = pages[pos / kBlockSize - first];
    const uint64_t in_page = pos % kBlockSize;
    const uint64_t k = std::min<uint64_t>(kBlockSize - in_page, offset + n - pos);
    if (p->bytes) std::memcpy(dst + (pos - offset), p->bytes->bytes.data() + in_page, k);
    else std::memset(dst + (pos - offset), 0, k);
    pos += k;
  }
  for (DataPage* p : pinned) cache_->Unpin(p);
  *done = n;
  n_.app_bytes_read->Inc(n);
  co_await host_->Cpu(cfg_.cpu.memcpy_page * static_cast<int64_t>(last - first + 1));
  co_return Errno::kOk;
}

// ---- Writes.

sim::Task<Errno> DataPath::ReserveBlock(Inode* inode, uint64_t index) {
  DnodeRef dn;
  if (!nodes_->TryGetDnodeCached(inode, index, &dn) || !dn.np) dn = co_await nodes_->GetDnode(inode, index, true);
  if (!dn.np) co_return dn.err == Errno::kOk ? Errno::kNoSpc : dn.err;
  if (dn.np->blk->Addr(dn.ofs) != kNullAddr) co_return Errno::kOk;
  if (!host_->IncValidBlocks(1)) co_return Errno::kNoSpc;
  NodeManager::Mut(dn.np).SetAddr(dn.ofs, kNewAddr);
  nodes_->SetDirty(dn.np, inode);
  ++nodes_->MutI(inode).data_blocks;
  co_return Errno::kOk;
}

sim::Task<Errno> DataPath::ConvertInlineData(Inode* inode) {
  const std::vector<uint8_t> content = inode->ipage->blk->inline_data;
  const Errno e = co_await ReserveBlock(inode, 0);
  if (e != Errno::kOk) co_return e;
  DataPage* p = dp_->Find(inode, 0);
  if (!p) p = dp_->New(inode, 0);
  if (!content.empty()) {
    DataBlock& b = DataPages::MutBytes(p);
    std::memcpy(b.bytes.data(), content.data(), std::min<size_t>(content.size(), kBlockSize));
  }
  dp_->SetDirty(inode, p);
  // f2fs_convert_inline_page: the page is written (hot data log) and waited
  // for before the inline data goes, so the data stays consistent on flash.
  {
    cache_->Pin(p);
    IoBatch batch(q_);
    {
      WriteBatcher wb(io_, Io::kData, &batch);
      const Errno we = co_await WriteDataPage(inode, p, /*hot=*/true, /*sync=*/true, wb);
      wb.Flush();
      if (we != Errno::kOk) {
        cache_->Unpin(p);
        co_return we;
      }
    }
    co_await io_->WaitBatch(batch);
    cache_->Unpin(p);
  }
  NodeBlock& ib = nodes_->MutInodeBlock(inode);
  std::vector<uint8_t>().swap(ib.inline_data);  // the memory too: the Image may keep this block
  ib.inode->inline_data = false;
  co_return Errno::kOk;
}

sim::Task<Errno> DataPath::Write(Inode* inode, uint64_t offset, std::span<const uint8_t> data, uint64_t length,
                               uint64_t* done, bool in_commit) {
  *done = 0;
  if (length == 0) co_return Errno::kOk;
  const uint64_t end = offset + length;
  if (end > MaxFileBlocks() * kBlockSize) co_return Errno::kFBig;
  vfs::SharedLock cp;
  if (!in_commit) cp = co_await cpm_->LockOp();
  if (I(inode).inline_data) {
    if (end <= kMaxInlineData) {
      NodeBlock& b = nodes_->MutInodeBlock(inode);
      const uint64_t new_size = std::max<uint64_t>(b.inode->size, end);
      // The inline bytes are stored up to the last one a caller gave; past
      // the vector's end the file reads zeros (as a data page without bytes).
      if (!data.empty()) {
        if (b.inline_data.size() < end) b.inline_data.resize(end, 0);
        std::memcpy(b.inline_data.data() + offset, data.data(), length);
      } else if (offset < b.inline_data.size()) {
        std::memset(b.inline_data.data() + offset, 0, std::min<uint64_t>(length, b.inline_data.size() - offset));
      }
      b.inode->size = new_size;
      b.inode->mtime = q_->now();
      *done = length;
      if (in_commit) co_return Errno::kOk;  // counted and charged when the transaction wrote it
      n_.app_bytes_written->Inc(length);
      co_await host_->Cpu(cfg_.cpu.memcpy_page);
      co_return Errno::kOk;
    }
    const Errno e = co_await ConvertInlineData(inode);
    if (e != Errno::kOk) co_return e;
  }
  const uint64_t first = offset / kBlockSize, last = (end - 1) / kBlockSize;
  const uint64_t old_size = I(inode).size;
  uint64_t pos = offset;
  Errno err = Errno::kOk;
  for (uint64_t idx = first; idx <= last; ++idx) {
    const uint64_t in_page = pos % kBlockSize;
    const uint64_t len = std::min<uint64_t>(kBlockSize - in_page, end - pos);
    const bool partial = len < kBlockSize;
    // Read-modify-write of a partly overwritten page that exists on flash.
    if (partial && !inode->pages.Contains(idx) && idx * kBlockSize < old_size) {
      co_await ReadPages(inode, idx, idx);
      inode->ra_next = UINT64_MAX;
    }
    err = co_await ReserveBlock(inode, idx);
    if (err != Errno::kOk) break;
    DataPage* p = dp_->Find(inode, idx);
    if (!p) {
      if (partial && idx * kBlockSize < old_size) {
        // Evicted since the read: read again.
        co_await ReadPages(inode, idx, idx);
        p = dp_->Find(inode, idx);
        CHECK(p != nullptr);
      } else {
        p = dp_->New(inode, idx);
      }
    }
    if (data.empty()) {
      if (!partial) {
        p->bytes.reset();
      } else if (p->bytes) {
        std::memset(DataPages::MutBytes(p).bytes.data() + in_page, 0, len);
      }
    } else {
      std::memcpy(DataPages::MutBytes(p).bytes.data() + in_page, data.data() + (pos - offset), len);
    }
    dp_->SetDirty(inode, p);
    pos += len;
  }
  const uint64_t written = pos - offset;
  *done = written;
  if (written > 0) {
    if (!in_commit) n_.app_bytes_written->Inc(written);
    if (offset + written > I(inode).size) {
      InodeFields& f = nodes_->MutI(inode);
      f.size = offset + written;
      f.mtime = q_->now();
    } else {
      itab_->MarkTimeDirty(inode);
    }
  }
  // A commit hands over pages the transaction already copied in: one step
  // of the node-tree walk per page sets its block, no copy.
  co_await host_->Cpu((in_commit ? cfg_.cpu.node_lookup : cfg_.cpu.memcpy_page) * static_cast<int64_t>(last - first + 1));
  co_return written > 0 ? Errno::kOk : err;
}

// ---- Direct I/O.

int DataPath::DirectIoMode(const Inode* inode, uint64_t offset, uint64_t length, bool write) const {
  constexpr uint64_t kLogicalBlock = 512;  // the block device's logical block size
  if (offset % kLogicalBlock != 0 || length % kLogicalBlock != 0) return -1;
  if (offset % kBlockSize != 0 || length % kBlockSize != 0) return 1;
  if (I(inode).inline_data && !write) return 1;  // the data lives in the inode
  return 0;
}

sim::Task<void> DataPath::SyncCachedRange(Inode* inode, uint64_t first, uint64_t last, bool drop, bool direct) {
  std::vector<DataPage*> mine;
  inode->pages.ForEach(first, last, [&](uint64_t, DataPage* p) { mine.push_back(p); });
  if (mine.empty()) co_return;
  for (DataPage* p : mine) cache_->Pin(p);
  {
    IoBatch batch(q_);
    {
      vfs::SharedLock cp = co_await cpm_->LockOp();
      WriteBatcher wb(io_, Io::kData, &batch);
      for (DataPage* p : mine) {
        if (!p->dirty || p->zombie) continue;
        p->direct = direct;
        const Errno e = co_await WriteDataPage(inode, p, /*hot=*/false, /*sync=*/true, wb);
        if (e != Errno::kOk) break;
      }
      wb.Flush();
    }
    co_await io_->WaitBatch(batch);
  }
  // Writes of these pages others started (the flusher) complete too.
  auto busy = [&] {
    for (DataPage* p : mine)
      if (p->writeback > 0) return true;
    return false;
  };
  while (busy() && !host_->Dead()) co_await io_->write_done_wq().Wait();
  for (DataPage* p : mine) cache_->Unpin(p);
  if (drop) {
    for (uint64_t idx = first; idx <= last; ++idx) {
      DataPage* p = dp_->Find(inode, idx);
      if (p && !p->dirty) dp_->Drop(inode, idx);
    }
  }
}

// The data goes straight to the device and the call returns when the device
// completed it; a page of the range in the cache is written with it and
// then dropped (invalidate_inode_pages2_range). Blocks are reserved as for
// a buffered write (f2fs_preallocate_blocks) and written in place over
// valid ones unless in LFS mode, new ones to the warm data log. The node
// changes stay dirty: only fsync makes them durable.
sim::Task<Errno> DataPath::DirectWrite(Inode* inode, uint64_t offset, std::span<const uint8_t> data,
                                     uint64_t length, uint64_t* done) {
  *done = 0;
  if (I(inode).inline_data) {
    vfs::SharedLock cp = co_await cpm_->LockOp();
    const Errno e = co_await ConvertInlineData(inode);
    if (e != Errno::kOk) co_return e;
  }
  const Errno e = co_await Write(inode, offset, data, length, done, /*in_commit=*/false);
  if (*done == 0) co_return e;
  const uint64_t first = offset / kBlockSize, last = (offset + *done - 1) / kBlockSize;
  co_await SyncCachedRange(inode, first, last, /*drop=*/true, /*direct=*/true);
  n_.direct_bytes_written->Inc(*done);
  co_return Errno::kOk;
}

// Dirty cached pages of the range are written first; then every block is
// read from the device (holes and reserved blocks read as zeros), nothing
// enters the page cache.
sim::Task<Errno> DataPath::DirectRead(Inode* inode, uint64_t offset, std::span<uint8_t> out, uint64_t* done) {
  *done = 0;
  const uint64_t size = I(inode).size;
  if (offset >= size || out.empty()) co_return Errno::kOk;
  const uint64_t n = std::min<uint64_t>(out.size(), size - offset);
  const uint64_t first = offset / kBlockSize, last = (offset + n - 1) / kBlockSize;
  co_await SyncCachedRange(inode, first, last, /*drop=*/false, /*direct=*/false);
  std::vector<BlockAddr> addrs(last - first + 1, kNullAddr);
  std::vector<BlockAddr> to_read;
  for (uint64_t idx = first; idx <= last; ++idx) {
    DnodeRef dn;
    if (!nodes_->TryGetDnodeCached(inode, idx, &dn)) dn = co_await nodes_->GetDnode(inode, idx, false);
    const BlockAddr a = dn.np ? dn.np->blk->Addr(dn.ofs) : kNullAddr;
    addrs[idx - first] = a;
    if (IsValidBlkaddr(a)) to_read.push_back(a);
  }
  if (!to_read.empty()) co_await io_->ReadBlocks(to_read, Io::kData);
  for (uint64_t pos = offset; pos < offset + n;) {
    const BlockAddr a = addrs[pos / kBlockSize - first];
    const uint64_t in_page = pos % kBlockSize;
    const uint64_t len = std::min<uint64_t>(kBlockSize - in_page, offset + n - pos);
    const BlockPtr c = IsValidBlkaddr(a) ? image_->Read(a) : BlockPtr();
    if (c && c->type == BlockData::Type::kData) {
      const auto& b = static_cast<const DataBlock&>(*c);
      std::memcpy(out.data() + (pos - offset), b.bytes.data() + in_page, len);
    } else {
      std::memset(out.data() + (pos - offset), 0, len);
    }
    pos += len;
  }
  *done = n;
  n_.app_bytes_read->Inc(n);
  n_.direct_bytes_read->Inc(n);
  co_return Errno::kOk;
}

sim::Task<Errno> DataPath::Truncate(Inode* inode, uint64_t size, bool in_commit) {
  const uint64_t old = I(inode).size;
  if (size > MaxFileBlocks() * kBlockSize) co_return Errno::kFBig;
  vfs::SharedLock cp;
  if (!in_commit) cp = co_await cpm_->LockOp();
  if (I(inode).inline_data) {
    if (size <= kMaxInlineData) {
      NodeBlock& b = nodes_->MutInodeBlock(inode);
      b.inline_data.resize(std::min<uint64_t>(b.inline_data.size(), size));
      b.inode->size = size;
      b.inode->mtime = q_->now();
      durability_->OnSetattr(inode->ino, size);
      if (journal_) co_await jcm_->Cpu();
      co_return Errno::kOk;
    }
    const Errno e = co_await ConvertInlineData(inode);
    if (e != Errno::kOk) co_return e;
  }
  if (size < old) {
    const uint64_t from = (size + kBlockSize - 1) / kBlockSize;
    // Zero the tail of a partial last page (truncate_partial_data_page).
    if (size % kBlockSize) {
      const uint64_t idx = size / kBlockSize;
      DnodeRef dn;
      if (!nodes_->TryGetDnodeCached(inode, idx, &dn)) dn = co_await nodes_->GetDnode(inode, idx, false);
      const bool exists = dn.np && dn.np->blk->Addr(dn.ofs) != kNullAddr;
      if (exists && !inode->pages.Contains(idx)) co_await ReadPages(inode, idx, idx);
      DataPage* p = dp_->Find(inode, idx);
      if (p && p->bytes) {
        std::memset(DataPages::MutBytes(p).bytes.data() + size % kBlockSize, 0, kBlockSize - size % kBlockSize);
        dp_->SetDirty(inode, p);
      }
    }
    // Drop cached pages beyond the new end.
    for (uint64_t idx : inode->pages.Indices(from)) dp_->Drop(inode, idx);
    co_await nodes_->TruncateBlocks(inode, from);
  }
  InodeFields& f = nodes_->MutI(inode);
  f.size = size;
  f.mtime = q_->now();
  durability_->OnSetattr(inode->ino, size);
  if (journal_) co_await jcm_->Cpu();
  co_return Errno::kOk;
}

// ---- Writeback.

LogType DataPath::DataLogType(const Inode* inode, bool hot, bool gc) const {
  const InodeFields& f = I(inode);
  return alloc_->DataLog(DataPlacement{f.is_dir, f.cold, f.hot, hot, gc});
}

bool DataPath::ShouldIpu(const Inode* inode, bool sync) const {
  if (cfg_.mode == "lfs") return false;
  const InodeFields& f = I(inode);
  if (f.is_dir) return false;
  if (f.cold) return true;
  const double util = static_cast<double>(host_->ValidBlocks()) / static_cast<double>(layout_.user_block_count);
  const bool util_over = util > cfg_.min_ipu_util.value;
  if (ipu_bits_[0]) return true;                           // force
  if (ipu_bits_[1] && host_->NeedSsr()) return true;              // ssr
  if (ipu_bits_[2] && util_over) return true;              // util
  if (ipu_bits_[3] && host_->NeedSsr() && util_over) return true; // ssr_util
  if (ipu_bits_[5] && !sync) return true;                  // async: background writeback (not REQ_SYNC)
  if (ipu_bits_[4] && inode->need_ipu) return true;        // fsync
  return false;
}

sim::Task<Errno> DataPath::WriteDataPage(Inode* inode, DataPage* p, bool hot, bool sync, WriteBatcher& wb) {
  const uint64_t idx = p->index;
  DnodeRef dn;
  if (!nodes_->TryGetDnodeCached(inode, idx, &dn) || !dn.np) {
    wb.BeforeWait();  // node reads, CPU time
    cache_->Pin(p);
    dn = co_await nodes_->GetDnode(inode, idx, true);
    cache_->Unpin(p);
  }
  if (!dn.np) co_return dn.err == Errno::kOk ? Errno::kNoSpc : dn.err;
  if (!p->dirty || p->zombie) co_return Errno::kOk;
  const bool is_dir = inode->is_dir;
  const BlockAddr old = dn.np->blk->Addr(dn.ofs);
  const bool gc = p->gcing;  // moved by background cleaning: never in place (f2fs_should_update_outplace)
  const bool direct = p->direct;
  BlockPtr content = is_dir ? BlockPtr(p->dents) : BlockPtr(p->bytes);
  BlockAddr addr;
  bool recorded = false;  // a journal record was appended
  // A transaction's commit writes out of place: the old block holds the
  // committed state until the commit is durable.
  const bool ipu = !inode->tx_commit && (direct ? cfg_.mode != "lfs" : ShouldIpu(inode, sync));
  if (IsValidBlkaddr(old) && !gc && p->writeback == 0 && ipu) {
    addr = old;  // in place: neither the SIT nor the segment's age changes (f2fs_inplace_write_data)
    inode->update_write = true;
    n_.ipu_blocks->Inc();
  } else {
    if (old == kNullAddr) {
      if (!host_->IncValidBlocks(1)) co_return Errno::kNoSpc;
      ++nodes_->MutI(inode).data_blocks;
    }
    const LogType t = DataLogType(inode, hot, gc);
    sm_->OpenLog(t);  // the in-memory ATGC log opens on first use
    if (sm_->curseg(t).ssr) n_.ssr_blocks->Inc();
    // f2fs_allocate_data_block: a block moved into the ATGC log (from_gc)
    // keeps its old segment's age; every other write first weighs now into
    // the old block's segment and is stamped now.
    sim::SimTime mtime = q_->now();
    if (IsValidBlkaddr(old)) {
      if (t == LogType::kAtgcData) {
        const sim::SimTime old_mtime = sm_->SegmentMtime(old);
        if (old_mtime > sim::SimTime::Zero()) mtime = old_mtime;
      } else {
        sm_->RefreshMtime(old, q_->now());
      }
    }
    addr = sm_->Allocate(t, Summary{dn.np->nid, static_cast<uint16_t>(dn.ofs), 0}, mtime, host_->NeedSsr());
    if (IsValidBlkaddr(old)) {
      if (inode->tx_revoke) inode->tx_revoke->push_back(old);  // invalidated once the commit is durable
      else sm_->Invalidate(old);
    }
    NodeManager::Mut(dn.np).SetAddr(dn.ofs, addr);
    nodes_->SetDirty(dn.np, inode);
    durability_->OnBlockUpdate(BlockUpdate{false, dn.np->nid, static_cast<uint16_t>(dn.ofs), inode->ino, old, addr,
                                           idx, I(inode).size, is_dir});
    recorded = jcm_ != nullptr && jcm_->data_records() && !is_dir;
    if (recorded) {
      const uint64_t seq = journal_->head_position().record_seq - 1;
      io_->OrderedUnsubmitted(p, seq);
    }
    inode->append_write = true;
    if (!gc) n_.opu_blocks->Inc();
  }
  p->gcing = false;
  p->direct = false;
  dp_->ClearDirty(inode, p);
  cache_->LruRemove(p);
  ++p->writeback;
  ++inode->wb_writes;
  wb.set_gc(gc);
  wb.Add(addr, std::move(content), p, inode->ino);
  if (recorded) {
    // The record's CPU time. Where a flash page holds several blocks
    // (ParaFS on the S-FTL) the caller's batch must own consecutive blocks
    // of its log until the page is full or padded: waiting here with the
    // page half taken would let another writer allocate its rest, and the
    // halves would reach the device as two sub-page writes. So inside a
    // page the time is owed, and paid with the next record's.
    if (io_->EndsInsideFlashPage(addr)) {
      jcm_->OweRecordCpu();
    } else {
      wb.BeforeWait();
      co_await jcm_->Cpu();
    }
  }
  co_return Errno::kOk;
}

sim::Task<void> DataPath::WritebackInode(Inode* inode, uint64_t max_pages, bool wait, bool from_cp) {
  if (inode->dirty_pages == 0) co_return;
  InodeRef ref(itab_, inode);
  IoBatch batch(q_);
  {
    vfs::SharedLock cp;
    if (!from_cp) cp = co_await cpm_->LockOp();
    const bool hot = inode->dirty_pages <= cfg_.min_hot_blocks;
    WriteBatcher wb(io_, inode->is_dir ? Io::kDentry : Io::kData, wait ? &batch : nullptr);
    const std::vector<uint64_t> idxs = inode->dirty_index.First(max_pages);
    for (uint64_t idx : idxs) {
      DataPage* p = dp_->Find(inode, idx);
      if (!p || !p->dirty) continue;
      const Errno e = co_await WriteDataPage(inode, p, hot, /*sync=*/wait || from_cp, wb);
      if (e != Errno::kOk) break;
    }
    wb.Flush();
  }
  if (wait) co_await io_->WaitBatch(batch);
}

}  // namespace fs::f2fs
