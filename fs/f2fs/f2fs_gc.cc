// Cleaning's migration (do_garbage_collect): the valid blocks of a victim
// section move, data to the cold data log or the ATGC log, nodes to their
// log. When to clean and which victim is the Cleaner's (cleaner.h).

#include "fs/f2fs/f2fs.h"

namespace fs::f2fs {

sim::Task<uint32_t> F2fs::MigrateSection(uint32_t sec, bool fg) {
  SharedLock cp = co_await LockOp();
  IoBatch batch(q_);
  IoBatch* bp = fg ? &batch : nullptr;
  uint32_t moved = 0, examined = 0;
  for (uint32_t i = 0; i < layout_.segs_per_sec; ++i) {
    const SegNo seg{sec * layout_.segs_per_sec + i};
    const uint8_t type = sm_->seg(seg).type;
    const bool node_seg = type != 0xFF && IsNodeLog(static_cast<LogType>(type));
    std::vector<BlockAddr> blocks;
    const BlockAddr start = layout_.SegStart(seg);
    for (uint32_t off = 0; off < kBlocksPerSeg; ++off)
      if (sm_->seg(seg).cur_map.test(off)) blocks.push_back(BlockAddr{start.v + off});
    examined += static_cast<uint32_t>(blocks.size());
    if (node_seg) {
      WriteBatcher wb(this, Io::kGcNode, bp);
      for (BlockAddr a : blocks) {
        const Nid nid = sm_->SummaryOf(a).nid;
        if (!nat_->Valid(nid) || nat_->Get(nid).addr != a) continue;
        NodePage* np = co_await LoadNode(nid);
        if (!np || nat_->Get(nid).addr != a || !sm_->BlockValid(a)) continue;
        if (!np->dirty) SetNodeDirty(np, OwnerOf(np));
        WriteNodePage(np, false, false, wb);
        ++moved;
      }
      wb.Flush();
      continue;
    }
    // Data: find the owners, read what is not cached, then move.
    struct Move {
      BlockAddr addr;
      Nid dnode;
      uint16_t ofs;
      Nid ino;
      uint64_t index;
    };
    std::vector<Move> moves;
    for (BlockAddr a : blocks) {
      const Summary s = sm_->SummaryOf(a);
      if (!nat_->Valid(s.nid) || nat_->Get(s.nid).addr == kNullAddr) continue;
      NodePage* dn = co_await LoadNode(s.nid);
      if (!dn || !sm_->BlockValid(a) || s.ofs_in_node >= dn->blk->AddrSlots() || dn->blk->Addr(s.ofs_in_node) != a)
        continue;
      const uint64_t index = StartBlockOfDnode(dn->blk->footer.ofs) + s.ofs_in_node;
      moves.push_back(Move{a, s.nid, s.ofs_in_node, dn->blk->footer.ino, index});
    }
    std::vector<BlockAddr> reads;
    for (const Move& m : moves) {
      Inode* in = FindInode(m.ino);
      if (!in || !in->pages.count(m.index)) reads.push_back(m.addr);
    }
    co_await ReadBlocks(reads, Io::kGcData);
    WriteBatcher wb(this, Io::kGcData, bp);
    for (const Move& m : moves) {
      Inode* in0 = co_await GetInode(m.ino);
      if (!in0 || in0->freed) continue;
      InodeRef ref(this, in0);
      Inode* in = ref.get();
      NodePage* dn = co_await LoadNode(m.dnode);
      if (!dn || !sm_->BlockValid(m.addr) || dn->blk->Addr(m.ofs) != m.addr) continue;
      DataPage* p = FindDataPage(in, m.index);
      BlockPtr content;
      if (p) {
        content = I(in).is_dir ? BlockPtr(p->dents) : BlockPtr(p->bytes);
        ClearDataPageDirty(in, p);
        LruRemove(p);
        ++p->writeback;
      } else {
        content = image_->Read(m.addr);
      }
      const LogType t = DataLogType(in, false, /*gc=*/true);
      sm_->OpenLog(t);  // the in-memory ATGC log opens on first use
      // f2fs_allocate_data_block: only the ATGC log (from_gc) keeps the
      // victim segment's age; cleaning into the cold log stamps now.
      sim::SimTime mtime = q_->now();
      if (t == LogType::kAtgcData) {
        const sim::SimTime old_mtime = sm_->SegmentMtime(m.addr);
        if (old_mtime > sim::SimTime::Zero()) mtime = old_mtime;
      } else {
        sm_->RefreshMtime(m.addr, q_->now());
      }
      const BlockAddr na = sm_->Allocate(t, sm_->SummaryOf(m.addr), mtime, NeedSsr());
      sm_->Invalidate(m.addr);
      MutNode(dn).SetAddr(m.ofs, na);
      SetNodeDirty(dn, in);
      durability_->OnBlockUpdate(BlockUpdate{false, m.dnode, m.ofs, in->ino, m.addr, na});
      ++in->wb_writes;
      wb.Add(na, std::move(content), p, in->ino);
      ++moved;
    }
    wb.Flush();
  }
  co_await Cpu(cfg_.cpu.gc_block * static_cast<int64_t>(examined + moved));
  if (fg) stats_.gc_moved_fg.Inc(moved); else stats_.gc_moved_bg.Inc(moved);
  cp.Release();
  if (fg) co_await WaitBatch(batch);
  co_return moved;
}

sim::Task<void> F2fs::GcThread() {
  ++threads_running_;
  co_await cleaner_->Thread();
  --threads_running_;
  threads_wq_.NotifyAll();
}

}  // namespace fs::f2fs
