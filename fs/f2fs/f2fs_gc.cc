// Cleaning (f2fs_gc): victim selection through a VictimPolicy, migration
// of valid blocks (data to the cold data log or the ATGC log, nodes to their
// log), the background thread (gc_thread_func) and the foreground path.
#include <algorithm>

#include "fs/f2fs/f2fs.h"

namespace fs::f2fs {

bool F2fs::HasEnoughInvalidBlocks() const {
  const uint64_t user = layout_.user_block_count;
  const uint64_t written = std::min(user, valid_block_count_);
  const uint64_t invalid_user = user - written;
  const uint64_t limit_invalid = user * 40 / 100;
  const uint64_t free_segs = sm_->free_segments();
  const uint64_t free_user =
      free_segs > layout_.overprov_segments ? (free_segs - layout_.overprov_segments) * kBlocksPerSeg : 0;
  const uint64_t limit_free = (user - written) * 40 / 100;
  return invalid_user > limit_invalid && free_user < limit_free;
}

sim::Task<uint32_t> F2fs::Gc(bool foreground, bool from_thread) {
  co_await gc_lock_.LockExclusive();
  ExclusiveLock gl(&gc_lock_);
  if (dead_) co_return 0;
  if (foreground) stats_.gc_fg_calls.Inc(); else stats_.gc_bg_calls.Inc();
  uint32_t freed = 0, victims = 0;
  const uint32_t max_rounds = layout_.section_count;
  for (uint32_t round = 0; round < max_rounds && !dead_; ++round) {
    bool fg = false;
    if (HasNotEnoughFreeSecs(freed, 0)) {
      // Prefree sections become free with a checkpoint; clean only if that is not enough.
      if (sm_->prefree_segments() > 0) {
        co_await Checkpoint(CpReason::kGc);
        if (!HasNotEnoughFreeSecs(freed, 0)) break;
      }
      fg = true;
    } else if (foreground && !from_thread) {
      break;  // space is fine (again)
    }
    VictimContext ctx;
    ctx.sm = sm_.get();
    ctx.now = q_->now();
    ctx.max_search = fg ? 0 : cfg_.gc.max_victim_search;
    ctx.last_victim = fg ? &last_victim_fg_ : &last_victim_bg_;
    const uint32_t sec = (fg ? fg_policy_ : bg_policy_)->Select(ctx);
    if (sec == kNoSection) break;
    ++victims;
    if (fg) stats_.gc_victims_fg.Inc(); else stats_.gc_victims_bg.Inc();
    co_await CleanSection(sec, fg);
    if (sm_->SectionValid(sec) == 0) {
      ++freed;
      stats_.gc_sections_freed.Inc();
    }
    if (!fg) break;  // background cleaning takes one victim per round
    if (!HasNotEnoughFreeSecs(freed, 0)) break;
  }
  co_return victims;
}

sim::Task<uint32_t> F2fs::CleanSection(uint32_t sec, bool fg) {
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
      const BlockAddr na = sm_->Allocate(t, sm_->SummaryOf(m.addr), q_->now(), NeedSsr());
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
  const sim::SimTime min = cfg_.gc.min_sleep, max = cfg_.gc.max_sleep, no_gc = cfg_.gc.no_gc_sleep;
  sim::SimTime wait = min;
  auto increase = [&] {
    if (wait == no_gc) return;
    wait = wait + min > max ? max : wait + min;
  };
  auto decrease = [&] {
    if (wait == no_gc) wait = max;
    wait = wait - min <= min ? min : wait - min;
  };
  while (!stopping_ && !dead_) {
    co_await gc_timer_.Sleep(wait);
    if (stopping_ || dead_) break;
    if (!IsIdle(cfg_.gc.idle_interval)) {
      increase();
      co_await BalanceFsBg();
      continue;
    }
    if (HasEnoughInvalidBlocks()) decrease(); else increase();
    const uint32_t victims = co_await Gc(/*foreground=*/false, /*from_thread=*/true);
    if (victims == 0) wait = no_gc;
    if (!dead_) co_await BalanceFsBg();
  }
  --threads_running_;
  threads_wq_.NotifyAll();
}

}  // namespace fs::f2fs
