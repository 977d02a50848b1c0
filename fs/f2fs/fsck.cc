// Fsck (fsck.h): the checks, in the order fsck.f2fs makes them.
#include <deque>
#include <map>
#include <set>

#include <fmt/format.h>

#include "fs/f2fs/fsck.h"

#include <functional>
#include <string>
#include <vector>

namespace fs::f2fs {

namespace {

uint32_t DirBucketsOf(uint32_t level) {
  return level < kMaxDirHashDepth / 2 ? 1u << level : 1u << (kMaxDirHashDepth / 2 - 1);
}
uint32_t BucketBlocksOf(uint32_t level) { return level < kMaxDirHashDepth / 2 ? 2 : 4; }

// (level, bucket) of dentry block `b`, or false beyond the levels.
bool LevelOfBlock(uint64_t b, uint32_t depth, uint32_t* level, uint32_t* bucket) {
  uint64_t base = 0;
  for (uint32_t l = 0; l < depth; ++l) {
    const uint64_t n = uint64_t{DirBucketsOf(l)} * BucketBlocksOf(l);
    if (b < base + n) {
      *level = l;
      *bucket = static_cast<uint32_t>((b - base) / BucketBlocksOf(l));
      return true;
    }
    base += n;
  }
  return false;
}

class Checker {
 public:
  std::string err;
  bool Fail(std::string m) {
    if (err.empty()) err = std::move(m);
    return false;
  }
};

}  // namespace

Fsck::Fsck(const View& v)
    : layout_(*v.layout),
      sm_(v.sm),
      nat_(v.nat),
      cache_(v.nodes),
      itab_(v.inodes),
      image_(v.image),
      live_masters_(v.live_masters),
      stolen_(v.stolen),
      valid_block_count_(v.valid_block_count),
      valid_inode_count_(v.valid_inode_count) {}

sim::Status Fsck::Run() const {
  Checker c;
  const uint32_t main_blocks = layout_.main_blocks();
  std::vector<uint8_t> ref(main_blocks, 0);
  uint64_t data_valid = 0, data_new = 0, nodes = 0, inodes = 0, node_blocks = 0;
  std::set<uint32_t> seen_nids;
  std::map<uint32_t, uint32_t> links;    // dentries naming each inode
  std::map<uint32_t, uint32_t> subdirs;  // subdirectories per directory
  std::map<uint32_t, uint32_t> parent_of;

  auto node_of = [&](Nid nid) -> std::shared_ptr<const NodeBlock> {
    if (const NodePage* np = cache_->Peek(nid)) return np->blk;
    const BlockAddr a = nat_->Get(nid).addr;
    if (!IsValidBlkaddr(a)) return nullptr;
    const BlockPtr& p = image_->Read(a);
    if (!p || p->type != BlockData::Type::kNode) return nullptr;
    return std::static_pointer_cast<const NodeBlock>(p);
  };
  auto claim = [&](BlockAddr a, const Summary& expect, const std::string& what) -> bool {
    if (!layout_.InMain(a)) return c.Fail(fmt::format("{}: block {} outside the main area", what, a.v));
    const uint32_t i = a.v - layout_.main_blkaddr;
    if (ref[i]) return c.Fail(fmt::format("{}: block {} referenced twice", what, a.v));
    ref[i] = 1;
    if (!sm_->BlockValid(a)) return c.Fail(fmt::format("{}: block {} not valid in the SIT", what, a.v));
    const Summary& s = sm_->SummaryOf(a);
    if (s.nid != expect.nid || s.ofs_in_node != expect.ofs_in_node)
      return c.Fail(fmt::format("{}: SSA of block {} says ({}, {}), owner is ({}, {})", what, a.v, s.nid.v,
                                s.ofs_in_node, expect.nid.v, expect.ofs_in_node));
    return true;
  };
  auto check_nat = [&](Nid nid, Nid ino, const std::string& what) -> bool {
    if (!nat_->Valid(nid)) return c.Fail(fmt::format("{}: nid {} out of range", what, nid.v));
    const NatTable::Entry& e = nat_->Get(nid);
    if (!e.in_use) return c.Fail(fmt::format("{}: nid {} is free in the NAT", what, nid.v));
    if (e.ino != ino) return c.Fail(fmt::format("{}: NAT ino {} != {}", what, e.ino.v, ino.v));
    if (seen_nids.count(nid.v)) return c.Fail(fmt::format("{}: nid {} reached twice", what, nid.v));
    seen_nids.insert(nid.v);
    ++nodes;
    if (e.addr == kNewAddr) {
      const NodePage* np = cache_->Peek(nid);
      if (!np || !np->dirty)
        return c.Fail(fmt::format("{}: nid {} has NEW_ADDR but no dirty page", what, nid.v));
      return true;
    }
    if (!IsValidBlkaddr(e.addr)) return c.Fail(fmt::format("{}: nid {} has no address", what, nid.v));
    ++node_blocks;
    return claim(e.addr, Summary{nid, 0, 0}, what + " node");
  };

  // Walks one node subtree; counts addresses.
  std::function<bool(Nid, Nid, uint32_t, NodeKind, uint64_t, uint64_t, uint64_t*)> walk =
      [&](Nid nid, Nid ino, uint32_t ofs, NodeKind kind, uint64_t first, uint64_t size, uint64_t* blocks) -> bool {
    const std::string what = fmt::format("inode {} node {}", ino.v, nid.v);
    if (!check_nat(nid, ino, what)) return false;
    auto b = node_of(nid);
    if (!b) return c.Fail(what + ": node block unreadable");
    if (b->footer.nid != nid || b->footer.ino != ino)
      return c.Fail(fmt::format("{}: footer ({}, {})", what, b->footer.nid.v, b->footer.ino.v));
    if (b->kind != kind) return c.Fail(what + ": wrong node kind");
    if (b->footer.ofs != ofs) return c.Fail(fmt::format("{}: node offset {} != {}", what, b->footer.ofs, ofs));
    if (kind == NodeKind::kDirect) {
      for (uint32_t s = 0; s < kAddrsPerBlock; ++s) {
        const BlockAddr a = b->Addr(s);
        if (a == kNullAddr) continue;
        if ((first + s) * kBlockSize >= size)
          return c.Fail(fmt::format("{}: block at index {} beyond EOF {}", what, first + s, size));
        ++*blocks;
        if (a == kNewAddr) {
          ++data_new;
          continue;
        }
        ++data_valid;
        if (!claim(a, Summary{nid, static_cast<uint16_t>(s), 0}, what + " data")) return false;
      }
      return true;
    }
    const uint64_t span = kind == NodeKind::kIndirect ? uint64_t{kAddrsPerBlock}
                                                      : uint64_t{kAddrsPerBlock} * kNidsPerBlock;
    for (uint32_t i = 0; i < kNidsPerBlock; ++i) {
      const Nid child = b->Child(i);
      if (child == kNullNid) continue;
      const NodeKind ck = kind == NodeKind::kIndirect ? NodeKind::kDirect : NodeKind::kIndirect;
      const uint32_t cofs = ofs + 1 + (kind == NodeKind::kIndirect ? i : i * (kNidsPerBlock + 1));
      if (!walk(child, ino, cofs, ck, first + i * span, size, blocks)) return false;
    }
    return true;
  };

  std::deque<std::pair<Nid, Nid>> todo;  // (inode, parent)
  todo.emplace_back(kRootIno, kRootIno);
  for (uint32_t o : itab_->orphans()) todo.emplace_back(Nid{o}, kNullNid);
  std::set<uint32_t> visited;
  std::map<uint32_t, std::pair<bool, uint32_t>> inode_info;  // ino -> (is_dir, links)
  while (!todo.empty() && c.err.empty()) {
    const auto [ino, parent] = todo.front();
    todo.pop_front();
    if (visited.count(ino.v)) {
      // A regular file may have several names (hard links: its link count
      // is checked against them below); a directory only one.
      auto seen = inode_info.find(ino.v);
      if (seen != inode_info.end() && !seen->second.first) continue;
      c.Fail(fmt::format("inode {} reached twice (directory cycle or a directory's second name)", ino.v));
      break;
    }
    visited.insert(ino.v);
    const std::string what = fmt::format("inode {}", ino.v);
    if (!check_nat(ino, ino, what)) break;
    auto b = node_of(ino);
    if (!b || !b->IsInode() || !b->inode) {
      c.Fail(what + ": not an inode block");
      break;
    }
    if (b->footer.nid != ino || b->footer.ino != ino || b->footer.ofs != 0) {
      c.Fail(what + ": bad inode footer");
      break;
    }
    ++inodes;
    const InodeFields& f = *b->inode;
    inode_info[ino.v] = {f.is_dir, f.links};
    if (f.is_dir && f.inline_data) c.Fail(what + ": directory with inline data");
    if (f.inline_data && f.size > kMaxInlineData) c.Fail(what + ": inline file larger than the inline area");
    uint64_t blocks = 0;
    if (!f.inline_data && !f.inline_dentry) {
      for (uint32_t s = 0; s < kUsableAddrsPerInode && c.err.empty(); ++s) {
        const BlockAddr a = b->Addr(s);
        if (a == kNullAddr) continue;
        if (uint64_t{s} * kBlockSize >= f.size) {
          c.Fail(fmt::format("{}: block at index {} beyond EOF {}", what, s, f.size));
          break;
        }
        ++blocks;
        if (a == kNewAddr) {
          ++data_new;
          continue;
        }
        ++data_valid;
        claim(a, Summary{ino, static_cast<uint16_t>(s), 0}, what + " data");
      }
      const uint64_t d = kAddrsPerBlock, ind = d * kNidsPerBlock;
      const uint64_t firsts[5] = {kUsableAddrsPerInode, kUsableAddrsPerInode + d, kUsableAddrsPerInode + 2 * d,
                                  kUsableAddrsPerInode + 2 * d + ind, kUsableAddrsPerInode + 2 * d + 2 * ind};
      const uint32_t ofs[5] = {1, 2, 3, 4 + kNidsPerBlock, 5 + 2 * kNidsPerBlock};
      const NodeKind kinds[5] = {NodeKind::kDirect, NodeKind::kDirect, NodeKind::kIndirect, NodeKind::kIndirect,
                                 NodeKind::kDoubleIndirect};
      for (int k = 0; k < 5 && c.err.empty(); ++k)
        if (f.i_nid[k] != kNullNid) walk(f.i_nid[k], ino, ofs[k], kinds[k], firsts[k], f.size, &blocks);
    } else {
      for (int k = 0; k < 5; ++k)
        if (f.i_nid[k] != kNullNid) c.Fail(what + ": inline inode with node pointers");
    }
    if (!c.err.empty()) break;
    if (blocks != f.data_blocks)
      c.Fail(fmt::format("{}: {} data blocks counted, inode says {}", what, blocks, f.data_blocks));
    if (!f.is_dir) continue;
    // Directory entries.
    auto check_array = [&](const DentryArray& d, bool inline_area, uint64_t blk) {
      uint32_t level = 0, bucket = 0;
      if (!inline_area && !LevelOfBlock(blk, f.current_depth, &level, &bucket))
        c.Fail(fmt::format("{}: dentry block {} beyond depth {}", what, blk, f.current_depth));
      uint32_t used = 0;
      for (uint8_t u : d.used) used += u != 0;
      if (used != d.used_slots)
        c.Fail(fmt::format("{}: dentry block {} counts {} used slots, has {}", what, blk, d.used_slots, used));
      d.ForEach([&](uint32_t s, const Dentry& e) {
        const std::string_view n = d.NameAt(s);
        if (n == ".") {
          if (e.ino != ino) c.Fail(what + ": '.' points elsewhere");
          return;
        }
        if (n == "..") {
          if (parent != kNullNid && e.ino != parent)
            c.Fail(fmt::format("{}: '..' is {}, parent is {}", what, e.ino.v, parent.v));
          return;
        }
        if (d.hashes[s] != DentryHash(n)) c.Fail(fmt::format("{}: dentry '{}' has a wrong hash", what, n));
        if (!inline_area && d.hashes[s] % DirBucketsOf(level) != bucket)
          c.Fail(fmt::format("{}: dentry '{}' in the wrong bucket", what, n));
        ++links[e.ino.v];
        if (e.type == FileType::kDir) ++subdirs[ino.v];
        parent_of[e.ino.v] = ino.v;
        if (!nat_->Valid(e.ino) || !nat_->Get(e.ino).in_use)
          c.Fail(fmt::format("{}: dentry '{}' names free inode {}", what, n, e.ino.v));
        else
          todo.emplace_back(e.ino, ino);
      });
    };
    if (f.inline_dentry) {
      if (!b->inline_dents) c.Fail(what + ": inline directory without dentries");
      else check_array(*b->inline_dents, true, 0);
    } else {
      const Inode* in = itab_->Find(ino);
      const uint64_t nblocks = (f.size + kBlockSize - 1) / kBlockSize;
      for (uint64_t blk = 0; blk < nblocks && c.err.empty(); ++blk) {
        std::shared_ptr<const DentryBlock> db;
        if (in) {
          if (const DataPage* p = in->pages.Find(blk)) db = p->dents;
        }
        if (!db) {
          // Locate the block through the inode tree.
          BlockAddr a = kNullAddr;
          const NodePath path = GetNodePath(blk);
          if (path.level == 0) {
            a = b->Addr(path.offsets[0]);
          } else {
            Nid nid = f.i_nid[path.offsets[0]];
            for (int l = 1; l <= path.level && nid != kNullNid; ++l) {
              auto nb = node_of(nid);
              if (!nb) break;
              if (l == path.level) a = nb->Addr(path.offsets[l]);
              else nid = nb->Child(path.offsets[l]);
            }
          }
          if (!IsValidBlkaddr(a)) continue;
          const BlockPtr& p = image_->Read(a);
          if (!p || p->type != BlockData::Type::kDentry) {
            c.Fail(fmt::format("{}: dentry block {} at {} unreadable", what, blk, a.v));
            break;
          }
          db = std::static_pointer_cast<const DentryBlock>(p);
        }
        check_array(db->d, false, blk);
        if (!db->FilterCoversEntries() || !db->TagsMatchEntries())
          c.Fail(fmt::format("{}: dentry block {}'s hash filter or tags disagree with its entries", what, blk));
      }
    }
  }
  // Master nodes since the last checkpoint.
  uint64_t masters = 0;
  for (BlockAddr a : *live_masters_) {
    ++masters;
    ++node_blocks;
    if (!claim(a, Summary{kNullNid, 0, 0}, "master node")) break;
  }
  // Blocks running transactions stole: owned by their files' TxFile.
  for (const auto& [a, owner] : *stolen_) {
    const Inode* owner_in = itab_->Find(owner.first);
    const TxFile* t = owner_in ? owner_in->tx.get() : nullptr;
    auto st = t ? t->stolen.find(owner.second) : std::map<uint64_t, BlockAddr>::const_iterator();
    if (!t || !t->running || st == t->stolen.end() || st->second != BlockAddr{a}) {
      c.Fail(fmt::format("stolen block {} not held by inode {} page {}", a, owner.first.v, owner.second));
      break;
    }
    ++data_valid;
    if (!claim(BlockAddr{a}, Summary{owner.first, kStolenOfs, 0}, "stolen")) break;
  }
  if (!c.err.empty()) return sim::Status::InvalidInput("fsck: " + c.err);
  // Link counts.
  for (const auto& [ino, info] : inode_info) {
    const auto [is_dir, nlink] = info;
    if (itab_->IsOrphan(Nid{ino})) {
      if (nlink != 0) return sim::Status::InvalidInput(fmt::format("fsck: orphan {} has {} links", ino, nlink));
      continue;
    }
    if (is_dir) {
      const uint32_t want = 2 + subdirs[ino];
      if (nlink != want)
        return sim::Status::InvalidInput(fmt::format("fsck: directory {} has {} links, expected {}", ino, nlink, want));
    } else if (nlink != links[ino]) {
      return sim::Status::InvalidInput(
          fmt::format("fsck: file {} has {} links, {} dentries name it", ino, nlink, links[ino]));
    }
  }
  // Every allocated nid is reachable.
  for (uint32_t n = kRootIno.v; n < nat_->max_nid(); ++n) {
    if (nat_->Get(Nid{n}).in_use && !seen_nids.count(n))
      return sim::Status::InvalidInput(fmt::format("fsck: nid {} allocated but unreachable", n));
  }
  // SIT <-> references.
  for (uint32_t s = 0; s < sm_->main_segments(); ++s) {
    const auto& e = sm_->seg(SegNo{s});
    if (e.cur_map.count() != e.valid)
      return sim::Status::InvalidInput(fmt::format("fsck: segment {} valid count {} != map {}", s, e.valid,
                                                   e.cur_map.count()));
    if (sm_->IsFree(SegNo{s}) && e.valid)
      return sim::Status::InvalidInput(fmt::format("fsck: free segment {} has valid blocks", s));
    for (uint32_t i = 0; i < kBlocksPerSeg; ++i) {
      const uint32_t idx = s * kBlocksPerSeg + i;
      if (e.cur_map.test(i) != static_cast<bool>(ref[idx]))
        return sim::Status::InvalidInput(fmt::format("fsck: block {} is {} in the SIT but {}",
                                                     layout_.main_blkaddr + idx,
                                                     e.cur_map.test(i) ? "valid" : "invalid",
                                                     ref[idx] ? "referenced" : "unreferenced"));
    }
  }
  for (uint32_t r = 0; r < sm_->regions(); ++r) {
    for (int l = 0; l < kNumLogs; ++l) {
      const LogType t = static_cast<LogType>(l);
      if (!sm_->LogActive(t, r)) continue;
      const auto& cs = sm_->curseg(t, r);
      if (cs.next_blkoff < kBlocksPerSeg) {
        const auto& e = sm_->seg(cs.segno);
        if (e.cur_map.test(cs.next_blkoff) || (cs.ssr && e.ckpt_map.test(cs.next_blkoff)))
          return sim::Status::InvalidInput(
              fmt::format("fsck: log {} of region {} points at a used block", LogTypeName(t), r));
      }
    }
  }
  // Space accounting.
  const uint64_t total = data_valid + data_new + nodes + masters;
  if (total != valid_block_count_)
    return sim::Status::InvalidInput(fmt::format("fsck: valid_block_count {} != {} data + {} reserved + {} nodes",
                                                 valid_block_count_, data_valid, data_new, nodes));
  if (sm_->valid_blocks() != data_valid + node_blocks)
    return sim::Status::InvalidInput(fmt::format("fsck: SIT holds {} valid blocks, {} data + {} node blocks referenced",
                                                 sm_->valid_blocks(), data_valid, node_blocks));
  if (nat_->valid_nodes() != nodes)
    return sim::Status::InvalidInput(fmt::format("fsck: NAT counts {} nodes, {} reachable", nat_->valid_nodes(), nodes));
  if (valid_inode_count_ != inodes)
    return sim::Status::InvalidInput(fmt::format("fsck: {} inodes counted, {} reachable", valid_inode_count_, inodes));
  // Dirty node bookkeeping.
  for (const auto& [ino, in] : itab_->all()) {
    uint32_t n = 0;
    for (const NodePage* np = in->dirty_nodes.head; np; np = np->dnext) {
      ++n;
      if (!np->dirty || np->blk->footer.ino != in->ino)
        return sim::Status::InvalidInput(fmt::format("fsck: dirty list of inode {} is corrupt", ino));
    }
    if (n != in->dirty_nodes.count) return sim::Status::InvalidInput("fsck: dirty node count mismatch");
    if (in->ipage != nullptr && in->ipage->blk->inode && in->is_dir != in->ipage->blk->inode->is_dir)
      return sim::Status::InvalidInput(fmt::format("fsck: in-memory inode {} disagrees with its block on is_dir", ino));
    if (in->read_fields_known && in->ipage != nullptr && in->ipage->blk->inode &&
        (in->read_fields.size != in->ipage->blk->inode->size ||
         in->read_fields.inline_data != in->ipage->blk->inode->inline_data))
      return sim::Status::InvalidInput(fmt::format("fsck: in-memory inode {} keeps a stale size or inline flag", ino));
  }
  sim::Status st = sim::Status::Ok();
  cache_->dirty().ForEach([&](uint64_t nid) {
    const NodePage* np = cache_->Peek(Nid{static_cast<uint32_t>(nid)});
    if (np != nullptr && np->dirty) return true;
    st = sim::Status::InvalidInput(fmt::format("fsck: dirty nid {} not a dirty cached page", nid));
    return false;
  });
  return st;
}

}  // namespace fs::f2fs
