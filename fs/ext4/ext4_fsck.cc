// fsck for the ext4 model (e2fsck's passes 1-5 at the level the model
// keeps): every block owned once and the bitmaps saying exactly that,
// group counts, extents and extent-tree shape, directory blocks within
// their size, entries naming live inodes, link counts, reachability.
#include <fmt/format.h>

#include "fs/ext4/ext4_internal.h"

namespace fs::ext4 {
namespace {

bool Bit(const std::vector<uint64_t>& w, uint32_t i) { return (w[i / 64] >> (i % 64)) & 1; }

}  // namespace

sim::Status Ext4::Check() const {
  const Layout& l = layout_;
  auto fail = [](std::string m) { return sim::Status::InvalidInput("fsck: " + m); };
  // Pass 1: who owns each block.
  std::vector<uint32_t> owner(l.blocks, 0);  // 0 free, 1 fs metadata, else inode number + 1
  auto own = [&](uint32_t b, uint32_t who, const char* what) -> std::string {
    if (b >= l.blocks) return fmt::format("{} block {} beyond the volume (owner {})", what, b, who);
    if (owner[b] != 0) return fmt::format("{} block {} owned twice ({} and {})", what, b, owner[b], who);
    owner[b] = who;
    return "";
  };
  for (auto [s, n] : l.MetadataRuns())
    for (uint32_t b = s; b < s + n; ++b)
      if (std::string e = own(b, 1, "metadata"); !e.empty()) return fail(e);
  uint32_t last_group_end = l.GroupBlocks(l.groups - 1);
  for (const auto& [ino, n] : inodes_) {
    uint32_t expect_lblk = 0;
    for (const auto& [lb, e] : n->ext) {
      if (lb < expect_lblk) return fail(fmt::format("inode {}: overlapping extents at {}", ino, lb));
      if (e.len == 0 || e.len > kMaxExtentLen) return fail(fmt::format("inode {}: extent length {}", ino, e.len));
      for (uint32_t k = 0; k < e.len; ++k)
        if (std::string m = own(e.pblk + k, ino + 1, "data"); !m.empty()) return fail(m);
      expect_lblk = lb + e.len;
    }
    for (uint32_t b : n->tree)
      if (std::string m = own(b, ino + 1, "extent tree"); !m.empty()) return fail(m);
    const size_t ne = n->ext.size();
    const uint32_t leaves = ne <= kInodeExtents ? 0 : static_cast<uint32_t>((ne + kExtentsPerBlock - 1) / kExtentsPerBlock);
    if (n->leaves != leaves) return fail(fmt::format("inode {}: {} extent leaves for {} extents", ino, n->leaves, ne));
    if (n->is_dir) {
      if (MapBlock(n.get(), static_cast<uint32_t>(n->dblocks.size() - 1)) == 0 || expect_lblk != n->dblocks.size())
        return fail(fmt::format("directory {}: {} blocks but extents end at {}", ino, n->dblocks.size(), expect_lblk));
      for (uint32_t lb = 0; lb < n->dblocks.size(); ++lb) {
        const Inode::Leaf& leaf = n->dblocks[lb];
        const uint32_t room = (!n->indexed && lb == 0) ? kDirLeafBytes - 24 : kDirLeafBytes;
        uint32_t used = 0;
        for (const std::string& name : leaf.names) {
          used += DirRecLen(name.size());
          auto c = n->children.find(name);
          if (c == n->children.end() || c->second.lblk != lb)
            return fail(fmt::format("directory {}: entry '{}' of block {} not indexed there", ino, name, lb));
        }
        if (used != leaf.used) return fail(fmt::format("directory {}: block {} counts {} bytes, holds {}", ino, lb, leaf.used, used));
        // A leaf may overflow only when every name in it has one hash.
        if (used > room && leaf.names.size() > 1) {
          const uint32_t h = Hash(leaf.names[0]);
          for (const std::string& name : leaf.names)
            if (Hash(name) != h) return fail(fmt::format("directory {}: block {} holds {} bytes", ino, lb, used));
        }
      }
      size_t named = 0;
      for (const Inode::Leaf& leaf : n->dblocks) named += leaf.names.size();
      if (named != n->children.size()) return fail(fmt::format("directory {}: {} entries in blocks, {} names", ino, named, n->children.size()));
      if (n->indexed) {
        for (size_t i = 0; i < n->dx.size(); ++i) {
          if (i > 0 && n->dx[i].first <= n->dx[i - 1].first) return fail(fmt::format("directory {}: hash index out of order", ino));
          if (n->dx[i].second == 0 || n->dx[i].second >= n->dblocks.size())
            return fail(fmt::format("directory {}: index names block {}", ino, n->dx[i].second));
        }
        for (const auto& [name, c] : n->children)
          if (LeafFor(n.get(), Hash(name)) != c.lblk)
            return fail(fmt::format("directory {}: '{}' not in the leaf its hash leads to", ino, name));
      }
    } else {
      const uint64_t size_blocks = (n->size + kBlockSize - 1) / kBlockSize;
      if (expect_lblk > size_blocks)
        return fail(fmt::format("inode {}: extents end at block {} past size {}", ino, expect_lblk, n->size));
      if (n->disksize > n->size) return fail(fmt::format("inode {}: on-disk size {} above size {}", ino, n->disksize, n->size));
    }
  }
  // Pass 5: bitmaps and counts.
  for (uint32_t g = 0; g < l.groups; ++g) {
    uint32_t free = 0;
    const uint32_t words_bits = static_cast<uint32_t>(bbits_[g].size() * 64);
    for (uint32_t i = 0; i < words_bits; ++i) {
      const bool set = Bit(bbits_[g], i);
      if (g == l.groups - 1 && i >= last_group_end) {
        if (!set) return fail(fmt::format("group {}: bit {} past the end is clear", g, i));
        continue;
      }
      if (i >= l.GroupBlocks(g)) continue;
      const uint32_t b = l.GroupFirst(g) + i;
      if (set != (owner[b] != 0))
        return fail(fmt::format("block {}: bitmap says {}, {}", b, set ? "in use" : "free",
                                owner[b] ? fmt::format("owned by {}", owner[b]) : std::string("unowned")));
      if (!set) ++free;
    }
    if (gd_[g].free_blocks != free)
      return fail(fmt::format("group {}: descriptor says {} free blocks, bitmap {}", g, gd_[g].free_blocks, free));
    uint32_t free_inodes = 0, dirs = 0;
    for (uint32_t i = 0; i < l.inodes_per_group; ++i) {
      const uint32_t ino = g * l.inodes_per_group + i + 1;
      const bool set = Bit(ibits_[g], i);
      const bool live = inodes_.count(ino) > 0 || (ino < kFirstIno);
      if (set != live) return fail(fmt::format("inode {}: bitmap says {}, {}", ino, set ? "in use" : "free", live ? "live" : "free"));
      if (!set) ++free_inodes;
      auto it = inodes_.find(ino);
      if (it != inodes_.end() && it->second->is_dir) ++dirs;
      if (set && i >= l.inodes_per_group - gd_[g].itable_unused)
        return fail(fmt::format("inode {} in use in the never-used part of group {}", ino, g));
    }
    if (gd_[g].free_inodes != free_inodes)
      return fail(fmt::format("group {}: descriptor says {} free inodes, bitmap {}", g, gd_[g].free_inodes, free_inodes));
    if (gd_[g].used_dirs != dirs)
      return fail(fmt::format("group {}: descriptor says {} directories, {} found", g, gd_[g].used_dirs, dirs));
  }
  // Passes 2-4: entries, link counts, reachability.
  std::map<uint32_t, uint32_t> refs, subdirs;
  for (const auto& [ino, n] : inodes_) {
    if (!n->is_dir) continue;
    for (const auto& [name, c] : n->children) {
      auto it = inodes_.find(c.ino);
      if (it == inodes_.end()) return fail(fmt::format("directory {}: '{}' names free inode {}", ino, name, c.ino));
      ++refs[c.ino];
      if (it->second->is_dir) {
        ++subdirs[ino];
        if (it->second->parent != ino)
          return fail(fmt::format("directory {}: its '..' is {}, but {} names it", c.ino, it->second->parent, ino));
      }
    }
  }
  for (const auto& [ino, n] : inodes_) {
    if (n->is_dir) {
      if (ino != kRootIno && refs[ino] != 1) return fail(fmt::format("directory {} has {} names", ino, refs[ino]));
      if (n->subdirs != subdirs[ino]) return fail(fmt::format("directory {}: {} subdirectories counted, {} found", ino, n->subdirs, subdirs[ino]));
    } else {
      if (n->names != refs[ino]) return fail(fmt::format("inode {}: link count {}, {} names", ino, n->names, refs[ino]));
      if (refs[ino] == 0 && !orphans_.count(ino)) return fail(fmt::format("inode {}: no name and not an orphan", ino));
    }
  }
  // Every directory reaches the root.
  for (const auto& [ino, n] : inodes_) {
    if (!n->is_dir) continue;
    uint32_t x = ino;
    for (size_t steps = 0; x != kRootIno; ++steps) {
      if (steps > inodes_.size()) return fail(fmt::format("directory {} is in a loop", ino));
      auto it = inodes_.find(x);
      if (it == inodes_.end()) return fail(fmt::format("directory {}: an ancestor is free", ino));
      x = it->second->parent;
    }
  }
  return sim::Status::Ok();
}

}  // namespace fs::ext4
