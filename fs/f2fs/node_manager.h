// NodeManager: the F2FS model's node manager — the kernel's NM_I
// (node.c: f2fs_get_node_page, f2fs_get_dnode_of_data, f2fs_new_node_page,
// __write_node_page, truncate_dnode / truncate_nodes, the dirty node
// lists fsync walks) over the NAT and the node pages.
//
// Contract:
// - Load(nid) is the node page of `nid`, from the NodeCache or read from
//   its block (a cold NAT entry first reads its NAT block, counted in
//   fs.io.nat_reads); null if the NAT gives no address.
// - SetDirty(np, owner) dirties a node page (on `owner`'s dirty node list
//   when given; with a journal, stamped with the journal's next record
//   number); ClearDirty / Unlink take it off the list it is on.
// - MutI / MutInodeBlock hand out an inode's fields for change and dirty
//   its inode page; I reads them.
// - NewNode allocates a nid and a block of space (NEW_ADDR, through
//   Host::IncValidBlocks) for a new dirty node; FreeNode / FreeNodeByNid
//   release the nid, the block and the page, telling the durability mode.
// - GetDnode walks (and with `alloc` builds) the path to the direct node
//   holding page `index` of a file (CPU charged per level walked);
//   TryGetDnodeCached answers from cached pages only.
// - WriteNodePage (__write_node_page): allocates the node's new block in
//   its log (the allocation policy's, SSR if Host::NeedSsr), invalidates
//   the old one, updates the NAT (fsync flag), stamps the footer (the
//   running checkpoint version, next block, fsync/dent marks), cleans the
//   page and queues the write; warm-node writes get the IoManager's
//   sequence number fsync waits on.
// - TruncateBlocks frees a file's data blocks from `from` on and the nodes
//   that only covered them.
//
// State owned: the NAT (NatTable: entries, free nids, dirty entries and
// their journal; also read by the CheckpointWriter, the Durability mode,
// mount and fsck) and the node pages (NodeCache: the pages by nid, the
// global dirty set a checkpoint writes, each file's dirty node list
// fsync walks, whose heads live in the Inode). No lock of its own: node
// pages change in synchronous sections of operations holding cp_rwsem
// shared (or the checkpoint holding it exclusive), a file's nodes under its
// i_rwsem, as F2fs documents.
//
// Who calls it: the F2fs's namespace, data, fsync, mount, cleaning, journal
// and transaction code, and the CheckpointManager (its node pass writes
// through WriteNodePage). It calls the SegmentManager, the allocation
// policy, the Durability mode, the IoManager, the page cache, the
// InodeTable (a node's owner) and, for space accounting, CPU time and the
// checkpoint version, its Host.
#pragma once

#include <cstdint>
#include <memory>

#include "fs/f2fs/allocation_policy.h"
#include "fs/f2fs/durability.h"
#include "fs/f2fs/f2fs_config.h"
#include "fs/f2fs/image.h"
#include "fs/f2fs/inode_table.h"
#include "fs/f2fs/io_manager.h"
#include "fs/f2fs/journal.h"
#include "fs/f2fs/layout.h"
#include "fs/f2fs/nat_table.h"
#include "fs/f2fs/node_cache.h"
#include "fs/f2fs/on_disk.h"
#include "fs/f2fs/segment_manager.h"
#include "fs/file_system.h"
#include "fs/vfs/page_cache.h"
#include "sim/cpu.h"
#include "sim/event_queue.h"
#include "sim/stats.h"
#include "sim/task.h"
#include "sim/time.h"

namespace fs::f2fs {

// The direct node (and slot in it) holding one page of a file.
struct DnodeRef {
  NodePage* np = nullptr;  // null: no dnode (hole) or error
  uint32_t ofs = 0;
  Errno err = Errno::kOk;
};

class NodeManager {
 public:
  class Host {
   public:
    virtual ~Host() = default;
    virtual sim::CpuBurst Cpu(sim::SimTime d) = 0;  // a CPU burst of the caller
    // Space accounting (total_valid_block_count): false when full.
    virtual bool IncValidBlocks(uint64_t n) = 0;
    virtual void DecValidBlocks(uint64_t n) = 0;
    virtual bool NeedSsr() const = 0;
    virtual uint64_t CheckpointVersion() const = 0;  // of the last committed checkpoint
  };
  struct Deps {
    const F2fsConfig* cfg = nullptr;
    const Layout* layout = nullptr;
    sim::EventQueue* events = nullptr;
    Image* image = nullptr;
    vfs::PageCache* cache = nullptr;
    SegmentManager* sm = nullptr;
    const AllocationPolicy* alloc = nullptr;
    Durability* durability = nullptr;
    Journal* journal = nullptr;  // durability's, if it has one
    IoManager* io = nullptr;
    InodeTable* inodes = nullptr;
    sim::Counter* nat_reads = nullptr;
    sim::Counter* ssr_blocks = nullptr;
    Host* host = nullptr;
  };
  // Takes the NAT built before it (the Durability mode and the
  // CheckpointWriter hold pointers to it).
  NodeManager(const Deps& d, std::unique_ptr<NatTable> nat);
  NodeManager(const NodeManager&) = delete;
  NodeManager& operator=(const NodeManager&) = delete;

  NatTable& nat() { return *nat_; }
  const NatTable& nat() const { return *nat_; }
  NodeCache& cache() { return cache_nodes_; }
  const NodeCache& cache() const { return cache_nodes_; }

  NodePage* Find(Nid nid) { return cache_nodes_.Find(nid); }
  sim::Task<NodePage*> Load(Nid nid);  // cache or device; null if the NAT has no address
  NodePage* Insert(Nid nid, std::shared_ptr<NodeBlock> blk) { return cache_nodes_.Insert(nid, std::move(blk)); }
  static NodeBlock& Mut(NodePage* np) { return NodeCache::Mut(np); }
  void SetDirty(NodePage* np, Inode* owner) {
    if (journal_) np->dirty_seq = journal_->head_position().record_seq;
    cache_nodes_.SetDirty(np, owner ? &owner->dirty_nodes : nullptr);
  }
  void ClearDirty(NodePage* np) { cache_nodes_.ClearDirty(np, DirtyListOf(np)); }
  // The dirty list `np` is on (its owner's), or null.
  DirtyNodeList* DirtyListOf(const NodePage* np);
  // Takes the node page out of the node cache (clean) and returns it.
  std::unique_ptr<NodePage> Unlink(NodePage* np) { return cache_nodes_.Unlink(np, DirtyListOf(np)); }
  void Remove(NodePage* np) { cache_->Detach(Unlink(np)); }
  Inode* OwnerOf(const NodePage* np) { return itab_->Find(np->blk->footer.ino); }

  const InodeFields& I(const Inode* inode) const { return *inode->ipage->blk->inode; }
  // The inode's size and inline-data flag, from the copy the Inode keeps
  // (refreshed from its block after a change): the read path's checks
  // without the hops to the node page and its block.
  const Inode::ReadFields& ReadFields(Inode* inode) const {
    if (!inode->read_fields_known) {
      const InodeFields& f = I(inode);
      inode->read_fields = Inode::ReadFields{f.size, f.inline_data};
      inode->read_fields_known = true;
    }
    return inode->read_fields;
  }
  NodeBlock& MutInodeBlock(Inode* inode) {
    inode->read_fields_known = false;
    NodeBlock& b = Mut(inode->ipage);
    SetDirty(inode->ipage, inode);
    return b;
  }
  InodeFields& MutI(Inode* inode) { return *MutInodeBlock(inode).inode; }

  // New node of inode `inode` with node offset `ofs`: nid allocated (NEW_ADDR), page dirty.
  NodePage* NewNode(Inode* inode, NodeKind kind, uint32_t ofs, Errno* err);
  void FreeNode(NodePage* np);
  void FreeNodeByNid(Nid nid, BlockAddr addr);
  bool TryGetDnodeCached(Inode* inode, uint64_t index, DnodeRef* out);
  sim::Task<DnodeRef> GetDnode(Inode* inode, uint64_t index, bool alloc);
  LogType NodeLogType(const NodePage* np) const {
    return alloc_->NodeLog(NodePlacement{np->blk->IsDnode(), np->blk->footer.cold});
  }
  // Queues a node write (__write_node_page). marks: fsync/dent footer bits.
  void WriteNodePage(NodePage* np, bool fsync_mark, bool dent_mark, WriteBatcher& wb);

  // Frees data blocks >= `from` and the nodes that only covered them.
  sim::Task<Errno> TruncateBlocks(Inode* inode, uint64_t from);
  void TruncateDnodeRange(Inode* inode, NodePage* np, uint32_t from_slot);
  void ReleaseDataAddr(Inode* inode, NodePage* np, uint32_t slot);

 private:
  sim::Task<bool> TruncateSubtree(Inode* inode, Nid nid, int depth, uint64_t first, uint64_t from);

  const F2fsConfig& cfg_;
  const Layout& layout_;
  sim::EventQueue* q_;
  Image* image_;
  vfs::PageCache* cache_;
  SegmentManager* sm_;
  const AllocationPolicy* alloc_;
  Durability* durability_;
  Journal* journal_;
  IoManager* io_;
  InodeTable* itab_;
  sim::Counter* nat_reads_;
  sim::Counter* ssr_blocks_;
  Host* host_;
  std::unique_ptr<NatTable> nat_;
  NodeCache cache_nodes_;
};

}  // namespace fs::f2fs
