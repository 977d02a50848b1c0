// Mapping: the page-mapped FTL's translation tables.
//
//   L2P  logical page -> where its valid copy lives (one entry per Lpn)
//   P2L  physical page -> the Lpn whose data was written there (one entry
//        per Ppn; the out-of-band area of a real page holds the same)
//
// Two L2P granularities (MapUnit):
//   kPage   L2P holds the exact Ppn. Lookup is one table read. P2L entries
//           of stale copies stay until their block is erased (L2P decides
//           validity), which saves a random write per overwrite.
//   kBlock  L2P holds only the physical block id (log2(blocks) bits instead
//           of log2(pages)); Lookup finds the page by scanning the block's
//           P2L entries (pages_per_block compares). This is what lets a
//           1 TiB device with 4 KiB pages fit in 1.5 GiB of tables. P2L
//           entries of stale copies may remain in blocks that are no longer
//           written; the caller must clear them (Unmap with
//           block_still_written) while the block can still receive pages, so
//           that a block never holds two entries for one Lpn that L2P points
//           to.
//
// In both modes: page p is valid iff P2L[p] = l and L2P[l] names p (kPage) or
// p's block (kBlock). Valid counts per block are kept by the caller
// (BlockManager); CheckConsistency in FtlCore cross-checks both.
//
// kPage mode also keeps one valid bit per physical page (set by Map, cleared
// by Unmap and ResetBlock), equal to the rule above at all times: IsValid
// and NextValid read it instead of the random L2P entry, so a GC scan of a
// victim touches only the victim's own bits and P2L entries plus the L2P
// entries of pages it moves (1 bit per page: 1/50 of the tables).
// kBlock mode, sized for the memory budget, keeps none (its Unmap does not
// know the page): IsValid reads L2P as described.
//
// Entries are bit-packed (PackedArray): L2P has BitsFor(units) bits, P2L
// BitsFor(logical_pages) bits (TableWidths). A width of 17 to 32 bits is
// widened to 32 while both tables with 32-bit entries take at most
// kAlignedTableBytes (devices up to 64 Mi pages, 256 GiB of 4 KiB pages):
// an aligned entry is one load or store, a packed one a shift and a mask
// over an unaligned word, on every host write and GC move. Larger devices,
// where memory limits what can be simulated (the 1 TiB budget), stay
// packed. The width changes memory only, never an entry's value.
// Not thread-safe.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "ftl/divisor.h"
#include "ftl/ftl.h"
#include "ftl/packed_array.h"
#include "flash/geometry.h"
#include "sim/status.h"

namespace ftl {

enum class MapUnit : uint8_t { kPage, kBlock };
// "page" | "block".
sim::Result<MapUnit> ParseMapUnit(std::string_view name);

inline constexpr uint64_t kNoBlock = UINT64_MAX;

class Mapping {
 public:
  // REQUIRES: 0 < logical_pages < geometry.pages().
  Mapping(uint64_t logical_pages, const flash::Geometry& geometry, MapUnit unit);
  // Bytes the two tables of such a Mapping take (before it is built).
  static uint64_t TableBytes(uint64_t logical_pages, const flash::Geometry& geometry, MapUnit unit);
  // Entry widths of the two tables (see the header comment).
  struct Widths {
    unsigned l2p;
    unsigned p2l;
  };
  static constexpr uint64_t kAlignedTableBytes = uint64_t{512} << 20;
  static Widths TableWidths(uint64_t logical_pages, const flash::Geometry& geometry, MapUnit unit);

  uint64_t logical_pages() const { return l2p_.size(); }
  MapUnit unit() const { return unit_; }

  bool IsMapped(Lpn l) const { return l2p_.Get(l.v) != l2p_.kNone(); }
  // Physical block holding l's valid copy; kNoBlock if unmapped.
  uint64_t BlockOf(Lpn l) const {
    const uint64_t e = l2p_.Get(l.v);
    if (e == l2p_.kNone()) return kNoBlock;
    return unit_ == MapUnit::kPage ? per_block_.Div(e) : e;
  }
  // The page holding l's valid copy; kInvalidPpn if unmapped. kBlock mode
  // scans the block's P2L entries.
  flash::Ppn Lookup(Lpn l) const;
  // The Lpn recorded at p (stale in kBlock mode unless IsValid), or an
  // invalid Lpn for an erased/cleared page.
  Lpn LpnAt(flash::Ppn p) const {
    const uint64_t e = p2l_.Get(p.v);
    return e == p2l_.kNone() ? Lpn{} : Lpn{e};
  }
  bool IsValid(flash::Ppn p) const {
    if (unit_ == MapUnit::kPage) return TestBit(p.v);
    const uint64_t e = p2l_.Get(p.v);
    if (e == p2l_.kNone()) return false;
    const uint64_t target = l2p_.Get(e);
    return unit_ == MapUnit::kPage ? target == p.v : target == per_block_.Div(p.v);
  }

  // The first valid page in [first, last), or `last` if none; a scan of the
  // valid bits 64 pages at a time in kPage mode.
  uint64_t NextValid(uint64_t first, uint64_t last) const;
  // kPage mode: writes the valid pages of [first, last), in order, to
  // `out` (room for last - first) and returns how many there are.
  uint64_t ValidPages(uint64_t first, uint64_t last, uint64_t* out) const;
  // What IsValid(p) computes from the L2P and P2L tables alone (for
  // consistency checks of the valid bits).
  bool IsValidByTables(flash::Ppn p) const {
    const uint64_t e = p2l_.Get(p.v);
    if (e == p2l_.kNone()) return false;
    const uint64_t target = l2p_.Get(e);
    return unit_ == MapUnit::kPage ? target == p.v : target == per_block_.Div(p.v);
  }
  // What retiring l's copy (Unmap) will touch besides its L2P entry: its
  // valid bit. Reads the L2P entry (fetch it first); returns BlockOf(l).
  uint64_t PrefetchRetire(Lpn l) const {
    const uint64_t e = l2p_.Get(l.v);
    if (e == l2p_.kNone()) return kNoBlock;
    if (unit_ == MapUnit::kBlock) return e;
    __builtin_prefetch(valid_.data() + (e >> 6));
    return per_block_.Div(e);
  }

  // Cache hints for batch users (GC scans, preconditioning): the L2P entry
  // of l, and what IsValid(p) will read.
  void PrefetchLpn(Lpn l) const { l2p_.Prefetch(l.v); }
  void PrefetchValidity(flash::Ppn p) const {
    const uint64_t e = p2l_.Get(p.v);
    if (e != p2l_.kNone()) l2p_.Prefetch(e);
  }

  // The P2L entries of the `count` pages from `first` (a victim block
  // about to be scanned).
  void PrefetchP2l(flash::Ppn first, uint64_t count) const { p2l_.PrefetchRange(first.v, first.v + count); }

  // Records that the erased page p now holds l's valid copy.
  // REQUIRES: l unmapped (call Unmap first); p erased since its last use.
  void Map(Lpn l, flash::Ppn p) {
    DCHECK(!IsMapped(l));
    DCHECK_EQ(p2l_.Get(p.v), p2l_.kNone());
    if (unit_ == MapUnit::kPage) {
      l2p_.Set(l.v, p.v);
      SetBit(p.v);
    } else {
      l2p_.Set(l.v, per_block_.Div(p.v));
    }
    p2l_.Set(p.v, l.v);
    // Pages of a unit are mapped in order, but open units of many groups
    // take turns: fetch the P2L entry of a page a few allocations ahead so
    // the unit's next line is in cache when its turn comes.
    p2l_.Prefetch(p.v + kMapAhead);
  }
  // Drops l's valid copy. `block_still_written`: the old copy's block may
  // still receive pages before its next erase (kBlock mode then clears the
  // stale P2L entry by a scan; kPage mode never needs to).
  // REQUIRES: IsMapped(l).
  void Unmap(Lpn l, bool block_still_written);
  // Unmap(l) then Map(l, dst) where the caller knows l's valid copy is at
  // src (a GC move in kPage mode): the same tables afterwards, without
  // waiting on the read of l's L2P entry to find src.
  // REQUIRES: kPage mode; l's valid copy at src; dst erased since its last use.
  void MovePage(Lpn l, flash::Ppn src, flash::Ppn dst) {
    DCHECK(src.valid());
    Remap(l, src, dst);
  }
  // kPage mode: the page holding l's valid copy, or kInvalidPpn if
  // unmapped (Lookup without the kBlock case).
  flash::Ppn PageOf(Lpn l) const {
    DCHECK(unit_ == MapUnit::kPage);
    const uint64_t e = l2p_.Get(l.v);
    return e == l2p_.kNone() ? flash::kInvalidPpn : flash::Ppn{e};
  }
  // kPage mode: l's copy moves from `old` (PageOf(l), kInvalidPpn if
  // unmapped) to the erased page `dst`; the same tables as Unmap (if
  // mapped) then Map, with one write of l's L2P entry.
  void Remap(Lpn l, flash::Ppn old, flash::Ppn dst) {
    DCHECK(unit_ == MapUnit::kPage);
    DCHECK_EQ(l2p_.Get(l.v), old.valid() ? old.v : l2p_.kNone());
    DCHECK_EQ(p2l_.Get(dst.v), p2l_.kNone());
    if (old.valid()) ClearBit(old.v);
    l2p_.Set(l.v, dst.v);
    SetBit(dst.v);
    p2l_.Set(dst.v, l.v);
    p2l_.Prefetch(dst.v + kMapAhead);
  }
  // Clears the P2L entries of a block that is being erased.
  void ResetBlock(uint64_t block);

  // Bytes held by both tables.
  uint64_t MemoryBytes() const {
    return l2p_.MemoryBytes() + p2l_.MemoryBytes() + valid_.capacity() * sizeof(uint64_t);
  }
  uint64_t l2p_bytes() const { return l2p_.MemoryBytes(); }
  uint64_t p2l_bytes() const { return p2l_.MemoryBytes(); }
  unsigned l2p_bits() const { return l2p_.bits(); }
  unsigned p2l_bits() const { return p2l_.bits(); }

  // Number of P2L entries of `block` equal to l (for consistency checks).
  uint32_t CountInBlock(Lpn l, uint64_t block) const;

 private:
  static constexpr uint64_t kMapAhead = 8;
  bool TestBit(uint64_t p) const { return (valid_[p >> 6] >> (p & 63)) & 1; }
  void SetBit(uint64_t p) { valid_[p >> 6] |= uint64_t{1} << (p & 63); }
  void ClearBit(uint64_t p) { valid_[p >> 6] &= ~(uint64_t{1} << (p & 63)); }
  // Bytes of the valid bits of `pages` physical pages (kPage mode only).
  static uint64_t ValidBitBytes(uint64_t pages) { return (pages + 63) / 64 * sizeof(uint64_t); }

  MapUnit unit_;
  uint64_t pages_per_block_;
  Divisor per_block_;  // pages_per_block_
  PackedArray l2p_;
  PackedArray p2l_;
  std::vector<uint64_t, TableAllocator<uint64_t>> valid_;  // kPage: one bit per physical page
};

}  // namespace ftl
