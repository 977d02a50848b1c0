// The F2FS model's cached pages and its node cache.
//
// Page types: every cached page of the model is a vfs::CachedPage (LRU,
// pins, writeback count) of one kind — a DataPage (file data or dentries,
// kept per inode by the file system) or a NodePage (an inode, direct or
// indirect node block, kept here).
//
// NodeCache: the node pages in memory by nid (the node mapping), the
// global set of dirty node pages (the mapping's dirty tag, which a
// checkpoint writes out in nid order) and each file's list of its dirty
// node pages (the per-file dirty node list fsync may walk instead of the
// global set).
//
// Contract:
// - A node is cached at most once (Insert of a cached nid is a bug); Find
//   marks a hit most recently used in the page cache; Insert admits the
//   page to the page cache (which may evict others first) and puts it on
//   the LRU.
// - SetDirty adds a page to the dirty set and, with a list, to the front of
//   that file's dirty list; ClearDirty removes it from both (the caller
//   names the list the page is on) and makes it evictable again. Both are
//   idempotent.
// - Unlink takes a page out of the cache (cleaning it first) and returns
//   it; the caller hands it to the page cache (Detach) or to eviction.
// - Mut gives a node block the page may change: copied first when the
//   block is shared (with the Image or a write in flight).
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>

#include "fs/f2fs/on_disk.h"
#include "fs/vfs/page_cache.h"
#include "sim/index_set.h"

namespace fs::f2fs {

struct Page : vfs::CachedPage {
  enum class Kind : uint8_t { kData, kNode };
  explicit Page(Kind k) : kind(k) {}
  Kind kind;
};

struct DataPage : Page {
  DataPage() : Page(Kind::kData) {}
  Nid ino;
  uint64_t index = 0;
  std::shared_ptr<DataBlock> bytes;    // regular file; null = zeros
  std::shared_ptr<DentryBlock> dents;  // directory
  // Dirtied by background cleaning (page_private_gcing): its next write
  // goes out of place to the cleaning log (cold data or ATGC), from_gc.
  bool gcing = false;
  // Written by an O_DIRECT write: in place over a valid block unless in
  // LFS mode (f2fs_map_blocks with F2FS_GET_BLOCK_DIO), never a hot page.
  bool direct = false;
};

struct NodePage : Page {
  NodePage() : Page(Kind::kNode) {}
  Nid nid;
  std::shared_ptr<NodeBlock> blk;
  NodePage* dprev = nullptr;  // per-file dirty node list
  NodePage* dnext = nullptr;
  bool on_ino_list = false;
  // Durability mode journal: the journal's next record sequence number when
  // the page was last dirtied (records below it may have dirtied it).
  uint64_t dirty_seq = 0;
};

// A file's dirty node pages, newest first (kept in its in-memory inode).
struct DirtyNodeList {
  NodePage* head = nullptr;
  uint32_t count = 0;
};

class NodeCache {
 public:
  explicit NodeCache(vfs::PageCache* cache) : cache_(cache) {}
  NodeCache(const NodeCache&) = delete;
  NodeCache& operator=(const NodeCache&) = delete;

  // The cached page of `nid` (a hit: most recently used), or null.
  NodePage* Find(Nid nid);
  // The cached page of `nid` without touching the LRU, or null.
  NodePage* Peek(Nid nid) const;
  NodePage* Insert(Nid nid, std::shared_ptr<NodeBlock> blk);
  static NodeBlock& Mut(NodePage* np);
  void SetDirty(NodePage* np, DirtyNodeList* list);
  // `list`: the list `np` is on (required when np->on_ino_list).
  void ClearDirty(NodePage* np, DirtyNodeList* list);
  std::unique_ptr<NodePage> Unlink(NodePage* np, DirtyNodeList* list);

  // Dirty node pages by nid (visited in ascending nid order).
  const sim::IndexSet& dirty() const { return dirty_; }
  NodePage* DirtyPage(uint32_t nid) const { return nodes_.at(nid).get(); }

 private:
  vfs::PageCache* cache_;
  std::unordered_map<uint32_t, std::unique_ptr<NodePage>> nodes_;
  sim::IndexSet dirty_;  // grown to the highest nid dirtied
};

}  // namespace fs::f2fs
