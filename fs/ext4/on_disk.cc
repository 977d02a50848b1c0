#include "fs/ext4/on_disk.h"

#include <algorithm>

#include <fmt/format.h>

namespace fs::ext4 {
namespace {

bool IsPowerOf(uint32_t n, uint32_t base) {
  if (n == 0) return false;
  while (n % base == 0) n /= base;
  return n == 1;
}

// sparse_super: copies in groups 0, 1 and powers of 3, 5, 7.
bool GroupHasSuper(uint32_t g) { return g <= 1 || IsPowerOf(g, 3) || IsPowerOf(g, 5) || IsPowerOf(g, 7); }

}  // namespace

uint32_t DefaultJournalBlocks(uint64_t n) {
  if (n < 2048) return 0;
  if (n < 32768) return 1024;
  if (n < 256 * 1024) return 4096;
  if (n < 512 * 1024) return 8192;
  if (n < 4096 * 1024) return 16384;
  if (n < 8192 * 1024) return 32768;
  if (n < 16384 * 1024) return 65536;
  if (n < 32768 * 1024) return 131072;
  return 262144;
}

std::vector<std::pair<uint32_t, uint32_t>> Layout::MetadataRuns() const {
  std::vector<std::pair<uint32_t, uint32_t>> runs;
  for (uint32_t g = 0; g < groups; ++g) {
    if (has_super[g]) runs.emplace_back(GroupFirst(g), 1 + gdt_blocks);
    runs.emplace_back(block_bitmap[g], 1);
    runs.emplace_back(inode_bitmap[g], 1);
    runs.emplace_back(inode_table[g], itable_blocks);
  }
  if (journal_blocks > 0) runs.emplace_back(journal_start, journal_blocks);
  return runs;
}

sim::Result<Layout> ComputeLayout(uint64_t blocks64, uint32_t bpg, uint64_t inode_ratio, uint32_t inode_size,
                                  uint32_t flex_bg, uint32_t journal_blocks) {
  if (blocks64 > UINT32_MAX) return sim::Status::InvalidInput("more than 2^32 blocks (16 TiB)");
  if (blocks64 < 2048) return sim::Status::InvalidInput(fmt::format("{} blocks: at least 2048 (8 MiB)", blocks64));
  Layout l;
  l.blocks_per_group = bpg;
  l.inode_size = inode_size;
  l.flex_bg = flex_bg;
  uint64_t blocks = blocks64;
  l.groups = static_cast<uint32_t>((blocks + bpg - 1) / bpg);
  // mke2fs drops a last group too small to hold its own metadata and some data.
  const uint64_t last = blocks - uint64_t{l.groups - 1} * bpg;
  if (l.groups > 1 && last < 256) {
    blocks -= last;
    --l.groups;
  }
  l.blocks = static_cast<uint32_t>(blocks);
  const uint32_t per_block = kBlockSize / inode_size;
  uint64_t ipg = (blocks * kBlockSize / inode_ratio + l.groups - 1) / l.groups;
  ipg = std::max<uint64_t>(ipg, per_block);
  ipg = (ipg + per_block - 1) / per_block * per_block;
  ipg = std::min<uint64_t>(ipg, bpg);
  ipg = std::min<uint64_t>(ipg, uint64_t{kBlockSize} * 8);
  l.inodes_per_group = static_cast<uint32_t>(ipg);
  l.itable_blocks = l.inodes_per_group / per_block;
  l.gdt_blocks = (l.groups + kDescsPerBlock - 1) / kDescsPerBlock;
  l.has_super.resize(l.groups);
  for (uint32_t g = 0; g < l.groups; ++g) l.has_super[g] = GroupHasSuper(g);
  l.block_bitmap.resize(l.groups);
  l.inode_bitmap.resize(l.groups);
  l.inode_table.resize(l.groups);
  // flex_bg: a flex group's bitmaps, then its inode bitmaps, then its inode
  // tables, packed from the start of its first group (after any superblock
  // copy and descriptors).
  for (uint32_t f = 0; f * flex_bg < l.groups; ++f) {
    const uint32_t g0 = f * flex_bg;
    const uint32_t n = std::min(flex_bg, l.groups - g0);
    uint64_t at = l.GroupFirst(g0) + (l.has_super[g0] ? 1 + l.gdt_blocks : 0);
    // Groups of this flex group that start with a superblock copy inside the
    // packed run push it on (mke2fs skips over them the same way).
    auto place = [&](uint32_t len) -> uint64_t {
      for (;;) {
        bool clash = false;
        for (uint32_t g = g0 + 1; g < l.groups && uint64_t{l.GroupFirst(g)} < at + len; ++g) {
          if (!l.has_super[g]) continue;
          const uint64_t s = l.GroupFirst(g), e = s + 1 + l.gdt_blocks;
          if (at < e && s < at + len) {
            at = e;
            clash = true;
          }
        }
        if (!clash) break;
      }
      const uint64_t r = at;
      at += len;
      return r;
    };
    for (uint32_t i = 0; i < n; ++i) l.block_bitmap[g0 + i] = static_cast<uint32_t>(place(1));
    for (uint32_t i = 0; i < n; ++i) l.inode_bitmap[g0 + i] = static_cast<uint32_t>(place(1));
    for (uint32_t i = 0; i < n; ++i) l.inode_table[g0 + i] = static_cast<uint32_t>(place(l.itable_blocks));
    if (at > blocks) return sim::Status::InvalidInput("the volume cannot hold its inode tables");
  }
  // The journal: mke2fs puts it in the middle of the volume, at the first
  // free run from the start of the middle flex group.
  const uint32_t jb = journal_blocks > 0 ? journal_blocks : DefaultJournalBlocks(blocks);
  if (jb < 1024) return sim::Status::InvalidInput(fmt::format("journal of {} blocks: at least 1024", jb));
  std::vector<bool> used(blocks, false);
  for (auto [s, n] : l.MetadataRuns())
    for (uint32_t b = s; b < s + n; ++b) used[b] = true;
  const uint32_t mid_group = (l.groups / 2) & ~(flex_bg - 1);
  uint64_t found = UINT64_MAX;
  for (uint64_t pass = 0; pass < 2 && found == UINT64_MAX; ++pass) {
    uint64_t run = 0;
    for (uint64_t b = pass == 0 ? l.GroupFirst(mid_group) : 0; b < blocks; ++b) {
      run = used[b] ? 0 : run + 1;
      if (run == jb) {
        found = b + 1 - jb;
        break;
      }
    }
  }
  if (found == UINT64_MAX) return sim::Status::InvalidInput(fmt::format("no room for a journal of {} blocks", jb));
  l.journal_start = static_cast<uint32_t>(found);
  l.journal_blocks = jb;
  uint64_t meta = 0;
  for (auto [s, n] : l.MetadataRuns()) meta += n;
  if (meta + 64 > blocks) return sim::Status::InvalidInput("the volume is too small for its metadata and journal");
  return l;
}

}  // namespace fs::ext4
