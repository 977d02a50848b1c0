// NatTable: the node address table in memory, its dirty sets and NAT
// journal, and free-nid management. Synchronous bookkeeping only.
//
// Every nid has an entry (ino, block address, version). A node allocated
// but not yet written has kNewAddr. A freed nid gets kNullAddr and becomes
// allocatable again only when a checkpoint has persisted that (so the last
// checkpoint never sees a nid reused within an epoch, which roll-forward
// recovery relies on).
//
// Checkpoint (f2fs_flush_nat_entries): dirty entries are grouped per NAT
// block; the groups are taken smallest first and go to the NAT journal (in
// the HOT_DATA summary, 38 entries) while it has room, the rest rewrite
// their NAT block into the other copy (flipping the block's bit in the
// version bitmap). When the journal cannot take all dirty entries (or at
// umount) it is emptied into the dirty sets first.
//
// What is in memory (the kernel's NAT cache and the NAT blocks' meta
// pages): the table holds every entry (the model's truth, loaded from the
// image without I/O), and marks which are cached. An entry is cached once
// looked up, allocated or changed; a NAT block's page once read or written.
// A lookup of an entry that is neither cached nor in the NAT journal, in a
// block whose page is not cached, costs the caller a read of the block
// (f2fs_get_node_info). DropClean forgets clean entries and every page
// (drop_caches and the shrinker).
//
// Flags kept per entry (the kernel's nat_entry flags): checkpointed (the
// entry is in the last checkpoint), fsynced_inode and last_fsync (for
// f2fs_need_dentry_mark / f2fs_need_inode_block_update). An entry loaded at
// mount, and every entry a checkpoint persists, gets nat_reset_flag's
// values: checkpointed, not fsynced, last_fsync set — so after a checkpoint
// an fsync of an unchanged file rewrites no inode block.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "fs/f2fs/on_disk.h"

namespace fs::f2fs {

class NatTable {
 public:
  struct Entry {
    Nid ino;
    BlockAddr addr;
    uint8_t version = 0;
    bool checkpointed = true;
    bool fsynced_inode = false;
    bool last_fsync = false;
    bool dirty = false;
    bool in_use = false;        // allocated (addr may still be kNewAddr)
    bool pending_free = false;  // freed, not yet checkpointed
    bool cached = false;        // in the NAT cache
  };
  struct FlushPlan {
    std::vector<uint32_t> blocks;  // NAT blocks to write (into the copy the bitmap now names)
    uint32_t journal_entries = 0;
  };

  NatTable(uint32_t max_nid, uint32_t nat_blocks);
  // Memory the table takes when nothing is dirty.
  static uint64_t BaseMemoryBytes(uint32_t max_nid, uint32_t nat_blocks) {
    return uint64_t{max_nid} * sizeof(Entry) + uint64_t{nat_blocks} * (sizeof(std::vector<uint32_t>) + 2);
  }

  uint32_t max_nid() const { return static_cast<uint32_t>(entries_.size()); }
  uint32_t nat_blocks() const { return static_cast<uint32_t>(bitmap_.size()); }
  const Entry& Get(Nid n) const { return entries_[n.v]; }
  bool Valid(Nid n) const { return n.v > 0 && n.v < entries_.size(); }

  // ---- Mount / format.
  void Load(Nid n, const RawNatEntry& e);
  void LoadBitmap(const std::vector<bool>& bitmap) { bitmap_ = bitmap; }
  void LoadJournal(const std::vector<NatJournalEntry>& j);
  void SetNextScan(Nid n) { next_scan_ = n.v; }

  // ---- Allocation.
  // A free nid (lowest at or after the scan cursor, wrapping); nullopt when
  // none is left. The entry is in use with kNewAddr, not checkpointed.
  std::optional<Nid> AllocNid(Nid ino_or_self);
  // Allocates a specific free nid (roll-forward recovery of a new inode).
  // REQUIRES: the nid is free.
  void AllocSpecific(Nid n, Nid ino);
  // Records where node `n` (of inode `ino`) now is. `fsync` = written with
  // the fsync mark (maintains the inode entry's fsync flags).
  void SetAddr(Nid n, Nid ino, BlockAddr addr, bool fsync_done = false);
  // The node is deleted: null address, version bump, nid pending free.
  void Free(Nid n);
  Nid next_scan() const { return Nid{next_scan_}; }

  // ---- NAT cache.
  // A lookup of n must read its NAT block first (see the class comment).
  bool LookupNeedsRead(Nid n) const;
  // n was looked up (its block read if LookupNeedsRead): cached, and its
  // block's page too.
  void MarkLookedUp(Nid n) {
    entries_[n.v].cached = true;
    page_cached_[n.v / kNatEntriesPerBlock] = 1;
  }
  void MarkPageCached(uint32_t block) { page_cached_[block] = 1; }
  // Forgets every clean entry and every NAT page.
  void DropClean();

  // ---- Checkpoint.
  uint32_t dirty_count() const { return dirty_count_; }
  const std::vector<NatJournalEntry>& journal() const { return journal_; }
  FlushPlan PlanFlush(bool umount);
  NatBlock BuildBlock(uint32_t i) const;
  bool BitmapBit(uint32_t i) const { return bitmap_[i]; }
  const std::vector<bool>& bitmap() const { return bitmap_; }

  uint32_t valid_nodes() const { return valid_nodes_; }
  uint32_t free_nids() const { return free_nids_; }

 private:
  void MarkDirty(Nid n);
  // nat_reset_flag: the state of an entry as the last checkpoint has it.
  static void ResetFlags(Entry& e) {
    e.checkpointed = true;
    e.fsynced_inode = false;
    e.last_fsync = true;
  }
  std::vector<Entry> entries_;
  std::vector<bool> bitmap_;
  std::vector<uint8_t> page_cached_;  // by NAT block
  std::vector<std::vector<uint32_t>> dirty_by_block_;
  std::vector<uint32_t> dirty_blocks_;
  std::vector<NatJournalEntry> journal_;
  uint32_t dirty_count_ = 0;
  uint32_t next_scan_ = kRootIno.v + 1;
  uint32_t valid_nodes_ = 0;  // entries in use
  uint32_t free_nids_ = 0;    // allocatable entries
};

}  // namespace fs::f2fs
