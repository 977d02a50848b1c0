// The ext4 model's in-memory objects, shared by its .cc files.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "fs/ext4/ext4.h"
#include "fs/vfs/page_slots.h"

namespace fs::ext4 {

struct Ext4::DataPage final : vfs::CachedPage {
  uint32_t ino = 0;
  uint64_t index = 0;
  BlockPtr content;         // null = zeros
  bool uptodate = true;     // false while its read is in flight
  bool delalloc = false;    // dirty, no block yet (reserved)
};

struct Ext4::MetaPage final : vfs::CachedPage {
  uint32_t blk = 0;
  bool uptodate = true;
};

struct Ext4::Inode {
  uint32_t ino = 0;
  uint64_t gen = 0;       // unique per in-memory inode: tells a reused inode number apart
  bool is_dir = false;
  uint64_t size = 0;      // i_size
  uint64_t disksize = 0;  // i_disksize: what the on-disk inode says
  uint32_t names = 0;     // files: directory entries naming it
  uint32_t subdirs = 0;   // directories: child directories
  sim::SimTime mtime, ctime, atime;  // stamped by the coarse clock (Ext4::Stamp)
  uint32_t group = 0;     // i_block_group
  struct Ext {
    uint32_t pblk = 0;
    uint32_t len = 0;
  };
  std::map<uint32_t, Ext> ext;  // logical block -> extent
  std::vector<uint32_t> tree;   // extent-tree blocks: leaves, then index blocks
  uint8_t depth = 0;
  uint32_t leaves = 0;          // leaf blocks among `tree`

  // Directories.
  uint32_t parent = 0;
  struct Child {
    uint32_t ino = 0;
    uint32_t lblk = 0;  // the leaf holding the entry
  };
  std::map<std::string, Child, std::less<>> children;
  struct Leaf {
    uint32_t used = 0;                // bytes of entries
    std::vector<std::string> names;   // in insertion order
  };
  std::vector<Leaf> dblocks;          // per logical block (index blocks keep an empty leaf)
  bool indexed = false;
  std::vector<std::pair<uint32_t, uint32_t>> dx;  // (lowest hash, leaf logical block), sorted
  std::vector<uint32_t> dx_nodes;                 // logical blocks of interior index nodes

  // Regular files.
  vfs::PageSlots<DataPage> pages;  // cached pages by index
  uint64_t dirty_pages = 0;
  uint64_t delalloc_pages = 0;
  vfs::WritebackState wb;
  uint64_t writes_in_flight = 0;
  uint32_t open = 0;
  uint32_t pa_lblk = 0, pa_pblk = 0, pa_len = 0;  // inode preallocation
  uint32_t sync_tid = 0, datasync_tid = 0;
  bool da_alloc_close = false;  // EXT4_STATE_DA_ALLOC_CLOSE: truncated to 0, flush delayed blocks at close
  uint64_t ra_next = UINT64_MAX;  // read-ahead: the page a sequential reader reads next
  bool freed = false;
};

struct Ext4::Tx {
  uint32_t tid = 0;
  sim::SimTime start;
  std::set<uint32_t> blocks;                              // metadata blocks dirtied
  std::set<uint32_t> revokes;                             // metadata blocks freed
  std::vector<std::pair<uint32_t, uint32_t>> freed;       // (start, len) busy until the commit
  uint64_t ordered = 0;                                   // data writes in flight the commit waits for
};

struct Ext4::Lookup {
  Errno err = Errno::kOk;
  Inode* parent = nullptr;
  Inode* node = nullptr;
  std::string_view name;
  bool dir_required = false;
  bool dot = false;
  bool SlashOnFile() const { return node && dir_required && !node->is_dir; }
};

struct Ext4::IoReq final : ssd::BlockRequest {
  IoKind kind = IoKind::kData;
  std::vector<uint64_t> write_ids;
  std::function<void()> done;
  std::vector<std::function<void()>> merged_done;  // writes merged into this one while plugged
  IoReq* next_free = nullptr;
  uint64_t flush_marker = 0;
};

}  // namespace fs::ext4
