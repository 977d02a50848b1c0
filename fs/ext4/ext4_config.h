// Configuration of the ext4 model (fs.kind: ext4, section fs.ext4.*):
// mke2fs's geometry (e2fsprogs' mke2fs.conf defaults), the mount options
// of seed 004's listing (commit=5, data=ordered, delalloc, barrier,
// inode_readahead_blks=32), mballoc's tunables, the page cache and the CPU
// costs of the code paths.
#pragma once

#include <cstdint>
#include <string>

#include "fs/vfs/page_cache.h"
#include "sim/config.h"
#include "sim/status.h"
#include "sim/time.h"
#include "sim/units.h"

namespace fs::ext4 {

struct Ext4MkfsConfig {
  uint32_t blocks_per_group;  // mke2fs -g (8 x block size)
  sim::Bytes inode_ratio;     // mke2fs -i
  uint32_t inode_size;        // mke2fs -I
  uint32_t flex_bg;           // mke2fs -G: groups whose bitmaps and inode tables are packed together
  sim::Bytes journal_size;    // mke2fs -J size=; 0 = ext2fs_default_journal_size()
  static void Describe(sim::Schema<Ext4MkfsConfig>& s);
};

// Simulated CPU time of file-system code paths.
struct Ext4CpuConfig {
  sim::SimTime syscall;           // fixed cost of every API call
  sim::SimTime memcpy_page;       // copying 4 KiB between user and page cache
  sim::SimTime dir_block_search;  // searching one directory block
  sim::SimTime extent_lookup;     // one step of an extent-tree walk
  sim::SimTime group_scan;        // mballoc: one block group examined
  sim::SimTime namespace_op;      // a create/unlink/mkdir/rmdir/rename/link under the directory lock
  sim::SimTime commit_fixed;      // fixed CPU part of a journal commit
  static void Describe(sim::Schema<Ext4CpuConfig>& s);
};

struct Ext4Config {
  Ext4MkfsConfig mkfs;
  sim::SimTime commit_interval;    // commit=
  bool barrier;                    // barrier / nobarrier
  bool delalloc;                   // delalloc / nodelalloc
  bool auto_da_alloc;              // auto_da_alloc / noauto_da_alloc
  std::string atime;               // relatime / strictatime / noatime
  sim::SimTime timestamp_granularity;  // the coarse clock's tick (a jiffy)
  uint32_t inode_readahead_blks;   // inode_readahead_blks=
  uint32_t mb_stream_request;      // /sys/fs/ext4/*/mb_stream_req (blocks)
  uint32_t mb_group_prealloc;      // /sys/fs/ext4/*/mb_group_prealloc (blocks)
  uint32_t io_queue;               // device submission queue used by the FS
  sim::Bytes max_io;               // largest merged request
  vfs::PageCacheConfig page_cache;
  Ext4CpuConfig cpu;
  static void Describe(sim::Schema<Ext4Config>& s);
  // Cross-key checks; messages name the key below fs.ext4 ("mkfs.inode_size: ...").
  sim::Status Validate() const;
};

}  // namespace fs::ext4
