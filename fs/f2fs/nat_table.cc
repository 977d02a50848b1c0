#include "fs/f2fs/nat_table.h"

#include <algorithm>

#include <glog/logging.h>

namespace fs::f2fs {

NatTable::NatTable(uint32_t max_nid, uint32_t nat_blocks)
    : entries_(max_nid), bitmap_(nat_blocks, false), page_cached_(nat_blocks, 0), dirty_by_block_(nat_blocks) {
  // nids 0 (null), 1 (node inode) and 2 (meta inode) are never allocated.
  for (uint32_t n = 0; n < max_nid; ++n) {
    if (n <= kMetaIno.v) {
      entries_[n].in_use = true;
    } else {
      ++free_nids_;
    }
  }
}

void NatTable::Load(Nid n, const RawNatEntry& e) {
  Entry& x = entries_[n.v];
  const bool was_free = !x.in_use;
  x.ino = e.ino;
  x.addr = e.addr;
  x.version = e.version;
  ResetFlags(x);
  if (n.v <= kMetaIno.v) return;
  const bool in_use = e.addr != kNullAddr;
  if (in_use && was_free) {
    --free_nids_;
    ++valid_nodes_;
  } else if (!in_use && !was_free) {
    ++free_nids_;
    --valid_nodes_;
  }
  x.in_use = in_use;
}

void NatTable::LoadJournal(const std::vector<NatJournalEntry>& j) {
  journal_ = j;
  for (const NatJournalEntry& e : j) Load(e.nid, e.entry);
}

std::optional<Nid> NatTable::AllocNid(Nid ino_or_self) {
  if (free_nids_ == 0) return std::nullopt;
  const uint32_t n = static_cast<uint32_t>(entries_.size());
  const uint32_t lo = kMetaIno.v + 1;
  const uint32_t range = n - lo;
  const uint32_t start = next_scan_ < lo || next_scan_ >= n ? lo : next_scan_;
  for (uint32_t i = 0; i < range; ++i) {
    const uint32_t cand = lo + (start - lo + i) % range;
    Entry& e = entries_[cand];
    if (e.in_use || e.pending_free) continue;
    e.in_use = true;
    e.ino = ino_or_self.v ? ino_or_self : Nid{cand};
    e.addr = kNewAddr;
    e.checkpointed = false;
    e.fsynced_inode = false;
    e.last_fsync = false;
    --free_nids_;
    ++valid_nodes_;
    next_scan_ = cand + 1;
    MarkDirty(Nid{cand});
    return Nid{cand};
  }
  return std::nullopt;
}

void NatTable::AllocSpecific(Nid n, Nid ino) {
  Entry& e = entries_[n.v];
  CHECK(!e.in_use && !e.pending_free) << "nid " << n.v << " is not free";
  e.in_use = true;
  e.ino = ino;
  e.addr = kNewAddr;
  e.checkpointed = false;
  e.fsynced_inode = false;
  e.last_fsync = false;
  --free_nids_;
  ++valid_nodes_;
  MarkDirty(n);
}

bool NatTable::LookupNeedsRead(Nid n) const {
  if (entries_[n.v].cached || page_cached_[n.v / kNatEntriesPerBlock]) return false;
  for (const NatJournalEntry& j : journal_)
    if (j.nid == n) return false;
  return true;
}

void NatTable::DropClean() {
  for (Entry& e : entries_)
    if (!e.dirty) e.cached = false;
  std::fill(page_cached_.begin(), page_cached_.end(), 0);
}

void NatTable::MarkDirty(Nid n) {
  Entry& e = entries_[n.v];
  e.cached = true;
  if (e.dirty) return;
  e.dirty = true;
  ++dirty_count_;
  const uint32_t b = n.v / kNatEntriesPerBlock;
  if (dirty_by_block_[b].empty()) dirty_blocks_.push_back(b);
  dirty_by_block_[b].push_back(n.v);
}

void NatTable::SetAddr(Nid n, Nid ino, BlockAddr addr, bool fsync_done) {
  Entry& e = entries_[n.v];
  CHECK(e.in_use) << "address of an unallocated nid " << n.v;
  e.ino = ino;
  e.addr = addr;
  MarkDirty(n);
  Entry& ie = entries_[ino.v];
  if (fsync_done && n == ino) ie.fsynced_inode = true;
  ie.last_fsync = fsync_done;
}

void NatTable::Free(Nid n) {
  Entry& e = entries_[n.v];
  CHECK(e.in_use) << "freeing a free nid " << n.v;
  e.addr = kNullAddr;
  e.version = static_cast<uint8_t>(e.version + 1);
  e.in_use = false;
  e.pending_free = true;
  e.checkpointed = false;
  --valid_nodes_;
  MarkDirty(n);
}

NatBlock NatTable::BuildBlock(uint32_t i) const {
  NatBlock b;
  const uint32_t base = i * kNatEntriesPerBlock;
  for (uint32_t k = 0; k < kNatEntriesPerBlock && base + k < entries_.size(); ++k) {
    const Entry& e = entries_[base + k];
    if (base + k <= kMetaIno.v) continue;
    if (e.addr == kNullAddr) continue;  // free entries are all zero on disk
    b.entries[k] = RawNatEntry{e.version, e.ino, e.addr};
  }
  return b;
}

NatTable::FlushPlan NatTable::PlanFlush(bool umount) {
  FlushPlan plan;
  auto has_space = [&](size_t n) { return journal_.size() + n <= kNatJournalEntries; };
  // Entries already in the journal are updated in place and need no room.
  auto in_journal = [&](uint32_t nid) {
    for (const NatJournalEntry& j : journal_)
      if (j.nid.v == nid) return true;
    return false;
  };
  if (umount || !has_space(dirty_count_)) {
    for (const NatJournalEntry& j : journal_) MarkDirty(j.nid);
    journal_.clear();
  }
  std::vector<uint32_t> order = dirty_blocks_;
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return dirty_by_block_[a].size() < dirty_by_block_[b].size(); });
  for (uint32_t b : order) {
    std::vector<uint32_t>& set = dirty_by_block_[b];
    size_t need = 0;
    for (uint32_t nid : set)
      if (!in_journal(nid)) ++need;
    const bool to_journal = !umount && has_space(need);
    if (to_journal) {
      for (uint32_t nid : set) {
        const Entry& e = entries_[nid];
        const RawNatEntry raw{e.version, e.addr == kNullAddr ? Nid{} : e.ino, e.addr};
        bool updated = false;
        for (NatJournalEntry& j : journal_) {
          if (j.nid.v == nid) {
            j.entry = raw;
            updated = true;
          }
        }
        if (!updated) journal_.push_back(NatJournalEntry{Nid{nid}, raw});
      }
    } else {
      // The block gets the newest values; stale journal copies of its nids go.
      journal_.erase(std::remove_if(journal_.begin(), journal_.end(),
                                    [&](const NatJournalEntry& j) { return j.nid.v / kNatEntriesPerBlock == b; }),
                     journal_.end());
      bitmap_[b] = !bitmap_[b];
      page_cached_[b] = 1;  // the page written stays in memory
      plan.blocks.push_back(b);
    }
    for (uint32_t nid : set) {
      Entry& e = entries_[nid];
      e.dirty = false;
      ResetFlags(e);
      if (e.pending_free) {
        e.pending_free = false;
        ++free_nids_;
      }
    }
    set.clear();
  }
  dirty_blocks_.clear();
  dirty_count_ = 0;
  plan.journal_entries = static_cast<uint32_t>(journal_.size());
  std::sort(plan.blocks.begin(), plan.blocks.end());
  return plan;
}

}  // namespace fs::f2fs
