// The ext4 model's file data: reads with read-ahead, delayed allocation,
// writeback, truncate, fsync; extents; mballoc and inode allocation.
#include <algorithm>
#include <cstring>

#include <glog/logging.h>

#include "fs/ext4/ext4_internal.h"

namespace fs::ext4 {
namespace {

bool Writable(uint32_t flags) { return (flags & (kWrOnly | kRdWr)) != 0; }
bool Readable(uint32_t flags) { return (flags & kWrOnly) == 0; }
constexpr uint64_t kMaxFileSize = uint64_t{16} << 40;  // 2^32 blocks of 4 KiB

bool Bit(const std::vector<uint64_t>& w, uint32_t i) { return (w[i / 64] >> (i % 64)) & 1; }

}  // namespace

// ---------------------------------------------------------------------------
// Extents

uint32_t Ext4::MapBlock(const Inode* in, uint32_t lblk, uint32_t* run) const {
  auto it = in->ext.upper_bound(lblk);
  if (it == in->ext.begin()) return 0;
  --it;
  if (lblk >= it->first + it->second.len) return 0;
  if (run) *run = it->first + it->second.len - lblk;
  return it->second.pblk + (lblk - it->first);
}

uint32_t Ext4::BlockOf(uint32_t ino, uint64_t index) const {
  auto it = inodes_.find(ino);
  return it == inodes_.end() ? 0 : MapBlock(it->second.get(), static_cast<uint32_t>(index));
}

// The extent-tree blocks a walk to any extent of `in` may read (all of
// them: the model does not track which leaf a lookup needs).
std::vector<uint32_t> Ext4::ExtentBlocksFor(const Inode* in) const { return in->tree; }

void Ext4::InsertExtent(Inode* in, uint32_t lblk, uint32_t pblk, uint32_t len) {
  // Merge with the extent before when contiguous on both sides.
  auto next = in->ext.lower_bound(lblk);
  size_t pos = static_cast<size_t>(std::distance(in->ext.begin(), next));
  if (next != in->ext.begin()) {
    auto prev = std::prev(next);
    CHECK_LE(prev->first + prev->second.len, lblk) << "overlapping extent";
    if (prev->first + prev->second.len == lblk && prev->second.pblk + prev->second.len == pblk &&
        prev->second.len + len <= kMaxExtentLen) {
      prev->second.len += len;
      ReshapeTree(in, pos - 1);
      return;
    }
  }
  in->ext.emplace(lblk, Inode::Ext{pblk, len});
  ReshapeTree(in, pos);
}

// Frees every block of `in` from logical block `lblk` on.
void Ext4::FreeExtentsFrom(Inode* in, uint32_t lblk) {
  auto it = in->ext.upper_bound(lblk);
  if (it != in->ext.begin()) {
    auto prev = std::prev(it);
    if (prev->first + prev->second.len > lblk) {
      const uint32_t keep = lblk - prev->first;
      FreeBlocks(prev->second.pblk + keep, prev->second.len - keep, in->is_dir);
      if (keep == 0) {
        it = in->ext.erase(prev);
      } else {
        prev->second.len = keep;
      }
    }
  }
  const size_t pos = static_cast<size_t>(std::distance(in->ext.begin(), it));
  while (it != in->ext.end()) {
    FreeBlocks(it->second.pblk, it->second.len, in->is_dir);
    it = in->ext.erase(it);
  }
  ReshapeTree(in, pos == 0 ? 0 : pos - 1);
}

// The tree's shape follows the number of extents: in the inode up to 4,
// then 340 per leaf block, then index blocks of 340 leaves.
void Ext4::ReshapeTree(Inode* in, size_t first_changed) {
  const size_t e = in->ext.size();
  const uint32_t leaves = e <= kInodeExtents ? 0 : static_cast<uint32_t>((e + kExtentsPerBlock - 1) / kExtentsPerBlock);
  const uint32_t index = leaves <= kInodeExtents ? 0 : (leaves + kExtentsPerBlock - 1) / kExtentsPerBlock;
  const uint8_t depth = e <= kInodeExtents ? 0 : (index == 0 ? 1 : 2);
  std::vector<uint32_t> old_index(in->tree.begin() + in->leaves, in->tree.end());
  std::vector<uint32_t> leaf_blocks(in->tree.begin(), in->tree.begin() + in->leaves);
  bool changed = depth != in->depth || leaves != in->leaves || index != old_index.size();
  while (leaf_blocks.size() > leaves) {
    dyn_meta_.erase(leaf_blocks.back());
    FreeBlocks(leaf_blocks.back(), 1, true);
    leaf_blocks.pop_back();
  }
  while (old_index.size() > index) {
    dyn_meta_.erase(old_index.back());
    FreeBlocks(old_index.back(), 1, true);
    old_index.pop_back();
  }
  while (leaf_blocks.size() < leaves) {
    const uint32_t goal = in->ext.empty() ? InodeGoal(in) : in->ext.begin()->second.pblk;
    const uint32_t b = AllocMeta(in, goal);
    leaf_blocks.push_back(b);
    MakeResident(b);
  }
  while (old_index.size() < index) {
    const uint32_t b = AllocMeta(in, InodeGoal(in));
    old_index.push_back(b);
    MakeResident(b);
  }
  in->tree = leaf_blocks;
  in->tree.insert(in->tree.end(), old_index.begin(), old_index.end());
  in->leaves = leaves;
  in->depth = depth;
  for (uint32_t i = 0; i < in->tree.size(); ++i) dyn_meta_[in->tree[i]] = MetaRef{in->ino, 1, i};
  // Entries from `first_changed` on moved: their leaves, and every index
  // block, change.
  for (uint32_t i = static_cast<uint32_t>(first_changed / kExtentsPerBlock); i < leaves; ++i) Dirty(in->tree[i]);
  for (uint32_t i = leaves; i < in->tree.size(); ++i) Dirty(in->tree[i]);
  (void)changed;
  DirtyInode(in, true);
}

// ---------------------------------------------------------------------------
// mballoc

bool Ext4::TestInUse(uint32_t b) const {
  const uint32_t g = layout_.GroupOf(b), i = b % layout_.blocks_per_group;
  return Bit(bbits_[g], i) || Bit(busy_bits_[g], i);
}

// Free blocks from b on (within b's group), at most max: word at a time.
uint32_t Ext4::FreeRunAt(uint32_t b, uint32_t max) const {
  if (b >= layout_.blocks) return 0;
  const uint32_t g = layout_.GroupOf(b);
  const uint32_t end = layout_.GroupBlocks(g);
  uint32_t i = b % layout_.blocks_per_group;
  uint32_t n = 0;
  while (n < max && i < end) {
    const uint64_t used = (bbits_[g][i / 64] | busy_bits_[g][i / 64]) >> (i % 64);
    const uint32_t avail = 64 - i % 64;
    const uint32_t run = used == 0 ? avail : static_cast<uint32_t>(__builtin_ctzll(used));
    const uint32_t take = std::min({run, avail, end - i});
    n += take;
    if (take < avail) break;
    i += take;
  }
  return std::min(n, max);
}

// The first free block of group g at or after index i (or the group's size).
uint32_t Ext4::NextFree(uint32_t g, uint32_t i) const {
  const uint32_t end = layout_.GroupBlocks(g);
  while (i < end) {
    const uint64_t free = ~(bbits_[g][i / 64] | busy_bits_[g][i / 64]) >> (i % 64);
    if (free != 0) return std::min(end, i + static_cast<uint32_t>(__builtin_ctzll(free)));
    i = (i / 64 + 1) * 64;
  }
  return end;
}

// ext4_inode_to_goal_block.
uint32_t Ext4::InodeGoal(const Inode* in) const {
  uint32_t g = in->group;
  if (layout_.flex_bg >= 4) {
    g &= ~(layout_.flex_bg - 1);
    if (!in->is_dir && g + 1 < layout_.groups) ++g;
  }
  return layout_.GroupFirst(g);
}

// Finds a free run of up to `len` blocks, at least `minlen`: the run at the
// goal if long enough, else the first long-enough run scanning groups from
// the goal's (then any run of at least minlen).
uint32_t Ext4::FindFree(uint32_t goal, uint32_t len, uint32_t minlen, uint32_t* got) {
  stats_.alloc_requests.Inc();
  if (goal >= layout_.blocks) goal = 0;
  const uint32_t at_goal = FreeRunAt(goal, len);
  if (at_goal >= minlen) {
    stats_.alloc_goal_hits.Inc();
    *got = at_goal;
    return goal;
  }
  const uint32_t g0 = layout_.GroupOf(goal);
  for (int pass = 0; pass < 2; ++pass) {
    const uint32_t need = pass == 0 ? len : minlen;
    // The goal's group is scanned from the goal first and, after every
    // other group, once more from its start (k == groups).
    for (uint32_t k = 0; k <= layout_.groups; ++k) {
      const uint32_t g = (g0 + k) % layout_.groups;
      if (gd_[g].free_blocks < need) continue;
      const uint32_t first = layout_.GroupFirst(g), n = layout_.GroupBlocks(g);
      if (k == layout_.groups && goal <= first) break;  // already scanned whole
      stats_.groups_scanned.Inc();
      // In the goal's group, start at the goal.
      uint32_t i = (k == 0 && goal > first) ? goal - first : 0;
      uint32_t best = 0, best_len = 0;
      while ((i = NextFree(g, i)) < n) {
        const uint32_t run = FreeRunAt(first + i, std::min(len, n - i));
        if (run >= need) {
          *got = run;
          return first + i;
        }
        if (run > best_len) {
          best_len = run;
          best = first + i;
        }
        i += run + 1;
      }
      if (pass == 1 && best_len >= minlen) {
        *got = best_len;
        return best;
      }
    }
  }
  *got = 0;
  return 0;
}

void Ext4::TakeBlocks(uint32_t start, uint32_t len) {
  for (uint32_t b = start; b < start + len; ++b) {
    const uint32_t g = layout_.GroupOf(b), i = b % layout_.blocks_per_group;
    CHECK(!Bit(bbits_[g], i) && !Bit(busy_bits_[g], i)) << "block " << b << " allocated twice";
    bbits_[g][i / 64] |= uint64_t{1} << (i % 64);
    --gd_[g].free_blocks;
    if (i == 0 || b == start) DirtyGroup(g, true, false);
  }
}

// Freed blocks leave the on-disk bitmap now and become allocatable once the
// transaction freeing them committed; freed metadata blocks are revoked.
void Ext4::FreeBlocks(uint32_t start, uint32_t len, bool metadata) {
  if (len == 0) return;
  Tx& t = Running();
  for (uint32_t b = start; b < start + len; ++b) {
    const uint32_t g = layout_.GroupOf(b), i = b % layout_.blocks_per_group;
    CHECK(Bit(bbits_[g], i)) << "block " << b << " freed twice";
    bbits_[g][i / 64] &= ~(uint64_t{1} << (i % 64));
    busy_bits_[g][i / 64] |= uint64_t{1} << (i % 64);
    ++busy_blocks_;
    ++gd_[g].free_blocks;
    if (i == 0 || b == start) DirtyGroup(g, true, false);
    if (metadata) {
      dyn_meta_.erase(b);
      Revoke(b);
    }
  }
  t.freed.emplace_back(start, len);
}

// Preallocated blocks never handed out go back at once: no transaction
// recorded them.
void Ext4::ReleaseUnused(uint32_t start, uint32_t len) {
  for (uint32_t b = start; b < start + len; ++b) {
    const uint32_t g = layout_.GroupOf(b), i = b % layout_.blocks_per_group;
    CHECK(Bit(busy_bits_[g], i)) << "preallocated block " << b << " not held";
    busy_bits_[g][i / 64] &= ~(uint64_t{1} << (i % 64));
    --busy_blocks_;
  }
}

// A preallocation holds its blocks in busy_bits_ (not on disk) until used.
void Ext4::DropInodePrealloc(Inode* in) {
  if (in->pa_len > 0) ReleaseUnused(in->pa_pblk, in->pa_len);
  in->pa_len = 0;
}

// ext4_mb_discard_preallocations: every preallocation goes back.
void Ext4::DiscardAllPrealloc() {
  for (auto& [ino, n] : inodes_) DropInodePrealloc(n.get());
  if (lg_len_ > 0) ReleaseUnused(lg_pblk_, lg_len_);
  lg_len_ = 0;
}

uint32_t Ext4::AllocMeta(const Inode* in, uint32_t goal) {
  (void)in;
  uint32_t got = 0;
  uint32_t b = FindFree(goal, 1, 1, &got);
  if (got == 0) {
    DiscardAllPrealloc();
    b = FindFree(goal, 1, 1, &got);
  }
  CHECK_GT(got, 0u) << "no free block for metadata (space checks let it through)";
  TakeBlocks(b, 1);
  return b;
}

// Allocates up to `want` blocks for file blocks from `lblk`: from the
// inode's preallocation, the locality group's, or a normalized request.
uint32_t Ext4::AllocData(Inode* in, uint32_t lblk, uint32_t want, uint32_t* got) {
  auto hold = [&](uint32_t s, uint32_t n) {
    for (uint32_t b = s; b < s + n; ++b) {
      const uint32_t g = layout_.GroupOf(b), i = b % layout_.blocks_per_group;
      busy_bits_[g][i / 64] |= uint64_t{1} << (i % 64);
      ++busy_blocks_;
    }
  };
  auto take_held = [&](uint32_t s, uint32_t n) {
    ReleaseUnused(s, n);
    TakeBlocks(s, n);
  };
  // The inode's preallocation continues where the file left off.
  if (in->pa_len > 0 && in->pa_lblk == lblk) {
    const uint32_t n = std::min(want, in->pa_len);
    const uint32_t b = in->pa_pblk;
    take_held(b, n);
    in->pa_pblk += n;
    in->pa_lblk += n;
    in->pa_len -= n;
    *got = n;
    return b;
  }
  DropInodePrealloc(in);
  uint32_t goal = InodeGoal(in);
  auto prev = in->ext.upper_bound(lblk);
  if (prev != in->ext.begin()) {
    --prev;
    goal = prev->second.pblk + (lblk - prev->first);
  }
  const uint64_t file_blocks = std::max<uint64_t>((in->size + kBlockSize - 1) / kBlockSize, lblk + want);
  if (file_blocks < cfg_.mb_stream_request) {
    // Locality group: small files share a preallocated chunk.
    if (lg_len_ < want) {
      if (lg_len_ > 0) ReleaseUnused(lg_pblk_, lg_len_);
      lg_len_ = 0;
      uint32_t n = 0;
      uint32_t b = FindFree(lg_pblk_ > 0 ? lg_pblk_ : goal, cfg_.mb_group_prealloc, want, &n);
      if (n == 0) {
        DiscardAllPrealloc();
        b = FindFree(goal, cfg_.mb_group_prealloc, 1, &n);
        n = std::min(n, want);
      }
      if (n == 0) {
        *got = 0;
        return 0;
      }
      hold(b, n);
      lg_pblk_ = b;
      lg_len_ = n;
      stats_.lg_prealloc.Inc();
    }
    const uint32_t n = std::min(want, lg_len_);
    const uint32_t b = lg_pblk_;
    take_held(b, n);
    lg_pblk_ += n;
    lg_len_ -= n;
    *got = n;
    return b;
  }
  // ext4_mb_normalize_request: the request grows to the file's size class
  // (16 KiB ... 8 MiB, powers of 2), aligned to it; larger requests stay.
  uint64_t end_bytes = file_blocks * kBlockSize;
  uint64_t size = 16 << 10;
  while (size < end_bytes && size < (uint64_t{8} << 20)) size <<= 1;
  uint32_t norm_start = lblk, norm_len = want;
  if (end_bytes <= (uint64_t{8} << 20)) {
    const uint32_t sb = static_cast<uint32_t>(size / kBlockSize);
    norm_start = lblk / sb * sb;
    norm_len = std::max<uint32_t>(want, norm_start + sb - lblk);
  }
  (void)norm_start;
  norm_len = std::min(norm_len, kMaxExtentLen);
  uint32_t n = 0;
  uint32_t b = FindFree(goal, norm_len, 1, &n);
  if (n == 0) {
    DiscardAllPrealloc();
    b = FindFree(goal, norm_len, 1, &n);
  }
  if (n == 0) {
    *got = 0;
    return 0;
  }
  const uint32_t use = std::min(n, want);
  TakeBlocks(b, use);
  if (n > use) {
    hold(b + use, n - use);
    in->pa_pblk = b + use;
    in->pa_lblk = lblk + use;
    in->pa_len = n - use;
    stats_.inode_prealloc.Inc();
  }
  *got = use;
  return b;
}

// find_group_orlov / find_group_other on flex groups, then the lowest free
// inode of the first group of the chosen flex group that has one.
uint32_t Ext4::AllocInodeNumber(bool is_dir, const Inode* parent) {
  const uint32_t F = layout_.flex_bg;
  const uint32_t flexes = (layout_.groups + F - 1) / F;
  auto flex_free_inodes = [&](uint32_t f) {
    uint64_t n = 0;
    for (uint32_t g = f * F; g < std::min(layout_.groups, (f + 1) * F); ++g) n += gd_[g].free_inodes;
    return n;
  };
  auto flex_free_blocks = [&](uint32_t f) {
    uint64_t n = 0;
    for (uint32_t g = f * F; g < std::min(layout_.groups, (f + 1) * F); ++g) n += gd_[g].free_blocks;
    return n;
  };
  auto flex_dirs = [&](uint32_t f) {
    uint64_t n = 0;
    for (uint32_t g = f * F; g < std::min(layout_.groups, (f + 1) * F); ++g) n += gd_[g].used_dirs;
    return n;
  };
  uint64_t total_fi = 0, total_fb = 0;
  for (const GroupDesc& g : gd_) {
    total_fi += g.free_inodes;
    total_fb += g.free_blocks;
  }
  if (total_fi == 0) return 0;
  const uint32_t pf = parent->group / F;
  uint32_t chosen = UINT32_MAX;
  if (is_dir && parent->ino == kRootIno) {
    // Orlov: spread top-level directories.
    const uint64_t avg_fi = total_fi / flexes, avg_fb = total_fb / flexes;
    const uint32_t start = static_cast<uint32_t>(rng_.Uniform(flexes));
    uint64_t best_dirs = UINT64_MAX;
    for (uint32_t k = 0; k < flexes; ++k) {
      const uint32_t f = (start + k) % flexes;
      if (flex_free_inodes(f) < avg_fi || flex_free_blocks(f) < avg_fb) continue;
      if (flex_dirs(f) < best_dirs) {
        best_dirs = flex_dirs(f);
        chosen = f;
      }
    }
  } else if (is_dir) {
    const uint64_t min_fi = total_fi / flexes / 4, min_fb = total_fb / flexes / 4;
    for (uint32_t k = 0; k < flexes && chosen == UINT32_MAX; ++k) {
      const uint32_t f = (pf + k) % flexes;
      if (flex_free_inodes(f) > min_fi && flex_free_blocks(f) >= min_fb) chosen = f;
    }
  } else {
    for (uint32_t k = 0; k < flexes && chosen == UINT32_MAX; ++k) {
      const uint32_t f = (pf + k) % flexes;
      if (flex_free_inodes(f) > 0 && (k > 0 || flex_free_blocks(f) > 0)) chosen = f;
    }
  }
  if (chosen == UINT32_MAX) {
    for (uint32_t f = 0; f < flexes && chosen == UINT32_MAX; ++f)
      if (flex_free_inodes(f) > 0) chosen = f;
  }
  // Within the flex group: the parent's group first for files.
  std::vector<uint32_t> order;
  if (!is_dir && parent->group / F == chosen) order.push_back(parent->group);
  for (uint32_t g = chosen * F; g < std::min(layout_.groups, (chosen + 1) * F); ++g) order.push_back(g);
  for (uint32_t g : order) {
    if (gd_[g].free_inodes == 0) continue;
    for (uint32_t i = 0; i < layout_.inodes_per_group; ++i) {
      if (Bit(ibits_[g], i)) continue;
      ibits_[g][i / 64] |= uint64_t{1} << (i % 64);
      --gd_[g].free_inodes;
      if (is_dir) ++gd_[g].used_dirs;
      const uint32_t used_end = layout_.inodes_per_group - gd_[g].itable_unused;
      if (i + 1 > used_end) gd_[g].itable_unused = layout_.inodes_per_group - (i + 1);
      DirtyGroup(g, false, true);
      const uint32_t ino = g * layout_.inodes_per_group + i + 1;
      // EXT4_STATE_NEW: a table block with no other inode in use is not read.
      const uint32_t ipb = layout_.InodesPerBlock();
      const uint32_t first_in_block = i / ipb * ipb;
      bool others = false;
      for (uint32_t j = first_in_block; j < first_in_block + ipb && j < layout_.inodes_per_group; ++j)
        if (j != i && Bit(ibits_[g], j)) others = true;
      if (!others) MakeResident(layout_.InodeBlock(ino));
      return ino;
    }
  }
  return 0;
}

// ---------------------------------------------------------------------------
// Reads

sim::Task<void> Ext4::ReadPages(Inode* in, uint64_t first, uint64_t last) {
  const uint32_t ino = in->ino;
  // The extent tree first.
  co_await ReadMeta(ExtentBlocksFor(in));
  auto it = inodes_.find(ino);
  if (it == inodes_.end() || dead_) co_return;
  in = it->second.get();
  co_await Cpu(cfg_.cpu.extent_lookup * static_cast<int64_t>(1 + in->depth));
  it = inodes_.find(ino);
  if (it == inodes_.end() || dead_) co_return;
  in = it->second.get();
  // Pages not cached: holes and blocks beyond the on-disk size read as
  // zeros; mapped ones are read, merged by contiguous volume blocks.
  struct Want {
    uint64_t index;
    uint32_t pblk;
    DataPage* page;
  };
  std::vector<Want> reads;
  bool waiting_other = false;
  for (uint64_t p = first; p <= last; ++p) {
    if (DataPage* cached = in->pages.Find(p)) {
      if (!cached->uptodate) waiting_other = true;
      cache_.Touch(cached);
      continue;
    }
    cache_.Admit();
    auto page = std::make_unique<DataPage>();
    page->ino = ino;
    page->index = p;
    const uint32_t pblk = MapBlock(in, static_cast<uint32_t>(p));
    if (pblk != 0) {
      page->uptodate = false;
      page->pin = 1;
    }
    DataPage* raw = in->pages.Insert(p, std::move(page));
    if (pblk != 0) reads.push_back({p, pblk, raw});
    if (raw->uptodate) cache_.MaybeLru(raw);
  }
  size_t i = 0;
  uint64_t pending = 0;
  const uint32_t max_blocks = static_cast<uint32_t>(cfg_.max_io.value / kBlockSize);
  while (i < reads.size()) {
    size_t j = i + 1;
    while (j < reads.size() && reads[j].pblk == reads[j - 1].pblk + 1 && reads[j].index == reads[j - 1].index + 1 &&
           j - i < max_blocks)
      ++j;
    std::vector<DataPage*> pages;
    for (size_t k = i; k < j; ++k) pages.push_back(reads[k].page);
    const uint32_t start = reads[i].pblk;
    ++pending;
    // Pinned pages outlive truncation as zombies: the pointers stay valid
    // until unpinned here. A page rewritten meanwhile keeps the new data.
    SubmitRead(start, static_cast<uint32_t>(j - i), IoKind::kData, [this, pages, start, &pending] {
      --pending;
      for (size_t k = 0; k < pages.size(); ++k) {
        DataPage* pg = pages[k];
        if (!pg->uptodate) {
          pg->content = image_->Read(BlockNo{start + static_cast<uint32_t>(k)});
          if (pg->content && pg->content->type != Block::Type::kData) pg->content = nullptr;
          pg->uptodate = true;
        }
        cache_.Unpin(pg);
      }
    });
    stats_.data_read_requests.Inc();
    i = j;
  }
  while ((pending > 0 || waiting_other) && !dead_) {
    co_await io_wq_.Wait();
    waiting_other = false;
    auto it2 = inodes_.find(ino);
    if (it2 == inodes_.end()) continue;
    for (uint64_t p = first; p <= last; ++p) {
      const DataPage* cached = it2->second->pages.Find(p);
      if (cached != nullptr && !cached->uptodate) waiting_other = true;
    }
  }
}

sim::Task<FsResult<uint64_t>> Ext4::DoRead(OpenFile* f, uint64_t offset, uint8_t* out, uint64_t len) {
  using R = FsResult<uint64_t>;
  const uint32_t ino = f->ino;
  Inode* in = inodes_.at(ino).get();
  if (in->is_dir) co_return R{0, Errno::kIsDir};
  if (!Readable(f->flags)) co_return R{0, Errno::kBadF};
  if (len == 0) co_return R{0, Errno::kOk};
  TouchAtime(in);  // filemap_read -> file_accessed, at end of file too
  if (offset >= in->size) co_return R{0, Errno::kOk};
  const uint64_t n = std::min(len, in->size - offset);
  const uint64_t first = offset / kBlockSize, last = (offset + n - 1) / kBlockSize;
  // Sequential readers read ahead `readahead` past what they asked.
  uint64_t ra_last = last;
  if (first == in->ra_next || first == 0) {
    const uint64_t ra = std::max<uint64_t>(1, cfg_.page_cache.readahead.value / kBlockSize);
    const uint64_t eof = (in->size + kBlockSize - 1) / kBlockSize;
    ra_last = std::min(last + ra, eof == 0 ? 0 : eof - 1);
    // Read ahead only when the window is not cached yet.
    if (in->pages.Contains(ra_last)) ra_last = last;
  }
  in->ra_next = last + 1;
  co_await ReadPages(in, first, ra_last);
  auto it = inodes_.find(ino);
  if (it == inodes_.end() || dead_) co_return R{0, Errno::kIo};
  in = it->second.get();
  const uint64_t m = offset < in->size ? std::min(n, in->size - offset) : 0;
  uint64_t done = 0;
  while (done < m) {
    const uint64_t pos = offset + done;
    const uint64_t p = pos / kBlockSize, in_page = pos % kBlockSize;
    const uint64_t chunk = std::min(m - done, kBlockSize - in_page);
    if (out != nullptr) {
      const DataPage* cached = in->pages.Find(p);
      const DataBlock* d = cached == nullptr ? nullptr : As<DataBlock>(cached->content);
      if (d) {
        std::memcpy(out + done, d->bytes.data() + in_page, chunk);
      } else {
        std::memset(out + done, 0, chunk);
      }
    }
    done += chunk;
  }
  co_await Cpu(cfg_.cpu.memcpy_page * static_cast<int64_t>(last - first + 1));
  stats_.app_bytes_read.Inc(m);
  co_return R{m, Errno::kOk};
}

sim::Task<FsResult<uint64_t>> Ext4::Read(Fd fd, std::span<uint8_t> out) {
  OpLatencies::Scope op_scope(&ops_, q_, FsOp::kRead, &dead_);
  co_await Cpu(cfg_.cpu.syscall);
  OpenFile* f = FileOf(fd);
  if (f == nullptr) co_return FsResult<uint64_t>{0, Errno::kBadF};
  FsResult<uint64_t> r = co_await DoRead(f, f->pos, out.data(), out.size());
  if (r.ok() && (f = FileOf(fd)) != nullptr) f->pos += r.value;
  co_return r;
}

sim::Task<FsResult<uint64_t>> Ext4::Pread(Fd fd, uint64_t offset, std::span<uint8_t> out) {
  OpLatencies::Scope op_scope(&ops_, q_, FsOp::kPread, &dead_);
  co_await Cpu(cfg_.cpu.syscall);
  OpenFile* f = FileOf(fd);
  if (f == nullptr) co_return FsResult<uint64_t>{0, Errno::kBadF};
  co_return co_await DoRead(f, offset, out.data(), out.size());
}

sim::Task<FsResult<uint64_t>> Ext4::ReadDiscard(Fd fd, uint64_t length) {
  OpLatencies::Scope op_scope(&ops_, q_, FsOp::kRead, &dead_);
  co_await Cpu(cfg_.cpu.syscall);
  OpenFile* f = FileOf(fd);
  if (f == nullptr) co_return FsResult<uint64_t>{0, Errno::kBadF};
  FsResult<uint64_t> r = co_await DoRead(f, f->pos, nullptr, length);
  if (r.ok() && (f = FileOf(fd)) != nullptr) f->pos += r.value;
  co_return r;
}

sim::Task<FsResult<uint64_t>> Ext4::PreadDiscard(Fd fd, uint64_t offset, uint64_t length) {
  OpLatencies::Scope op_scope(&ops_, q_, FsOp::kPread, &dead_);
  co_await Cpu(cfg_.cpu.syscall);
  OpenFile* f = FileOf(fd);
  if (f == nullptr) co_return FsResult<uint64_t>{0, Errno::kBadF};
  co_return co_await DoRead(f, offset, nullptr, length);
}

// ---------------------------------------------------------------------------
// Writes

sim::Task<FsResult<uint64_t>> Ext4::DoWrite(OpenFile* f, uint64_t offset, std::span<const uint8_t> data,
                                            uint64_t length) {
  using R = FsResult<uint64_t>;
  const uint32_t ino = f->ino;
  Inode* in = inodes_.at(ino).get();
  if (in->is_dir || !Writable(f->flags)) co_return R{0, Errno::kBadF};
  if (f->flags & kAppend) offset = in->size;
  if (length == 0) co_return R{0, Errno::kOk};
  if (offset > kMaxFileSize || length > kMaxFileSize - offset) co_return R{0, Errno::kFBig};
  const uint32_t flags = f->flags;
  // inode_lock for the whole write, balance_dirty_pages inside it: dirty
  // pages and pages under writeback together stay below dirty_ratio.
  co_await ILock(ino).LockExclusive();
  vfs::ExclusiveLock held(&ILock(ino));
  co_await wb_.Throttle([this] { return dead_; });
  const double limit = static_cast<double>(cache_.limit()) * cfg_.page_cache.dirty_ratio.value;
  while (!dead_ && static_cast<double>(wb_.dirty_pages() + writeback_pages_) > limit) {
    wb_.Kick();
    co_await io_wq_.Wait();
  }
  auto it = inodes_.find(ino);
  if (it == inodes_.end() || dead_) co_return R{0, Errno::kIo};
  in = it->second.get();
  if (flags & kAppend) offset = in->size;
  const uint64_t end = offset + length;
  const uint64_t first = offset / kBlockSize, last = (end - 1) / kBlockSize;
  // Partial pages over existing data are read first.
  std::vector<uint64_t> rmw;
  if (offset % kBlockSize != 0) rmw.push_back(first);
  if (end % kBlockSize != 0 && (rmw.empty() || rmw.back() != last)) rmw.push_back(last);
  for (uint64_t p : rmw) {
    if (p * kBlockSize >= in->size) continue;
    const DataPage* cached = in->pages.Find(p);
    if (cached != nullptr && cached->uptodate) continue;
    co_await ReadPages(in, p, p);
    it = inodes_.find(ino);
    if (it == inodes_.end() || dead_) co_return R{0, Errno::kIo};
    in = it->second.get();
  }
  // Space: every page without a block needs one (and some metadata).
  uint64_t fresh = 0;
  for (uint64_t p = first; p <= last; ++p) {
    const DataPage* cached = in->pages.Find(p);
    if (cached != nullptr && cached->delalloc) continue;
    if (MapBlock(in, static_cast<uint32_t>(p)) == 0) ++fresh;
  }
  if (reserved_blocks_ + fresh + 8 > AvailBlocks() && busy_blocks_ > 0) {
    // ext4_should_retry_alloc: blocks freed by a transaction not yet
    // committed come back once it commits; preallocations are dropped.
    DiscardAllPrealloc();
    if (running_) co_await ForceCommit(running_->tid);
    if (committing_tid_ != 0) co_await ForceCommit(committing_tid_);
    it = inodes_.find(ino);
    if (it == inodes_.end() || dead_) co_return R{0, Errno::kIo};
    in = it->second.get();
  }
  if (reserved_blocks_ + fresh + 8 > AvailBlocks()) co_return R{0, Errno::kNoSpc};
  uint64_t done = 0;
  for (uint64_t p = first; p <= last; ++p) {
    const uint64_t pos = std::max(offset, p * kBlockSize);
    const uint64_t in_page = pos % kBlockSize;
    const uint64_t chunk = std::min(end - pos, kBlockSize - in_page);
    DataPage* pg = in->pages.Find(p);
    if (pg == nullptr) {
      cache_.Admit();
      auto page = std::make_unique<DataPage>();
      page->ino = ino;
      page->index = p;
      pg = in->pages.Insert(p, std::move(page));
    } else {
      cache_.Touch(pg);
    }
    if (chunk == kBlockSize && data.empty()) {
      pg->content = nullptr;
    } else {
      auto nb = std::make_shared<DataBlock>();
      if (const DataBlock* old = As<DataBlock>(pg->content)) nb->bytes = old->bytes;
      if (!data.empty()) {
        std::memcpy(nb->bytes.data() + in_page, data.data() + done, chunk);
      } else {
        std::memset(nb->bytes.data() + in_page, 0, chunk);
      }
      pg->content = std::move(nb);
    }
    pg->uptodate = true;
    done += chunk;
    if (!pg->dirty) {
      pg->dirty = true;
      ++in->dirty_pages;
      wb_.FileDataDirtied(ino, &in->wb);
      cache_.LruRemove(pg);
    }
    if (!pg->delalloc && MapBlock(in, static_cast<uint32_t>(p)) == 0) {
      pg->delalloc = true;
      ++in->delalloc_pages;
      ++reserved_blocks_;
    }
  }
  in->size = std::max(in->size, end);
  // file_update_time: when the coarse clock moved, ext4_dirty_inode logs the
  // inode under a handle (which waits out a commit's locked phase).
  if (in->mtime != Stamp() || in->ctime != Stamp()) {
    Handle h = co_await StartHandle();
    it = inodes_.find(ino);
    if (it == inodes_.end() || dead_) co_return R{0, Errno::kIo};
    in = it->second.get();
    UpdateTimes(in);
  }
  stats_.app_bytes_written.Inc(length);
  co_await Cpu(cfg_.cpu.memcpy_page * static_cast<int64_t>(last - first + 1));
  if (!cfg_.delalloc) co_await WritebackUnderHandle(ino);
  if (flags & (kSync | kDirect)) {
    it = inodes_.find(ino);
    if (it != inodes_.end()) {
      FsStatus s = co_await DoFsync(it->second.get(), (flags & kDirect) && !(flags & kSync));
      if (!s.ok()) co_return R{0, s.err};
    }
  }
  co_return R{length, Errno::kOk};
}

sim::Task<FsResult<uint64_t>> Ext4::Write(Fd fd, std::span<const uint8_t> data, uint64_t length) {
  OpLatencies::Scope op_scope(&ops_, q_, FsOp::kWrite, &dead_);
  co_await Cpu(cfg_.cpu.syscall);
  OpenFile* f = FileOf(fd);
  if (f == nullptr) co_return FsResult<uint64_t>{0, Errno::kBadF};
  FsResult<uint64_t> r = co_await DoWrite(f, f->pos, data, length);
  if (r.ok() && r.value > 0 && (f = FileOf(fd)) != nullptr) {
    auto it = inodes_.find(f->ino);
    f->pos = (f->flags & kAppend) && it != inodes_.end() ? it->second->size : f->pos + r.value;
  }
  co_return r;
}

sim::Task<FsResult<uint64_t>> Ext4::Pwrite(Fd fd, uint64_t offset, std::span<const uint8_t> data,
                                           uint64_t length) {
  OpLatencies::Scope op_scope(&ops_, q_, FsOp::kPwrite, &dead_);
  co_await Cpu(cfg_.cpu.syscall);
  OpenFile* f = FileOf(fd);
  if (f == nullptr) co_return FsResult<uint64_t>{0, Errno::kBadF};
  co_return co_await DoWrite(f, offset, data, length);
}

// ---------------------------------------------------------------------------
// Writeback (ext4_writepages with delayed allocation)

uint64_t Ext4::WritebackPages(Inode* in, uint64_t max_pages) {
  if (dead_) return 0;
  std::vector<DataPage*> todo;
  in->pages.ForEach(0, UINT64_MAX, [&](uint64_t, DataPage* p) {
    if (!p->dirty) return true;
    todo.push_back(p);
    return max_pages == 0 || todo.size() < max_pages;
  });
  if (todo.empty()) return 0;
  Tx& t = Running();
  const uint32_t tid = t.tid;
  // Allocate each run of delayed pages at once.
  bool allocated = false;
  for (size_t i = 0; i < todo.size();) {
    if (!todo[i]->delalloc) {
      ++i;
      continue;
    }
    size_t j = i + 1;
    while (j < todo.size() && todo[j]->delalloc && todo[j]->index == todo[j - 1]->index + 1) ++j;
    uint32_t lblk = static_cast<uint32_t>(todo[i]->index);
    uint32_t left = static_cast<uint32_t>(j - i);
    size_t k = i;
    while (left > 0) {
      uint32_t got = 0;
      const uint32_t b = AllocData(in, lblk, std::min(left, kMaxExtentLen), &got);
      CHECK_GT(got, 0u) << "no space for reserved delayed blocks";
      InsertExtent(in, lblk, b, got);
      for (uint32_t m = 0; m < got; ++m, ++k) {
        todo[k]->delalloc = false;
        --in->delalloc_pages;
        --reserved_blocks_;
      }
      lblk += got;
      left -= got;
    }
    allocated = true;
    i = j;
  }
  if (allocated) {
    // i_disksize follows the data now mapped (ordered: written before the
    // commit that records it).
    const uint64_t mapped_end = (todo.back()->index + 1) * kBlockSize;
    in->disksize = std::max(in->disksize, std::min(in->size, mapped_end));
    DirtyInode(in, true);
  } else if (in->disksize < in->size) {
    in->disksize = std::min(in->size, (todo.back()->index + 1) * kBlockSize);
    DirtyInode(in, true);
  }
  // Submit, merged by contiguous volume blocks.
  const uint32_t max_blocks = static_cast<uint32_t>(cfg_.max_io.value / kBlockSize);
  const uint32_t ino = in->ino;
  for (size_t i = 0; i < todo.size();) {
    const uint32_t b0 = MapBlock(in, static_cast<uint32_t>(todo[i]->index));
    size_t j = i + 1;
    while (j < todo.size() && todo[j]->index == todo[j - 1]->index + 1 &&
           MapBlock(in, static_cast<uint32_t>(todo[j]->index)) == b0 + (j - i) && j - i < max_blocks)
      ++j;
    std::vector<BlockPtr> contents;
    std::vector<DataPage*> pages;
    for (size_t k = i; k < j; ++k) {
      DataPage* p = todo[k];
      contents.push_back(p->content);
      pages.push_back(p);
      p->dirty = false;
      ++p->writeback;
      --in->dirty_pages;
      wb_.FileDataCleaned(&in->wb, in->dirty_pages);
    }
    ++in->writes_in_flight;
    writeback_pages_ += pages.size();
    if (allocated) ++t.ordered;
    const bool ordered = allocated;
    const uint64_t gen = in->gen;
    SubmitWrite(b0, std::move(contents), IoKind::kData, false, [this, pages, ino, gen, ordered, tid] {
      for (DataPage* p : pages) cache_.WritebackDone(p);
      writeback_pages_ -= pages.size();
      // The inode may have been freed meanwhile and its number reused.
      auto it = inodes_.find(ino);
      if (it != inodes_.end() && it->second->gen == gen) --it->second->writes_in_flight;
      if (ordered) {
        if (running_ && running_->tid == tid) {
          --running_->ordered;
        } else {
          --committing_ordered_;
        }
      }
    });
    i = j;
  }
  return todo.size();
}

sim::Task<void> Ext4::WaitFileWrites(uint32_t ino) {
  for (;;) {
    auto it = inodes_.find(ino);
    if (it == inodes_.end() || it->second->writes_in_flight == 0 || dead_) co_return;
    co_await io_wq_.Wait();
  }
}

vfs::WritebackState* Ext4::FindWritebackState(uint64_t id, uint64_t* dirty_pages) {
  auto it = inodes_.find(static_cast<uint32_t>(id));
  if (it == inodes_.end()) return nullptr;
  *dirty_pages = it->second->dirty_pages;
  return &it->second->wb;
}

sim::Task<bool> Ext4::WritebackFile(uint64_t id, uint64_t max_pages) {
  auto it = inodes_.find(static_cast<uint32_t>(id));
  if (it == inodes_.end()) co_return false;
  // The flusher writes a file whole, not max_pages of it: the kernel's
  // chunk is at least MIN_WRITEBACK_PAGES (16 MiB; writeback_chunk_size),
  // and an inode left with dirty pages is requeued (requeue_io) and written
  // again in the same wb_writeback pass, so an expired file goes out at
  // once rather than a chunk per 5 s wake-up behind files not yet expired.
  (void)max_pages;
  co_await WritebackUnderHandle(static_cast<uint32_t>(id));
  it = inodes_.find(static_cast<uint32_t>(id));
  co_return it != inodes_.end() && it->second->dirty_pages > 0 && it->second->wb.on_list;
}

sim::Task<void> Ext4::WritebackUnderHandle(uint32_t ino) {
  auto it = inodes_.find(ino);
  // ext4_writepages starts a handle only when there is something to write.
  if (it == inodes_.end() || it->second->dirty_pages == 0 || dead_) co_return;
  Handle h = co_await StartHandle();
  it = inodes_.find(ino);
  if (it == inodes_.end() || dead_) co_return;
  WritebackPages(it->second.get(), 0);
}

// ---------------------------------------------------------------------------
// Truncate

sim::Task<Errno> Ext4::DoTruncate(Inode* in, uint64_t size) {
  if (size > kMaxFileSize) co_return Errno::kFBig;
  const uint32_t ino = in->ino;
  // ext4_setattr / ext4_truncate change the inode and its extents under a
  // handle; ext4_truncate starts it before ext4_block_truncate_page reads
  // the partial last block to zero its tail, so a commit's locked phase
  // waits for that read.
  Handle h = co_await StartHandle();
  {
    auto it = inodes_.find(ino);
    if (it == inodes_.end() || dead_) co_return Errno::kIo;
    in = it->second.get();
  }
  if (size < in->size && size % kBlockSize != 0) {
    const uint64_t p = size / kBlockSize;
    const DataPage* cached = in->pages.Find(p);
    if (cached == nullptr || !cached->uptodate) {
      co_await ReadPages(in, p, p);
      auto it = inodes_.find(ino);
      if (it == inodes_.end() || dead_) co_return Errno::kIo;
      in = it->second.get();
    }
  }
  if (size < in->size && !in->tree.empty()) {
    // ext4_ext_remove_space walks the extent tree (read_extent_tree_block)
    // under the handle before it frees the blocks past the new end.
    co_await ReadMeta(ExtentBlocksFor(in));
    auto it = inodes_.find(ino);
    if (it == inodes_.end() || dead_) co_return Errno::kIo;
    in = it->second.get();
  }
  if (size < in->size) {
    const uint64_t keep = (size + kBlockSize - 1) / kBlockSize;
    for (const uint64_t idx : in->pages.Indices(keep)) {
      std::unique_ptr<DataPage> p = in->pages.Take(idx);
      if (p->dirty) {
        p->dirty = false;
        wb_.FileDataCleaned(&in->wb, --in->dirty_pages);
      }
      if (p->delalloc) {
        --in->delalloc_pages;
        --reserved_blocks_;
      }
      cache_.Detach(std::move(p));
    }
    if (size % kBlockSize != 0) {
      DataPage* tail = in->pages.Find(size / kBlockSize);
      if (tail != nullptr && tail->content) {
        auto nb = std::make_shared<DataBlock>(*As<DataBlock>(tail->content));
        std::memset(nb->bytes.data() + size % kBlockSize, 0, kBlockSize - size % kBlockSize);
        tail->content = std::move(nb);
        if (!tail->dirty && MapBlock(in, static_cast<uint32_t>(size / kBlockSize)) != 0) {
          tail->dirty = true;
          ++in->dirty_pages;
          wb_.FileDataDirtied(ino, &in->wb);
          cache_.LruRemove(tail);
        }
      }
    }
    DropInodePrealloc(in);
    FreeExtentsFrom(in, static_cast<uint32_t>(keep));
    // ext4_setattr puts a shrinking inode on the orphan list for the
    // truncate (the superblock's s_last_orphan, then back).
    Dirty(0);
  }
  // ext4_setattr: the on-disk size is the new size, either way.
  in->size = size;
  in->disksize = size;
  in->mtime = in->ctime = Stamp();
  DirtyInode(in, true);
  // ext4_truncate: EXT4_STATE_DA_ALLOC_CLOSE on a file now empty.
  if (size == 0 && cfg_.auto_da_alloc) in->da_alloc_close = true;
  co_return Errno::kOk;
}

sim::Task<FsStatus> Ext4::Ftruncate(Fd fd, uint64_t size) {
  OpLatencies::Scope op_scope(&ops_, q_, FsOp::kFtruncate, &dead_);
  co_await Cpu(cfg_.cpu.syscall);
  OpenFile* f = FileOf(fd);
  if (f == nullptr) co_return FsStatus{false, Errno::kBadF};
  Inode* in = inodes_.at(f->ino).get();
  if (in->is_dir || !Writable(f->flags)) co_return FsStatus{false, Errno::kInval};
  const uint32_t ino = in->ino;
  co_await ILock(ino).LockExclusive();
  vfs::ExclusiveLock held(&ILock(ino));
  auto it = inodes_.find(ino);
  if (it == inodes_.end() || dead_) co_return FsStatus{false, Errno::kIo};
  const Errno e = co_await DoTruncate(it->second.get(), size);
  co_return FsStatus{e == Errno::kOk, e};
}

sim::Task<FsStatus> Ext4::Truncate(std::string_view path, uint64_t size) {
  OpLatencies::Scope op_scope(&ops_, q_, FsOp::kTruncate, &dead_);
  co_await Cpu(cfg_.cpu.syscall);
  co_await WarmPath(path);
  const Lookup l = Resolve(path);
  if (l.err != Errno::kOk) co_return FsStatus{false, l.err};
  if (l.node == nullptr) co_return FsStatus{false, Errno::kNoEnt};
  if (l.node->is_dir) co_return FsStatus{false, Errno::kIsDir};
  if (l.SlashOnFile()) co_return FsStatus{false, Errno::kNotDir};
  const Errno e = co_await DoTruncate(l.node, size);
  co_return FsStatus{e == Errno::kOk, e};
}

// ---------------------------------------------------------------------------
// fsync (ext4_sync_file)

sim::Task<FsStatus> Ext4::DoFsync(Inode* in, bool datasync) {
  const sim::SimTime start = q_->now();
  stats_.fsync_calls.Inc();
  const uint32_t ino = in->ino;
  co_await WritebackUnderHandle(ino);
  co_await WaitFileWrites(ino);
  if (dead_) co_return FsStatus{false, Errno::kIo};
  auto it = inodes_.find(ino);
  const uint32_t tid = it == inodes_.end() ? 0 : (datasync ? it->second->datasync_tid : it->second->sync_tid);
  if (tid > committed_tid_) {
    // jbd2_trans_will_send_data_barrier: a commit that already flushed the
    // cache does not cover the data just written; a flush follows it.
    const bool needs_barrier = cfg_.barrier && tid == committing_tid_ && commit_flush_sent_;
    stats_.fsync_commits.Inc();
    co_await ForceCommit(tid);
    if (needs_barrier) {
      stats_.fsync_flushes.Inc();
      co_await Flush();
    }
  } else if (cfg_.barrier) {
    stats_.fsync_flushes.Inc();
    co_await Flush();
  }
  stats_.fsync_lat.Record((q_->now() - start).ns());
  co_return FsStatus{!dead_, dead_ ? Errno::kIo : Errno::kOk};
}

// ext4_sync_file on a directory (journalled like data=journal, as every
// non-regular inode): ext4_force_commit — the running transaction commits,
// or the one committing is waited for, or nothing at all; never a flush of
// its own.
sim::Task<FsStatus> Ext4::DoDirFsync() {
  stats_.fsync_calls.Inc();
  if (running_ && (!running_->blocks.empty() || !running_->revokes.empty())) {
    stats_.fsync_commits.Inc();
    co_await ForceCommit(running_->tid);
  } else if (committing_tid_ != 0) {
    stats_.fsync_commits.Inc();
    co_await ForceCommit(committing_tid_);
  }
  co_return FsStatus{!dead_, dead_ ? Errno::kIo : Errno::kOk};
}

sim::Task<FsStatus> Ext4::Fsync(Fd fd) {
  OpLatencies::Scope op_scope(&ops_, q_, FsOp::kFsync, &dead_);
  co_await Cpu(cfg_.cpu.syscall);
  OpenFile* f = FileOf(fd);
  if (f == nullptr) co_return FsStatus{false, Errno::kBadF};
  Inode* in = inodes_.at(f->ino).get();
  if (in->is_dir) co_return co_await DoDirFsync();
  co_return co_await DoFsync(in, false);
}

sim::Task<FsStatus> Ext4::Fdatasync(Fd fd) {
  OpLatencies::Scope op_scope(&ops_, q_, FsOp::kFdatasync, &dead_);
  co_await Cpu(cfg_.cpu.syscall);
  OpenFile* f = FileOf(fd);
  if (f == nullptr) co_return FsStatus{false, Errno::kBadF};
  Inode* in = inodes_.at(f->ino).get();
  if (in->is_dir) co_return co_await DoDirFsync();
  co_return co_await DoFsync(in, true);
}

sim::Task<FsStatus> Ext4::Sync() {
  OpLatencies::Scope op_scope(&ops_, q_, FsOp::kSync, &dead_);
  co_await Cpu(cfg_.cpu.syscall);
  std::vector<uint32_t> inos;
  for (auto& [ino, n] : inodes_)
    if (n->dirty_pages > 0) inos.push_back(ino);
  std::sort(inos.begin(), inos.end());
  for (uint32_t ino : inos) co_await WritebackUnderHandle(ino);
  for (uint32_t ino : inos) co_await WaitFileWrites(ino);
  // ext4_sync_fs: the latest transaction commits (its commit block's flush
  // covers the data above), and only when no commit will send that flush
  // (nothing to commit, or the commit under way already sent it:
  // jbd2_trans_will_send_data_barrier) is the cache flushed on its own.
  bool needs_barrier = cfg_.barrier;
  if (running_ && (!running_->blocks.empty() || !running_->revokes.empty())) {
    needs_barrier = false;
    co_await ForceCommit(running_->tid);
  } else if (committing_tid_ != 0) {
    needs_barrier = cfg_.barrier && commit_flush_sent_;
  }
  if (committing_tid_ != 0) co_await ForceCommit(committing_tid_);
  if (needs_barrier) co_await Flush();
  // sync_blockdev: committed metadata goes home too (the log tail moves
  // at the next checkpoint).
  std::vector<uint32_t> home;
  for (const auto& [b, c] : ckpt_)
    if (c.writing_tid != c.tid) home.push_back(b);
  for (uint32_t b : home) WriteHome(b);
  for (;;) {
    bool writing = false;
    for (const auto& [b, c] : ckpt_)
      if (c.writing_tid == c.tid) writing = true;
    if (!writing || dead_) break;
    co_await io_wq_.Wait();
  }
  // The home writes (sync_bdevs) are waited for but not flushed: the
  // journal holds them durably.
  co_return FsStatus{!dead_, dead_ ? Errno::kIo : Errno::kOk};
}

}  // namespace fs::ext4
