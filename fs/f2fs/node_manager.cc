#include "fs/f2fs/node_manager.h"

#include <glog/logging.h>

namespace fs::f2fs {

NodeManager::NodeManager(const Deps& d, std::unique_ptr<NatTable> nat)
    : cfg_(*d.cfg),
      layout_(*d.layout),
      q_(d.events),
      image_(d.image),
      cache_(d.cache),
      sm_(d.sm),
      alloc_(d.alloc),
      durability_(d.durability),
      journal_(d.journal),
      io_(d.io),
      itab_(d.inodes),
      nat_reads_(d.nat_reads),
      ssr_blocks_(d.ssr_blocks),
      host_(d.host),
      nat_(std::move(nat)),
      cache_nodes_(d.cache) {}

sim::Task<NodePage*> NodeManager::Load(Nid nid) {
  if (NodePage* np = Find(nid)) co_return np;
  // f2fs_get_node_info: an entry neither cached nor in the NAT journal is
  // read from its NAT block (the valid copy), unless that page is cached.
  if (nat_->LookupNeedsRead(nid)) {
    const uint32_t b = nid.v / kNatEntriesPerBlock;
    nat_reads_->Inc();
    co_await io_->ReadBlock(layout_.NatBlockAddr(b, nat_->BitmapBit(b)), Io::kMeta);
    if (NodePage* np = Find(nid)) co_return np;  // loaded meanwhile
  }
  nat_->MarkLookedUp(nid);
  const BlockAddr addr = nat_->Get(nid).addr;
  if (!IsValidBlkaddr(addr)) co_return nullptr;
  co_await io_->ReadBlock(addr, Io::kNode);
  if (NodePage* np = Find(nid)) co_return np;  // loaded meanwhile
  const BlockAddr now_addr = nat_->Get(nid).addr;
  if (!IsValidBlkaddr(now_addr)) co_return nullptr;  // freed meanwhile
  const BlockPtr& content = image_->Read(now_addr);
  CHECK(content && content->type == BlockData::Type::kNode) << "nid " << nid.v << " at " << now_addr.v
                                                            << " is not a node block";
  auto blk = std::const_pointer_cast<NodeBlock>(std::static_pointer_cast<const NodeBlock>(content));
  CHECK(blk->footer.nid == nid) << "node footer nid " << blk->footer.nid.v << " != " << nid.v;
  co_return Insert(nid, std::move(blk));
}

DirtyNodeList* NodeManager::DirtyListOf(const NodePage* np) {
  if (!np->on_ino_list) return nullptr;
  Inode* owner = OwnerOf(np);
  CHECK(owner != nullptr) << "dirty node " << np->nid.v << " without its inode";
  return &owner->dirty_nodes;
}

NodePage* NodeManager::NewNode(Inode* inode, NodeKind kind, uint32_t ofs, Errno* err) {
  if (!host_->IncValidBlocks(1)) {
    *err = Errno::kNoSpc;
    return nullptr;
  }
  std::optional<Nid> nid = nat_->AllocNid(inode->ino);
  if (!nid) {
    host_->DecValidBlocks(1);
    *err = Errno::kNoSpc;
    return nullptr;
  }
  auto blk = std::make_shared<NodeBlock>();
  blk->kind = kind;
  blk->footer.nid = *nid;
  blk->footer.ino = inode->ino;
  blk->footer.ofs = ofs;
  blk->footer.cold = !inode->is_dir;
  NodePage* np = Insert(*nid, std::move(blk));
  SetDirty(np, inode);
  return np;
}

void NodeManager::FreeNodeByNid(Nid nid, BlockAddr addr) {
  if (IsValidBlkaddr(addr)) sm_->Invalidate(addr);
  durability_->OnBlockUpdate(BlockUpdate{true, nid, 0, nat_->Get(nid).ino, addr, kNullAddr});
  nat_->Free(nid);
  host_->DecValidBlocks(1);
}

void NodeManager::FreeNode(NodePage* np) {
  FreeNodeByNid(np->nid, nat_->Get(np->nid).addr);
  Remove(np);
}

bool NodeManager::TryGetDnodeCached(Inode* inode, uint64_t index, DnodeRef* out) {
  const NodePath path = GetNodePath(index);
  if (path.level == 0) {
    *out = DnodeRef{inode->ipage, path.offsets[0]};
    return true;
  }
  Nid nid = I(inode).i_nid[path.offsets[0]];
  for (int l = 1; l <= path.level; ++l) {
    if (nid == kNullNid) {
      *out = DnodeRef{};
      return true;
    }
    NodePage* np = cache_nodes_.Peek(nid);
    if (!np) return false;
    if (l == path.level) {
      cache_->Touch(np);
      *out = DnodeRef{np, path.offsets[l]};
      return true;
    }
    nid = np->blk->Child(path.offsets[l]);
  }
  return false;
}

sim::Task<DnodeRef> NodeManager::GetDnode(Inode* inode, uint64_t index, bool alloc) {
  DnodeRef r;
  if (TryGetDnodeCached(inode, index, &r) && (r.np || !alloc)) co_return r;
  const NodePath path = GetNodePath(index);
  co_await host_->Cpu(cfg_.cpu.node_lookup * path.level);
  if (path.level == 0) co_return DnodeRef{inode->ipage, path.offsets[0]};
  NodePage* parent = inode->ipage;
  Nid nid = I(inode).i_nid[path.offsets[0]];
  for (int l = 1; l <= path.level; ++l) {
    const NodeKind kind = l == path.level                   ? NodeKind::kDirect
                          : (path.level == 3 && l == 1)     ? NodeKind::kDoubleIndirect
                                                            : NodeKind::kIndirect;
    NodePage* np = nullptr;
    if (nid == kNullNid) {
      if (!alloc) co_return DnodeRef{};
      Errno err = Errno::kOk;
      np = NewNode(inode, kind, path.node_ofs[l], &err);
      if (!np) co_return DnodeRef{nullptr, 0, err};
      if (l == 1) {
        MutI(inode).i_nid[path.offsets[0]] = np->nid;
      } else {
        Mut(parent).SetChild(path.offsets[l - 1], np->nid);
        SetDirty(parent, inode);
      }
    } else {
      np = co_await Load(nid);
      CHECK(np != nullptr) << "node " << nid.v << " of inode " << inode->ino.v << " missing";
    }
    if (l == path.level) co_return DnodeRef{np, path.offsets[l]};
    parent = np;
    nid = np->blk->Child(path.offsets[l]);
  }
  co_return DnodeRef{};
}

void NodeManager::WriteNodePage(NodePage* np, bool fsync_mark, bool dent_mark, WriteBatcher& wb) {
  const LogType t = NodeLogType(np);
  const Nid nid = np->nid;
  const BlockAddr old = nat_->Get(nid).addr;
  NodeBlock& b = Mut(np);
  if (sm_->curseg(t).ssr) ssr_blocks_->Inc();
  if (IsValidBlkaddr(old)) sm_->RefreshMtime(old, q_->now());
  const BlockAddr addr = sm_->Allocate(t, Summary{nid, 0, nat_->Get(nid).version}, q_->now(), host_->NeedSsr());
  b.footer.cp_ver = host_->CheckpointVersion();
  b.footer.next_blkaddr = sm_->NextAddr(t);
  b.footer.fsync = fsync_mark;
  b.footer.dent = dent_mark;
  if (IsValidBlkaddr(old)) sm_->Invalidate(old);
  nat_->SetAddr(nid, b.footer.ino, addr, fsync_mark);
  durability_->OnBlockUpdate(BlockUpdate{true, nid, 0, b.footer.ino, old, addr});
  ClearDirty(np);
  cache_->LruRemove(np);
  ++np->writeback;
  uint64_t seq = 0;
  if (t == LogType::kWarmNode) {
    seq = io_->NextWarmNodeSeq();
  }
  wb.Add(addr, np->blk, np, kNullNid, seq);
}

void NodeManager::ReleaseDataAddr(Inode* inode, NodePage* np, uint32_t slot) {
  const BlockAddr a = np->blk->Addr(slot);
  if (a == kNullAddr) return;
  if (IsValidBlkaddr(a)) sm_->Invalidate(a);
  host_->DecValidBlocks(1);
  Mut(np).SetAddr(slot, kNullAddr);
  SetDirty(np, inode);
  durability_->OnBlockUpdate(BlockUpdate{false, np->nid, static_cast<uint16_t>(slot), inode->ino, a, kNullAddr});
  InodeFields& f = MutI(inode);
  CHECK_GT(f.data_blocks, 0u);
  --f.data_blocks;
}

void NodeManager::TruncateDnodeRange(Inode* inode, NodePage* np, uint32_t from_slot) {
  // Slots past the stored ones are 0 (NodeBlock::slots): the scan ends
  // there, not at the node's 923 or 1,018 slots. ReleaseDataAddr may copy
  // the block (Mut), never shrinking its slots: read both afresh.
  const uint32_t n = np->blk->AddrSlots();
  for (uint32_t s = from_slot; s < n && s < np->blk->slots.size(); ++s)
    if (np->blk->slots[s] != 0) ReleaseDataAddr(inode, np, s);
}

sim::Task<bool> NodeManager::TruncateSubtree(Inode* inode, Nid nid, int depth, uint64_t first, uint64_t from) {
  NodePage* np = co_await Load(nid);
  CHECK(np != nullptr) << "truncating missing node " << nid.v;
  if (depth == 0) {
    const uint32_t start = from > first ? static_cast<uint32_t>(from - first) : 0;
    TruncateDnodeRange(inode, np, start);
    if (start == 0) {
      FreeNode(np);
      co_return true;
    }
    co_return false;
  }
  cache_->Pin(np);
  const uint64_t span = depth == 1 ? uint64_t{kAddrsPerBlock} : uint64_t{kAddrsPerBlock} * kNidsPerBlock;
  bool all = first >= from;
  for (uint32_t i = 0; i < kNidsPerBlock; ++i) {
    const Nid child = np->blk->Child(i);
    if (child == kNullNid) continue;
    const uint64_t cfirst = first + i * span;
    if (cfirst + span <= from) continue;
    const bool freed = co_await TruncateSubtree(inode, child, depth - 1, cfirst, from);
    if (freed) {
      Mut(np).SetChild(i, kNullNid);
      SetDirty(np, inode);
    } else {
      all = false;
    }
  }
  if (first < from) {
    // Children before `from` keep this node alive.
    for (uint32_t i = 0; i < kNidsPerBlock && all; ++i)
      if (np->blk->Child(i) != kNullNid) all = false;
  }
  if (all) FreeNode(np);  // pinned: becomes a zombie until Unpin
  cache_->Unpin(np);
  co_return all;
}

sim::Task<Errno> NodeManager::TruncateBlocks(Inode* inode, uint64_t from) {
  if (from < kUsableAddrsPerInode) TruncateDnodeRange(inode, inode->ipage, static_cast<uint32_t>(from));
  const uint64_t d = kAddrsPerBlock, ind = d * kNidsPerBlock, dind = ind * kNidsPerBlock;
  const uint64_t firsts[5] = {kUsableAddrsPerInode, kUsableAddrsPerInode + d, kUsableAddrsPerInode + 2 * d,
                              kUsableAddrsPerInode + 2 * d + ind, kUsableAddrsPerInode + 2 * d + 2 * ind};
  const uint64_t spans[5] = {d, d, ind, ind, dind};
  const int depths[5] = {0, 0, 1, 1, 2};
  for (int k = 0; k < 5; ++k) {
    const Nid nid = I(inode).i_nid[k];
    if (nid == kNullNid || firsts[k] + spans[k] <= from) continue;
    const bool freed = co_await TruncateSubtree(inode, nid, depths[k], firsts[k], from);
    if (freed) MutI(inode).i_nid[k] = kNullNid;
  }
  co_return Errno::kOk;
}

}  // namespace fs::f2fs
