#include "fs/f2fs/on_disk.h"

#include <cstring>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include <glog/logging.h>

namespace fs::f2fs {

std::string_view LogTypeName(LogType t) {
  switch (t) {
    case LogType::kHotData: return "hot_data";
    case LogType::kWarmData: return "warm_data";
    case LogType::kColdData: return "cold_data";
    case LogType::kHotNode: return "hot_node";
    case LogType::kWarmNode: return "warm_node";
    case LogType::kColdNode: return "cold_node";
    case LogType::kAtgcData: return "atgc_data";
  }
  return "?";
}

int DentryArray::Find(std::string_view name, uint32_t hash) const {
  // Only a used entry's first slot holds a Dentry other than the default
  // (Insert writes the first slot, Remove resets it, and no entry can start
  // inside a used one), so a scan of every slot's hash finds what a walk
  // over the entries finds, first match first, without following names
  // across slots. A name is never empty, so a default Dentry never matches.
  const size_t len = name.size();
  const uint32_t* h = hashes.data();
  const uint32_t n = stored_slots();
  auto match = [&](uint32_t s) {
    const Dentry& d = dentries[s];
    return d.name_len == len && used[s] && NameAt(s) == name;
  };
  uint32_t s = 0;
#ifdef __SSE2__
  // Four hashes per compare; the slots whose hash matched, in slot order.
  const __m128i want = _mm_set1_epi32(static_cast<int>(hash));
  for (; s + 4 <= n; s += 4) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(h + s));
    uint32_t hit = static_cast<uint32_t>(_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(v, want))));
    while (hit != 0) {
      const uint32_t k = static_cast<uint32_t>(__builtin_ctz(hit));
      if (match(s + k)) return static_cast<int>(s + k);
      hit &= hit - 1;
    }
  }
#endif
  for (; s < n; ++s)
    if (h[s] == hash && match(s)) return static_cast<int>(s);
  return -1;
}

int DentryArray::FindRoom(uint32_t slots) const {
  // Runs of free slots start at a zero byte of `used` (memchr finds the
  // next one a vector at a time) or at the end of the stored slots, past
  // which every slot is free.
  if (slots == 0 || nr_slots - used_slots < slots) return -1;
  const uint32_t stored = stored_slots();
  const uint8_t* u = used.data();
  uint32_t s = 0;
  while (s < stored) {
    const void* z = std::memchr(u + s, 0, stored - s);
    if (z == nullptr) {
      s = stored;
      break;
    }
    s = static_cast<uint32_t>(static_cast<const uint8_t*>(z) - u);
    uint32_t e = s + 1;
    while (e < stored && e - s < slots && !u[e]) ++e;
    if (e - s == slots || e == stored) break;  // a run long enough, or one reaching the free tail
    s = e + 1;                                 // u[e] is used
  }
  return s + slots <= nr_slots ? static_cast<int>(s) : -1;
}

void DentryArray::Insert(int slot, std::string_view name, uint32_t hash, Nid ino, FileType type) {
  const uint32_t n = std::max<uint32_t>(1, SlotsFor(name.size()));
  CHECK_GE(slot, 0);
  CHECK_LE(static_cast<uint32_t>(slot) + n, nr_slots);
  if (static_cast<uint32_t>(slot) + n > stored_slots()) {
    const size_t want = static_cast<size_t>(slot) + n;
    used.resize(want, 0);
    dentries.resize(want);
    hashes.resize(want, 0);
    names.resize(want * kSlotLen, 0);
  }
  for (uint32_t i = 0; i < n; ++i) {
    CHECK(!used[slot + i]) << "dentry slot in use";
    used[slot + i] = 1;
  }
  used_slots += n;
  dentries[slot] = Dentry{ino, static_cast<uint16_t>(name.size()), type};
  hashes[slot] = hash;
  // Names longer than one slot continue into the following slots' name bytes.
  std::memcpy(&names[static_cast<size_t>(slot) * kSlotLen], name.data(), name.size());
}

void DentryArray::Remove(int slot) {
  CHECK(used[slot]);
  const uint32_t n = std::max<uint32_t>(1, SlotsFor(dentries[slot].name_len));
  for (uint32_t i = 0; i < n; ++i) used[slot + i] = 0;
  used_slots -= n;
  dentries[slot] = Dentry{};
  hashes[slot] = 0;
}

int DentryBlock::Find(std::string_view name, uint32_t hash) const {
  if (!MayHold(hash)) return -1;
  const uint32_t n = d.stored_slots();
  const uint8_t tag = TagOf(hash);
  const size_t len = name.size();
  auto match = [&](uint32_t s) {
    const Dentry& e = d.dentries[s];
    return d.hashes[s] == hash && e.name_len == len && d.used[s] && d.NameAt(s) == name;
  };
  uint32_t s = 0;
#ifdef __SSE2__
  // Sixteen tags per compare; tags past the stored slots are 0 and never
  // match (TagOf is never 0).
  const __m128i want = _mm_set1_epi8(static_cast<char>(tag));
  for (; s < n; s += 16) {
    const __m128i v = _mm_load_si128(reinterpret_cast<const __m128i*>(tags.data() + s));
    uint32_t hit = static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, want)));
    while (hit != 0) {
      const uint32_t k = static_cast<uint32_t>(__builtin_ctz(hit));
      if (s + k < n && match(s + k)) return static_cast<int>(s + k);
      hit &= hit - 1;
    }
  }
#else
  for (; s < n; ++s)
    if (tags[s] == tag && match(s)) return static_cast<int>(s);
#endif
  return -1;
}

void DentryBlock::Insert(int slot, std::string_view name, uint32_t hash, Nid ino, FileType type) {
  d.Insert(slot, name, hash, ino, type);
  const uint32_t b = FilterBit(hash);
  filter[b >> 6] |= uint64_t{1} << (b & 63);
  tags[static_cast<uint32_t>(slot)] = TagOf(hash);
}

void DentryBlock::Remove(int slot) {
  d.Remove(slot);
  tags[static_cast<uint32_t>(slot)] = 0;
  if (++filter_stale < kFilterStaleLimit) return;
  filter_stale = 0;
  filter.fill(0);
  d.ForEach([&](uint32_t s, const Dentry&) {
    const uint32_t b = FilterBit(d.hashes[s]);
    filter[b >> 6] |= uint64_t{1} << (b & 63);
  });
}

bool DentryBlock::FilterCoversEntries() const {
  bool ok = true;
  d.ForEach([&](uint32_t s, const Dentry&) { ok = ok && MayHold(d.hashes[s]); });
  return ok;
}

bool DentryBlock::TagsMatchEntries() const {
  std::array<uint8_t, kTagSlots> want{};
  d.ForEach([&](uint32_t s, const Dentry&) { want[s] = TagOf(d.hashes[s]); });
  return want == tags;
}

bool DentryArray::Empty() const { return used_slots == 0; }

uint32_t DentryArray::UsedEntries() const {
  uint32_t n = 0;
  ForEach([&](uint32_t, const Dentry&) { ++n; });
  return n;
}

uint32_t DentryHash(std::string_view name) {
  if (name == "." || name == "..") return 0;
  uint32_t h = 2166136261u;  // FNV-1a
  for (char c : name) {
    h ^= static_cast<uint8_t>(c);
    h *= 16777619u;
  }
  return h & 0x7FFFFFFFu;  // the collision bit (bit 31) stays clear
}

uint64_t CheckpointBlock::Checksum() const {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&](uint64_t v) {
    h ^= v;
    h *= 1099511628211ull;
  };
  mix(cp_ver);
  mix(user_block_count);
  mix(valid_block_count);
  mix(rsvd_segment_count);
  mix(overprov_segment_count);
  mix(free_segment_count);
  for (const auto& c : cursegs) {
    mix(c.segno.v);
    mix(c.blkoff);
    mix(c.ssr);
  }
  for (const auto& c : region_cursegs) {
    mix(c.segno.v);
    mix(c.blkoff);
    mix(c.ssr);
  }
  for (const auto& st : stripes) {
    if (st.region == 0 && st.left == 0) continue;
    mix(st.region);
    mix(st.left);
  }
  mix(umount);
  mix(orphan_present);
  mix(cp_pack_total_block_count);
  mix(cp_pack_start_sum);
  mix(data_sum_blocks);
  mix(orphan_blocks);
  mix(valid_node_count);
  mix(valid_inode_count);
  if (stolen_blocks != 0 || stolen_list_blocks != 0) {
    mix(stolen_blocks);
    mix(stolen_list_blocks);
  }
  mix(next_free_nid.v);
  for (bool b : sit_bitmap) mix(b);
  for (bool b : nat_bitmap) mix(b);
  if (journal_block_seq != 0 || journal_record_seq != 0 || journal_head != 0) {
    mix(journal_head);
    mix(journal_block_seq);
    mix(journal_record_seq);
  }
  return h;
}

namespace {
constexpr uint64_t kDirect = kAddrsPerBlock;
constexpr uint64_t kIndirect = kDirect * kNidsPerBlock;
constexpr uint64_t kDIndirect = kIndirect * kNidsPerBlock;
constexpr uint32_t kInd1Ofs = 3;
constexpr uint32_t kInd2Ofs = 4 + kNidsPerBlock;            // 1022
constexpr uint32_t kDindOfs = 5 + 2 * kNidsPerBlock;        // 2041
}  // namespace

uint64_t MaxFileBlocks() { return kUsableAddrsPerInode + 2 * kDirect + 2 * kIndirect + kDIndirect; }

NodePath GetNodePath(uint64_t block) {
  NodePath p;
  if (block < kUsableAddrsPerInode) {
    p.level = 0;
    p.offsets[0] = static_cast<uint32_t>(block);
    return p;
  }
  block -= kUsableAddrsPerInode;
  if (block < 2 * kDirect) {
    const uint32_t which = static_cast<uint32_t>(block / kDirect);  // 0 or 1
    p.level = 1;
    p.offsets[0] = which;
    p.node_ofs[1] = 1 + which;
    p.offsets[1] = static_cast<uint32_t>(block % kDirect);
    return p;
  }
  block -= 2 * kDirect;
  if (block < 2 * kIndirect) {
    const uint32_t which = static_cast<uint32_t>(block / kIndirect);  // 0 or 1
    block %= kIndirect;
    p.level = 2;
    p.offsets[0] = 2 + which;
    p.node_ofs[1] = which == 0 ? kInd1Ofs : kInd2Ofs;
    p.offsets[1] = static_cast<uint32_t>(block / kDirect);
    p.node_ofs[2] = p.node_ofs[1] + 1 + p.offsets[1];
    p.offsets[2] = static_cast<uint32_t>(block % kDirect);
    return p;
  }
  block -= 2 * kIndirect;
  CHECK_LT(block, kDIndirect) << "file block beyond the double-indirect range";
  p.level = 3;
  p.offsets[0] = 4;
  p.node_ofs[1] = kDindOfs;
  p.offsets[1] = static_cast<uint32_t>(block / kIndirect);
  p.node_ofs[2] = kDindOfs + 1 + p.offsets[1] * (kNidsPerBlock + 1);
  p.offsets[2] = static_cast<uint32_t>((block / kDirect) % kNidsPerBlock);
  p.node_ofs[3] = p.node_ofs[2] + 1 + p.offsets[2];
  p.offsets[3] = static_cast<uint32_t>(block % kDirect);
  return p;
}

bool IsDnodeOffset(uint32_t ofs) {
  if (ofs == kInd1Ofs || ofs == kInd2Ofs || ofs == kDindOfs) return false;
  if (ofs > kDindOfs) return (ofs - kDindOfs - 1) % (kNidsPerBlock + 1) != 0;
  return true;
}

uint64_t StartBlockOfDnode(uint32_t ofs) {
  CHECK(IsDnodeOffset(ofs));
  if (ofs == 0) return 0;
  if (ofs <= 2) return kUsableAddrsPerInode + (ofs - 1) * kDirect;
  const uint64_t base_ind = kUsableAddrsPerInode + 2 * kDirect;
  if (ofs < kInd2Ofs) return base_ind + (ofs - kInd1Ofs - 1) * kDirect;
  if (ofs < kDindOfs) return base_ind + kIndirect + (ofs - kInd2Ofs - 1) * kDirect;
  const uint64_t r = ofs - kDindOfs - 1;
  const uint64_t i = r / (kNidsPerBlock + 1);
  const uint64_t j = r % (kNidsPerBlock + 1) - 1;
  return base_ind + 2 * kIndirect + (i * kNidsPerBlock + j) * kDirect;
}

}  // namespace fs::f2fs
