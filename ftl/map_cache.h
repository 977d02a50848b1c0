// MapCache: the demand-cached mapping table of the page-mapped FTL (DFTL
// style): which L2P entries sit in controller DRAM, and which of them are
// dirty (changed since their translation page was last written).
//
// The whole L2P table lives on flash as translation pages of
// entries_per_page consecutive entries each: translation page t holds the
// entries of Lpn [t x entries_per_page, (t+1) x entries_per_page). The
// global translation directory (where each translation page is) stays in
// DRAM; FtlCore keeps it in its Mapping as the entries of the Lpns after the
// logical space.
//
// This class decides only hits, misses and write-backs; the exact mapping
// is always known to the simulator (Mapping), so the cache models the cost
// of translation, never its correctness. Time-free and deterministic.
//
// Contract:
// - Touch(l, dirty) is one host access to l's entry: a hit moves the entry
//   to the most-recently-used end (and marks it dirty if `dirty`); a miss
//   inserts it there, evicting the least-recently-used entry when the cache
//   is full. When the evicted entry is dirty, its translation page must be
//   written back: Touch returns that page and marks every other cached
//   entry of the page clean (one write carries them all, as DFTL batches).
// - MarkDirty(l) records a mapping change made by the FTL itself (a GC
//   relocation, a trim): true if l's entry is cached (now dirty; its LRU
//   position is unchanged: the host did not use it); false if not, and the
//   caller must update l's translation page on flash.
// - Hit ratio under uniform random accesses over W entries with capacity
//   C <= W tends to C / W (LRU, entry granularity).
// Memory: 4 bytes per logical page (the index) plus 32 bytes per entry of
// capacity plus 4 bytes per translation page.
#pragma once

#include <cstdint>
#include <vector>

#include "ftl/ftl.h"

namespace ftl {

class MapCache {
 public:
  static constexpr uint64_t kNoPage = UINT64_MAX;
  // REQUIRES: capacity >= 1, entries_per_page >= 1, logical_pages >= 1,
  // capacity < 2^32.
  MapCache(uint64_t logical_pages, uint64_t capacity, uint64_t entries_per_page);

  struct Access {
    bool hit = false;
    // The translation page an evicted dirty entry belongs to, or kNoPage.
    uint64_t writeback = kNoPage;
  };
  Access Touch(Lpn l, bool dirty);
  bool MarkDirty(Lpn l);

  uint64_t PageOf(Lpn l) const { return l.v / entries_per_page_; }
  uint64_t pages() const { return pages_; }
  uint64_t capacity() const { return capacity_; }
  uint64_t size() const { return size_; }
  uint64_t entries_per_page() const { return entries_per_page_; }
  bool Cached(Lpn l) const { return slot_of_[l.v] != kNone; }
  bool Dirty(Lpn l) const { return Cached(l) && entries_[slot_of_[l.v]].dirty; }
  // Bytes this model takes in the simulator (see header comment).
  uint64_t MemoryBytes() const;

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  struct Entry {
    uint64_t lpn = 0;
    uint32_t prev = kNone, next = kNone;    // LRU list; head = least recently used
    uint32_t pprev = kNone, pnext = kNone;  // entries of the same translation page
    bool dirty = false;
  };
  void Unlink(uint32_t i);
  void PushMru(uint32_t i);
  void LinkPage(uint32_t i);
  void UnlinkPage(uint32_t i);

  uint64_t capacity_;
  uint64_t entries_per_page_;
  uint64_t pages_;
  uint64_t size_ = 0;
  std::vector<Entry> entries_;
  std::vector<uint32_t> slot_of_;    // per Lpn: its entry, or kNone
  std::vector<uint32_t> page_head_;  // per translation page: a cached entry, or kNone
  uint32_t lru_ = kNone, mru_ = kNone;
};

}  // namespace ftl
