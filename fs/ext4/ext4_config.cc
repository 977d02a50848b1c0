#include "fs/ext4/ext4_config.h"

#include <fmt/format.h>

namespace fs::ext4 {

void Ext4MkfsConfig::Describe(sim::Schema<Ext4MkfsConfig>& s) {
  s.Param("blocks_per_group", &Ext4MkfsConfig::blocks_per_group, "32768",
          "Blocks per block group (mke2fs -g; 8 x 4096, one bitmap block's bits)")
      .Range(256, 32768);
  s.Param("inode_ratio", &Ext4MkfsConfig::inode_ratio, "16KiB",
          "Bytes per inode (mke2fs -i; mke2fs.conf default 16384)")
      .Min(4096);
  s.Param("inode_size", &Ext4MkfsConfig::inode_size, "256", "Inode size in bytes (mke2fs -I; default 256)")
      .Range(128, 4096);
  s.Param("flex_bg", &Ext4MkfsConfig::flex_bg, "16",
          "Groups per flex group (mke2fs -G; default 16): their bitmaps and inode tables are packed at the "
          "start of the first")
      .Range(1, 1024);
  s.Param("journal_size", &Ext4MkfsConfig::journal_size, "0",
          "Journal size (mke2fs -J size=); 0 = e2fsprogs' ext2fs_default_journal_size() for the volume "
          "(4 MiB below 128 MiB ... 1 GiB from 128 GiB)");
}

void Ext4CpuConfig::Describe(sim::Schema<Ext4CpuConfig>& s) {
  s.Param("syscall", &Ext4CpuConfig::syscall, "1us", "CPU time of entering/leaving the FS for any call");
  s.Param("memcpy_page", &Ext4CpuConfig::memcpy_page, "400ns", "CPU time to copy 4 KiB user <-> page cache");
  s.Param("dir_block_search", &Ext4CpuConfig::dir_block_search, "300ns",
          "CPU time to search one directory block");
  s.Param("extent_lookup", &Ext4CpuConfig::extent_lookup, "100ns", "CPU time of one step of an extent-tree walk");
  s.Param("group_scan", &Ext4CpuConfig::group_scan, "200ns",
          "CPU time of mballoc examining one block group's buddy data");
  s.Param("namespace_op", &Ext4CpuConfig::namespace_op, "5us",
          "CPU time of a namespace change under the directory's i_rwsem (new or freed inode, directory entry, "
          "journal handle; assumption: a few microseconds on a current CPU)");
  s.Param("commit_fixed", &Ext4CpuConfig::commit_fixed, "30us", "Fixed CPU time of one journal commit");
}

void Ext4Config::Describe(sim::Schema<Ext4Config>& s) {
  s.Section("mkfs", &Ext4Config::mkfs, "Volume geometry chosen at format time (mke2fs)");
  s.Param("commit_interval", &Ext4Config::commit_interval, "5s",
          "commit=: the journal commits the running transaction this long after it started (seed 004: 5)")
      .Min(1000);
  s.Param("barrier", &Ext4Config::barrier, "true",
          "barrier: commit blocks are written after a cache flush and with FUA; fsync without a commit "
          "flushes the cache");
  s.Param("delalloc", &Ext4Config::delalloc, "true",
          "delalloc: blocks are allocated at writeback, not at write time");
  s.Param("auto_da_alloc", &Ext4Config::auto_da_alloc, "true",
          "auto_da_alloc (false = noauto_da_alloc): a file's delayed blocks are allocated and written at once "
          "when it replaces another file by rename, and at close after a truncate to 0 (ext4_alloc_da_blocks)");
  s.Choice("atime", &Ext4Config::atime, "relatime", {"relatime", "strictatime", "noatime"},
           "Access-time updates of reads and readdir (mount options relatime, the default; strictatime; "
           "noatime): relatime logs the inode when the access time is not after the modification or change "
           "time, or is a day old");
  s.Param("timestamp_granularity", &Ext4Config::timestamp_granularity, "4ms",
          "Tick of the coarse clock that stamps mtime/ctime/atime (a jiffy: 4 ms at CONFIG_HZ=250, the "
          "Debian kernels' setting): a write dirties the inode only when the tick moved since its last "
          "stamp (inode_needs_update_time); 0 = every write");
  s.Param("inode_readahead_blks", &Ext4Config::inode_readahead_blks, "32",
          "inode_readahead_blks=: inode-table blocks read ahead on a miss (power of 2)")
      .Range(1, 4096);
  s.Param("mb_stream_request", &Ext4Config::mb_stream_request, "16",
          "mb_stream_req: files smaller than this many blocks allocate from the per-CPU locality-group "
          "preallocation")
      .Min(1);
  s.Param("mb_group_prealloc", &Ext4Config::mb_group_prealloc, "512",
          "mb_group_prealloc: blocks a locality-group preallocation takes at once")
      .Min(1);
  s.Param("io_queue", &Ext4Config::io_queue, "0", "Device submission queue the file system uses");
  s.Param("max_io", &Ext4Config::max_io, "512KiB", "Largest merged device request (max_sectors_kb)").Min(4096);
  s.Section("page_cache", &Ext4Config::page_cache, "Page cache and writeback (vm.dirty_*)");
  s.Section("cpu", &Ext4Config::cpu, "Simulated CPU time of file-system code paths");
}

sim::Status Ext4Config::Validate() const {
  if (mkfs.blocks_per_group % 64 != 0)
    return sim::Status::InvalidInput(
        fmt::format("mkfs.blocks_per_group: {} is not a multiple of 64", mkfs.blocks_per_group));
  if ((mkfs.inode_size & (mkfs.inode_size - 1)) != 0)
    return sim::Status::InvalidInput(fmt::format("mkfs.inode_size: {} is not a power of 2", mkfs.inode_size));
  if ((mkfs.flex_bg & (mkfs.flex_bg - 1)) != 0)
    return sim::Status::InvalidInput(fmt::format("mkfs.flex_bg: {} is not a power of 2", mkfs.flex_bg));
  if ((inode_readahead_blks & (inode_readahead_blks - 1)) != 0)
    return sim::Status::InvalidInput(
        fmt::format("inode_readahead_blks: {} is not a power of 2", inode_readahead_blks));
  if (mkfs.journal_size.value % 4096 != 0)
    return sim::Status::InvalidInput("mkfs.journal_size: must be a multiple of the 4 KiB block");
  if (max_io.value % 4096 != 0) return sim::Status::InvalidInput("max_io: must be a multiple of 4 KiB");
  return sim::Status::Ok();
}

}  // namespace fs::ext4
