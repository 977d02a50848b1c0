#include "ftl/mapping.h"

#include <bit>
#include <string>

namespace ftl {

Mapping::Widths Mapping::TableWidths(uint64_t logical_pages, const flash::Geometry& geometry, MapUnit unit) {
  Widths w{PackedArray::BitsFor(unit == MapUnit::kPage ? geometry.pages() : geometry.blocks()),
           PackedArray::BitsFor(logical_pages)};
  const uint64_t aligned = PackedArray::StorageBytes(logical_pages, 32) + PackedArray::StorageBytes(geometry.pages(), 32);
  if (aligned <= kAlignedTableBytes) {
    for (unsigned* b : {&w.l2p, &w.p2l}) {
      if (*b > 16 && *b < 32) *b = 32;
    }
  }
  return w;
}

uint64_t Mapping::TableBytes(uint64_t logical_pages, const flash::Geometry& geometry, MapUnit unit) {
  const Widths w = TableWidths(logical_pages, geometry, unit);
  return PackedArray::StorageBytes(logical_pages, w.l2p) + PackedArray::StorageBytes(geometry.pages(), w.p2l) +
         (unit == MapUnit::kPage ? ValidBitBytes(geometry.pages()) : 0);
}

sim::Result<MapUnit> ParseMapUnit(std::string_view name) {
  if (name == "page") return MapUnit::kPage;
  if (name == "block") return MapUnit::kBlock;
  return sim::Status::InvalidInput("unknown mapping unit '" + std::string(name) + "'; choices: page, block");
}

Mapping::Mapping(uint64_t logical_pages, const flash::Geometry& geometry, MapUnit unit)
    : unit_(unit),
      pages_per_block_(geometry.pages_per_block),
      per_block_(geometry.pages_per_block),
      l2p_(logical_pages, TableWidths(logical_pages, geometry, unit).l2p),
      p2l_(geometry.pages(), TableWidths(logical_pages, geometry, unit).p2l) {
  CHECK_GT(logical_pages, 0u);
  CHECK_LT(logical_pages, geometry.pages());
  if (unit_ == MapUnit::kPage) {
    valid_.assign(ValidBitBytes(geometry.pages()) / sizeof(uint64_t), 0);
    valid_.shrink_to_fit();
  }
}

uint64_t Mapping::NextValid(uint64_t first, uint64_t last) const {
  if (unit_ == MapUnit::kBlock) {
    while (first < last && !IsValid(flash::Ppn{first})) ++first;
    return first;
  }
  if (first >= last) return last;
  uint64_t w = first >> 6;
  uint64_t bits = valid_[w] & (~uint64_t{0} << (first & 63));
  const uint64_t last_word = (last - 1) >> 6;
  while (bits == 0) {
    if (++w > last_word) return last;
    bits = valid_[w];
  }
  const uint64_t at = (w << 6) + static_cast<uint64_t>(std::countr_zero(bits));
  return at < last ? at : last;
}

uint64_t Mapping::ValidPages(uint64_t first, uint64_t last, uint64_t* out) const {
  CHECK(unit_ == MapUnit::kPage);
  uint64_t n = 0;
  if (first >= last) return 0;
  const uint64_t last_word = (last - 1) >> 6;
  for (uint64_t w = first >> 6; w <= last_word; ++w) {
    uint64_t bits = valid_[w];
    if (w == first >> 6) bits &= ~uint64_t{0} << (first & 63);
    if (w == last_word && (last & 63) != 0) bits &= ~(~uint64_t{0} << (last & 63));
    for (; bits != 0; bits &= bits - 1) out[n++] = (w << 6) + static_cast<uint64_t>(std::countr_zero(bits));
  }
  return n;
}

flash::Ppn Mapping::Lookup(Lpn l) const {
  const uint64_t e = l2p_.Get(l.v);
  if (e == l2p_.kNone()) return flash::kInvalidPpn;
  if (unit_ == MapUnit::kPage) return flash::Ppn{e};
  const uint64_t first = e * pages_per_block_;
  const uint64_t last = first + pages_per_block_;
  const uint64_t at = p2l_.Find(first, last, l.v);
  CHECK_LT(at, last) << "L2P names block " << e << " for lpn " << l.v << " but its P2L has no entry";
  return flash::Ppn{at};
}

void Mapping::Unmap(Lpn l, bool block_still_written) {
  const uint64_t e = l2p_.Get(l.v);
  DCHECK_NE(e, l2p_.kNone());
  if (unit_ == MapUnit::kPage) ClearBit(e);
  if (unit_ == MapUnit::kBlock && block_still_written) {
    const uint64_t first = e * pages_per_block_;
    const uint64_t last = first + pages_per_block_;
    const uint64_t at = p2l_.Find(first, last, l.v);
    CHECK_LT(at, last);
    p2l_.Set(at, p2l_.kNone());
  }
  l2p_.Set(l.v, l2p_.kNone());
}

void Mapping::ResetBlock(uint64_t block) {
  const uint64_t first = block * pages_per_block_;
  p2l_.FillNone(first, first + pages_per_block_);
  if (unit_ == MapUnit::kPage) {
    const uint64_t last = first + pages_per_block_;
    uint64_t p = first;
    for (; p < last && (p & 63) != 0; ++p) ClearBit(p);
    for (; p + 64 <= last; p += 64) valid_[p >> 6] = 0;
    for (; p < last; ++p) ClearBit(p);
  }
}

uint32_t Mapping::CountInBlock(Lpn l, uint64_t block) const {
  uint32_t n = 0;
  const uint64_t first = block * pages_per_block_;
  for (uint64_t p = first; p < first + pages_per_block_; ++p) n += p2l_.Get(p) == l.v;
  return n;
}

}  // namespace ftl
