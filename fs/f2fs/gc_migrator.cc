// GcMigrator (gc_migrator.h): cleaning's migration of a victim section.
// Foreground cleaning writes the moved blocks at once and waits; background
// cleaning only dirties their pages (move_data_page / f2fs_move_node_page
// with BG_GC), so the blocks move when writeback, an fsync or a checkpoint
// writes those pages, and the section is free only after that and the
// next checkpoint.
#include "fs/f2fs/gc_migrator.h"

#include <vector>

#include <glog/logging.h>

namespace fs::f2fs {

GcMigrator::GcMigrator(const Deps& d)
    : cfg_(*d.cfg),
      layout_(*d.layout),
      q_(d.events),
      image_(d.image),
      cache_(d.cache),
      io_(d.io),
      sm_(d.sm),
      nat_(d.nat),
      nodes_(d.nodes),
      ns_(d.ns),
      itab_(d.inodes),
      dp_(d.pages),
      dpath_(d.data),
      cpm_(d.cp),
      txm_(d.tx),
      moved_fg_(d.moved_fg),
      moved_bg_(d.moved_bg),
      host_(d.host),
      write_lock_(d.events, d.gc_lock) {}

sim::Task<uint32_t> GcMigrator::Migrate(uint32_t sec, bool fg) {
  vfs::SharedLock cp = co_await cpm_->LockOp();
  IoBatch batch(q_);
  uint32_t moved = 0, examined = 0;
  bool wrote = fg;  // background cleaning writes only stolen blocks
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
      // gc_node_segment's phase 0 reads the victim's node pages ahead of the
      // move. On an in-order device (IoManager::in_order) they are read
      // here, before the move batches any block, so the move seldom has to
      // submit early (WriteBatcher::BeforeWait, which pads a partial flash
      // page); elsewhere the move reads each one as it comes to it.
      if (fg && io_->in_order()) {
        for (BlockAddr a : blocks) {
          const Nid nid = sm_->SummaryOf(a).nid;
          if (nat_->Valid(nid) && nat_->Get(nid).addr == a) co_await nodes_->Load(nid);
        }
      }
      co_await write_lock_.LockExclusive();
      vfs::ExclusiveLock wl(&write_lock_);
      WriteBatcher wb(io_, Io::kGcNode, &batch);
      for (BlockAddr a : blocks) {
        const Nid nid = sm_->SummaryOf(a).nid;
        if (!nat_->Valid(nid) || nat_->Get(nid).addr != a) continue;
        if (!nodes_->Find(nid)) wb.BeforeWait();  // a read
        NodePage* np = co_await nodes_->Load(nid);
        if (!np || nat_->Get(nid).addr != a || !sm_->BlockValid(a)) continue;
        ++moved;
        if (!fg) {
          // Background: dirtied only; the next checkpoint writes it.
          if (np->writeback == 0) nodes_->SetDirty(np, nodes_->OwnerOf(np));
          continue;
        }
        if (!np->dirty) nodes_->SetDirty(np, nodes_->OwnerOf(np));
        nodes_->WriteNodePage(np, false, false, wb);
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
    std::vector<BlockAddr> stolen;  // blocks running transactions stole
    for (BlockAddr a : blocks) {
      const Summary s = sm_->SummaryOf(a);
      if (s.ofs_in_node == kStolenOfs) {
        stolen.push_back(a);
        continue;
      }
      if (!nat_->Valid(s.nid) || nat_->Get(s.nid).addr == kNullAddr) continue;
      NodePage* dn = co_await nodes_->Load(s.nid);
      if (!dn || !sm_->BlockValid(a) || s.ofs_in_node >= dn->blk->AddrSlots() || dn->blk->Addr(s.ofs_in_node) != a)
        continue;
      const uint64_t index = StartBlockOfDnode(dn->blk->footer.ofs) + s.ofs_in_node;
      moves.push_back(Move{a, s.nid, s.ofs_in_node, dn->blk->footer.ino, index});
    }
    std::vector<BlockAddr> reads(stolen);
    for (const Move& m : moves) {
      Inode* in = itab_->Find(m.ino);
      if (!in || !in->pages.Contains(m.index)) reads.push_back(m.addr);
    }
    co_await io_->ReadBlocks(reads, Io::kGcData);
    // gc_data_segment's phase 2 takes every owner's inode (f2fs_iget) and
    // holds it (the gc_list) before phase 3 moves. On an in-order device the
    // inodes are taken here, for the same reason as the node pages above;
    // elsewhere the move takes each as it comes to it.
    std::vector<InodeRef> owners;
    if (fg && io_->in_order()) {
      for (const Move& m : moves)
        if (Inode* in = co_await ns_->GetInode(m.ino)) owners.emplace_back(itab_, in);
    }
    co_await write_lock_.LockExclusive();
    vfs::ExclusiveLock wl(&write_lock_);
    WriteBatcher wb(io_, Io::kGcData, &batch);
    // Shadow GC: a stolen block moves at once, foreground or background
    // (it has no page to dirty), and stays the transaction's: no dnode
    // names it, so nothing of the transaction becomes durable.
    for (BlockAddr a : stolen) {
      if (!txm_->MoveStolen(a, wb)) continue;
      ++moved;
      wrote = true;
    }
    for (const Move& m : moves) {
      if (!itab_->Find(m.ino)) wb.BeforeWait();  // an inode read
      Inode* in0 = co_await ns_->GetInode(m.ino);
      if (!in0 || in0->freed) continue;
      InodeRef ref(itab_, in0);
      Inode* in = ref.get();
      if (!nodes_->Find(m.dnode)) wb.BeforeWait();  // a node read
      NodePage* dn = co_await nodes_->Load(m.dnode);
      if (!dn || !sm_->BlockValid(m.addr) || dn->blk->Addr(m.ofs) != m.addr) continue;
      // The page the block moves through (f2fs_get_lock_data_page): cached,
      // or filled with what was read above.
      DataPage* p = dp_->Find(in, m.index);
      if (!p) {
        p = dp_->New(in, m.index);
        const BlockPtr& c = image_->Read(m.addr);
        if (in->is_dir) {
          CHECK(c && c->type == BlockData::Type::kDentry) << "dentry block " << m.addr.v << " is not one";
          p->dents = std::const_pointer_cast<DentryBlock>(std::static_pointer_cast<const DentryBlock>(c));
        } else if (c && c->type == BlockData::Type::kData) {
          // (Foreign content of a block whose data write a power cut lost,
          // see ReadPages, moves as zeros.)
          p->bytes = std::const_pointer_cast<DataBlock>(std::static_pointer_cast<const DataBlock>(c));
        }
      }
      if (!fg && p->writeback > 0) continue;  // move_data_page: -EAGAIN, the next round retries
      dp_->SetDirty(in, p);
      p->gcing = true;
      ++moved;
      if (!fg) continue;  // background: the page's next write moves it
      cache_->Pin(p);
      co_await dpath_->WriteDataPage(in, p, /*hot=*/false, /*sync=*/true, wb);
      cache_->Unpin(p);
    }
    wb.Flush();
  }
  co_await host_->Cpu(cfg_.cpu.gc_block * static_cast<int64_t>(examined + moved));
  if (fg) moved_fg_->Inc(moved); else moved_bg_->Inc(moved);
  cp.Release();
  if (wrote) co_await io_->WaitBatch(batch);
  co_return moved;
}

}  // namespace fs::f2fs
