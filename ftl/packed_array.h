// PackedArray: a fixed-size array of unsigned integers of `bits` bits each,
// stored back to back with no padding between entries.
//
// The FTL's mapping tables (L2P, P2L) are the largest structures in the
// simulator: a 1 TiB device with 4 KiB pages has 2^28 physical pages. Entry
// widths are the minimum that holds every index plus one reserved value, so
// table sizes track the information they carry instead of rounding to 32 or
// 64 bits.
//
// Every entry starts with the all-ones value kNone() ("empty"). Get/Set read
// or write one unaligned 64-bit word (little-endian hosts), so bits <= 57;
// 32-bit entries are read and written as such (one aligned access).
// Not thread-safe; neighbouring entries share bytes.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <vector>

#include <glog/logging.h>

namespace ftl {

// Backing memory for large tables. Mapping tables are read at random
// (every host write, every GC validity check): with 4 KiB pages nearly each
// access also misses the TLB, which costs a page walk (two-dimensional
// under virtualization). Allocations of 2 MiB or more are therefore
// 2 MiB-aligned and advised to use transparent huge pages (a hint: without
// kernel support they behave like ordinary memory). Contents and sizes are
// unaffected.
void* AllocateTableMemory(size_t bytes);
void FreeTableMemory(void* p, size_t bytes);

template <class T>
struct TableAllocator {
  using value_type = T;
  TableAllocator() = default;
  template <class U>
  TableAllocator(const TableAllocator<U>&) {}
  T* allocate(size_t n) { return static_cast<T*>(AllocateTableMemory(n * sizeof(T))); }
  void deallocate(T* p, size_t n) { FreeTableMemory(p, n * sizeof(T)); }
  friend bool operator==(const TableAllocator&, const TableAllocator&) { return true; }
};

class PackedArray {
 public:
  static_assert(std::endian::native == std::endian::little, "PackedArray assumes a little-endian host");
  static constexpr unsigned kMaxBits = 57;

  PackedArray() = default;
  // `size` entries of `bits` bits, all kNone(). REQUIRES: 1 <= bits <= kMaxBits.
  PackedArray(uint64_t size, unsigned bits) : size_(size), bits_(bits), mask_((uint64_t{1} << bits) - 1) {
    CHECK_GE(bits, 1u);
    CHECK_LE(bits, kMaxBits);
    bytes_.assign(StorageBytes(size, bits), 0xFF);
    bytes_.shrink_to_fit();
  }

  // Smallest width whose all-ones value is >= `max_value`, i.e. that holds
  // every value in [0, max_value) and keeps kNone() distinct from them.
  static unsigned BitsFor(uint64_t max_value) { return std::max<unsigned>(1, std::bit_width(max_value)); }
  // Bytes of `size` entries of `bits` bits, with 8 bytes of slack so the
  // last entry can be read with one 64-bit load.
  static uint64_t StorageBytes(uint64_t size, unsigned bits) { return (size * bits + 7) / 8 + 8; }

  uint64_t size() const { return size_; }
  unsigned bits() const { return bits_; }
  uint64_t kNone() const { return mask_; }

  uint64_t Get(uint64_t i) const {
    DCHECK_LT(i, size_);
    if (bits_ == 32) {
      uint32_t v;
      std::memcpy(&v, bytes_.data() + i * 4, sizeof(v));
      return v;
    }
    const uint64_t bit = i * bits_;
    uint64_t w;
    std::memcpy(&w, bytes_.data() + (bit >> 3), sizeof(w));
    return (w >> (bit & 7)) & mask_;
  }

  void Set(uint64_t i, uint64_t v) {
    DCHECK_LT(i, size_);
    DCHECK_LE(v, mask_);
    if (bits_ == 32) {
      const auto w = static_cast<uint32_t>(v);
      std::memcpy(bytes_.data() + i * 4, &w, sizeof(w));
      return;
    }
    const uint64_t bit = i * bits_;
    const unsigned shift = bit & 7;
    uint8_t* p = bytes_.data() + (bit >> 3);
    uint64_t w;
    std::memcpy(&w, p, sizeof(w));
    w = (w & ~(mask_ << shift)) | (v << shift);
    std::memcpy(p, &w, sizeof(w));
  }

  // Hints that entry i will be read soon.
  void Prefetch(uint64_t i) const { __builtin_prefetch(bytes_.data() + ((i * bits_) >> 3)); }

  // Hints that entries [first, last) will be read soon (one hint per cache line).
  void PrefetchRange(uint64_t first, uint64_t last) const {
    if (first >= last) return;
    const uint8_t* p = bytes_.data() + ((first * bits_) >> 3);
    const uint8_t* end = bytes_.data() + (((last - 1) * bits_) >> 3);
    for (; p <= end; p += 64) __builtin_prefetch(p);
    __builtin_prefetch(end);
  }

  // Sets entries [first, last) to kNone().
  void FillNone(uint64_t first, uint64_t last) {
    DCHECK_LE(first, last);
    DCHECK_LE(last, size_);
    uint64_t bit = first * bits_;
    const uint64_t end = last * bits_;
    // Leading bits up to a byte boundary, whole bytes, trailing bits.
    while (bit < end && (bit & 7) != 0) {
      bytes_[bit >> 3] |= static_cast<uint8_t>(1u << (bit & 7));
      ++bit;
    }
    if (end - bit >= 8) {
      const uint64_t n = (end - bit) >> 3;
      std::memset(bytes_.data() + (bit >> 3), 0xFF, n);
      bit += n << 3;
    }
    while (bit < end) {
      bytes_[bit >> 3] |= static_cast<uint8_t>(1u << (bit & 7));
      ++bit;
    }
  }

  // Index of the first entry in [first, last) equal to v, or last.
  uint64_t Find(uint64_t first, uint64_t last, uint64_t v) const {
    for (uint64_t i = first; i < last; ++i) {
      if (Get(i) == v) return i;
    }
    return last;
  }

  // Bytes held (capacity of the backing store).
  uint64_t MemoryBytes() const { return bytes_.capacity(); }

 private:
  uint64_t size_ = 0;
  unsigned bits_ = 1;
  uint64_t mask_ = 1;
  std::vector<uint8_t, TableAllocator<uint8_t>> bytes_;
};

}  // namespace ftl
