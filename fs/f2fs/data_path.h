// DataPath: the F2FS model's file data path — buffered and direct reads
// and writes, read-ahead, block reservation (NEW_ADDR), inline data and its
// conversion, truncation, and a data page's write: the block it goes to
// (in place, out of place or SSR; the log from the allocation policy) and
// its submission (the kernel's data.c, file.c and inline.c:
// f2fs_file_read_iter / f2fs_file_write_iter, f2fs_reserve_block,
// f2fs_convert_inline_page, f2fs_truncate, f2fs_do_write_data_page,
// check_inplace_update_policy, f2fs_write_cache_pages).
//
// Contract:
// - Read(inode, offset, dst, len) copies up to `len` bytes from the page
//   cache, reading missing pages (ReadPages: with read-ahead of
//   page_cache.readahead on a sequential stream; a hole or reserved block
//   reads as zeros; foreign content after a power cut too); `dst` null
//   reads without handing the bytes back.
// - Write copies into cached pages (read-modify-write of a partly
//   overwritten page on flash), reserves each page's block, dirties it and
//   grows the size; under cp_rwsem shared (f2fs_lock_op) unless
//   `in_commit` (a transaction's commit, which holds it and whose bytes
//   were counted when written). Inline data stays in the inode up to
//   kMaxInlineData, else is converted: written to the hot data log and
//   waited for first.
// - Truncate zeros a partial last page, drops cached pages and frees the
//   blocks beyond the end (NodeManager::TruncateBlocks), under cp_rwsem
//   shared unless `in_commit`.
// - Direct I/O (DirectIoMode: Linux 5.15 f2fs_direct_IO's checks): a direct
//   write reserves as a buffered one, then writes the range's pages and
//   waits, dropping them from the cache; a direct read writes back dirty
//   cached pages of its range, then reads every block from the device.
// - WriteDataPage: in place over a valid block when the IPU policy says so
//   (never for background cleaning's pages, a page under writeback or a
//   transaction's commit), else a new block of the page's log (the ATGC
//   log keeps the old segment's age), the old one invalidated (or, in a
//   commit, handed to the commit to invalidate once durable); with the
//   journal's records all, a DATA_WRITE record and its ordered write.
// - WritebackInode writes up to `max_pages` dirty pages of a file in index
//   order, under cp_rwsem shared unless `from_cp`; with `wait` it waits.
//
// State owned: the IPU policy bits. The pages are DataPages', the inodes'
// fields the NodeManager's (changed under the inode's i_rwsem, which the
// caller holds as the F2fs documents), the counters the F2fs's (passed
// in). Locks: cp_rwsem shared as above; no lock of its own.
//
// Who calls it: the F2fs (the read/write/truncate calls, the flusher,
// fsync and the checkpoint through their hosts, cleaning's migration,
// recovery), transactions through their host. It calls the NodeManager,
// SegmentManager (+ AllocationPolicy), IoManager, DataPages, the page
// cache, InodeTable, CheckpointManager (cp_rwsem), Durability, the
// JournalCommitter and, through its Host, space accounting and the CPU.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "fs/f2fs/allocation_policy.h"
#include "fs/f2fs/checkpoint_manager.h"
#include "fs/f2fs/data_pages.h"
#include "fs/f2fs/durability.h"
#include "fs/f2fs/f2fs_config.h"
#include "fs/f2fs/image.h"
#include "fs/f2fs/inode_table.h"
#include "fs/f2fs/io_manager.h"
#include "fs/f2fs/journal.h"
#include "fs/f2fs/journal_committer.h"
#include "fs/f2fs/layout.h"
#include "fs/f2fs/node_manager.h"
#include "fs/f2fs/segment_manager.h"
#include "fs/file_system.h"
#include "fs/vfs/page_cache.h"
#include "sim/cpu.h"
#include "sim/event_queue.h"
#include "sim/stats.h"
#include "sim/task.h"
#include "sim/time.h"

namespace fs::f2fs {

class DataPath {
 public:
  class Host {
   public:
    virtual ~Host() = default;
    virtual bool Dead() const = 0;
    virtual sim::CpuBurst Cpu(sim::SimTime d) = 0;
    virtual bool NeedSsr() const = 0;
    virtual bool IncValidBlocks(uint64_t n) = 0;
    virtual uint64_t ValidBlocks() const = 0;
  };
  // The file system's counters the data path adds to.
  struct Counters {
    sim::Counter* app_bytes_written = nullptr;
    sim::Counter* app_bytes_read = nullptr;
    sim::Counter* direct_bytes_written = nullptr;
    sim::Counter* direct_bytes_read = nullptr;
    sim::Counter* ipu_blocks = nullptr;
    sim::Counter* opu_blocks = nullptr;
    sim::Counter* ssr_blocks = nullptr;
  };
  struct Deps {
    const F2fsConfig* cfg = nullptr;
    const Layout* layout = nullptr;
    sim::EventQueue* events = nullptr;
    Image* image = nullptr;
    vfs::PageCache* cache = nullptr;
    IoManager* io = nullptr;
    SegmentManager* sm = nullptr;
    AllocationPolicy* alloc = nullptr;
    NodeManager* nodes = nullptr;
    InodeTable* inodes = nullptr;
    DataPages* pages = nullptr;
    CheckpointManager* cp = nullptr;
    Durability* durability = nullptr;
    Journal* journal = nullptr;             // with the journal durability mode
    JournalCommitter* committer = nullptr;  // with the journal durability mode
    Counters counters;
    Host* host = nullptr;
  };
  explicit DataPath(const Deps& d);
  DataPath(const DataPath&) = delete;
  DataPath& operator=(const DataPath&) = delete;

  // Reads pages [first, last] of a regular file (read-ahead extends `last`).
  // With `pinned`, the pages of [first, last] are returned pinned (the
  // caller unpins them), so read-ahead cannot evict them before use.
  sim::Task<Errno> ReadPages(Inode* inode, uint64_t first, uint64_t last, std::vector<DataPage*>* pinned = nullptr);
  // Reads up to `len` bytes into `dst`; `dst` null: without handing them back.
  sim::Task<Errno> Read(Inode* inode, uint64_t offset, uint8_t* dst, uint64_t len, uint64_t* done);
  sim::Task<Errno> Write(Inode* inode, uint64_t offset, std::span<const uint8_t> data, uint64_t length,
                         uint64_t* done, bool in_commit);
  sim::Task<Errno> Truncate(Inode* inode, uint64_t size, bool in_commit);
  // Reserves a block (NEW_ADDR) for page `index` if it has none.
  sim::Task<Errno> ReserveBlock(Inode* inode, uint64_t index);
  sim::Task<Errno> ConvertInlineData(Inode* inode);
  // O_DIRECT: 0 direct (offset and length 4 KiB-aligned, not inline), 1
  // buffered instead (aligned to 512 bytes only, or an inline file's read:
  // f2fs_force_buffered_io / check_direct_IO), -1 EINVAL.
  int DirectIoMode(const Inode* inode, uint64_t offset, uint64_t length, bool write) const;
  sim::Task<Errno> DirectWrite(Inode* inode, uint64_t offset, std::span<const uint8_t> data, uint64_t length,
                               uint64_t* done);
  sim::Task<Errno> DirectRead(Inode* inode, uint64_t offset, std::span<uint8_t> out, uint64_t* done);
  // Writes back and waits for the dirty cached pages of [first, last]
  // (filemap_write_and_wait_range); with `drop`, then drops them from the
  // cache (the invalidation after a direct write).
  sim::Task<void> SyncCachedRange(Inode* inode, uint64_t first, uint64_t last, bool drop, bool direct);
  // The log of a data page of `inode` (the allocation policy's choice).
  LogType DataLogType(const Inode* inode, bool hot, bool gc) const;
  // check_inplace_update_policy (and cold files). `sync`: a write someone
  // waits for (fsync, sync, cleaning: REQ_SYNC), not background writeback.
  bool ShouldIpu(const Inode* inode, bool sync) const;
  // Allocates/locates the page's block (IPU or OPU) and queues its write.
  sim::Task<Errno> WriteDataPage(Inode* inode, DataPage* p, bool hot, bool sync, WriteBatcher& wb);
  // Writes back up to `max_pages` dirty pages of `inode` in index order
  // (f2fs_write_cache_pages); with `wait`, waits for their completion.
  sim::Task<void> WritebackInode(Inode* inode, uint64_t max_pages, bool wait, bool from_cp);

 private:
  const InodeFields& I(const Inode* inode) const { return nodes_->I(inode); }

  const F2fsConfig& cfg_;
  const Layout& layout_;
  sim::EventQueue* q_;
  Image* image_;
  vfs::PageCache* cache_;
  IoManager* io_;
  SegmentManager* sm_;
  AllocationPolicy* alloc_;
  NodeManager* nodes_;
  InodeTable* itab_;
  DataPages* dp_;
  CheckpointManager* cpm_;
  Durability* durability_;
  Journal* journal_;
  JournalCommitter* jcm_;
  Counters n_;
  Host* host_;
  std::array<bool, 8> ipu_bits_{};  // by bit index (force, ssr, util, ssr_util, fsync, async)
};

}  // namespace fs::f2fs
