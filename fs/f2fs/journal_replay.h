// JournalReplay: mount-time replay of the journal durability mode's
// (F2FS-J's) committed records after the loaded checkpoint.
//
// Contract:
// - Replay(cp, ...) scans the journal ring from the checkpoint's position
//   while the blocks follow in sequence; a block's records count once the
//   last block of their commit is there (a commit whose last block is
//   missing is dropped: fs.journal.replay_dropped); a damaged block
//   (checksum, format) stops the scan at the last good commit before it
//   (fs.journal.corrupt_blocks) with a warning. The Journal then continues
//   after the last committed block with block sequence numbers one lap
//   ahead, so no block left from before can pass for a new one; the
//   CheckpointManager learns the records the checkpoint covered.
// - Records are applied in sequence under cp_rwsem shared, metadata only:
//   create/mkdir (the recorded inode number), unlink/rmdir, link, rename,
//   setattr/fsync (size; an inline file's data as of its fsync; a shrink
//   frees the blocks past the end but keeps the last page's content) and
//   DATA_WRITE (the block adopted by its dnode when no other owner has it,
//   beyond the user limit if need be). A record whose preconditions no
//   longer hold (the name taken, the inode gone) is skipped
//   (fs.journal.replay_skipped), the rest counted (fs.journal.replayed).
// - `*recovered_key`: the key of the last commit replayed past the
//   checkpoint, 0 when the checkpoint's state stood.
//
// State owned: none between calls; the counters are the F2fs's, passed in.
// Locks: cp_rwsem shared while records are applied (no other operation
// runs at mount). Who calls it: the F2fs's mount, before roll-forward
// recovery. It calls the Journal, the IoManager (the ring's reads), the
// NamespaceManager (names, iget, inode creation), the NodeManager, the
// SegmentManager, DataPages, the CheckpointManager and, through its Host,
// inode freeing and space accounting.
#pragma once

#include <cstdint>

#include "fs/f2fs/checkpoint_manager.h"
#include "fs/f2fs/data_pages.h"
#include "fs/f2fs/image.h"
#include "fs/f2fs/inode_table.h"
#include "fs/f2fs/io_manager.h"
#include "fs/f2fs/journal.h"
#include "fs/f2fs/journal_format.h"
#include "fs/f2fs/layout.h"
#include "fs/f2fs/namespace_manager.h"
#include "fs/f2fs/nat_table.h"
#include "fs/f2fs/node_manager.h"
#include "fs/f2fs/segment_manager.h"
#include "sim/event_queue.h"
#include "sim/stats.h"
#include "sim/status.h"
#include "sim/task.h"

namespace fs::f2fs {

class JournalReplay {
 public:
  class Host {
   public:
    virtual ~Host() = default;
    virtual sim::Task<void> FreeInode(Inode* inode) = 0;
    // A block replay adopted: counted valid without the user limit's check.
    virtual void AddRecoveredBlock() = 0;
  };
  struct Counters {
    sim::Counter* replayed = nullptr;
    sim::Counter* skipped = nullptr;
    sim::Counter* dropped = nullptr;
    sim::Counter* corrupt_blocks = nullptr;
  };
  struct Deps {
    const Layout* layout = nullptr;
    sim::EventQueue* events = nullptr;
    Image* image = nullptr;
    IoManager* io = nullptr;
    SegmentManager* sm = nullptr;
    NatTable* nat = nullptr;
    NodeManager* nodes = nullptr;
    NamespaceManager* ns = nullptr;
    InodeTable* inodes = nullptr;
    DataPages* pages = nullptr;
    CheckpointManager* cp = nullptr;
    Journal* journal = nullptr;
    Counters counters;
    Host* host = nullptr;
  };
  explicit JournalReplay(const Deps& d);
  JournalReplay(const JournalReplay&) = delete;
  JournalReplay& operator=(const JournalReplay&) = delete;

  // `*applied`: the records applied.
  sim::Task<sim::Status> Replay(const JournalPosition& cp, uint64_t* applied, uint64_t* recovered_key);

 private:
  const InodeFields& I(const Inode* inode) const { return nodes_->I(inode); }
  InodeFields& MutI(Inode* inode) { return nodes_->MutI(inode); }
  sim::Task<bool> ApplyRecord(const JournalRecord& r);
  // SETATTR/FSYNC: the size as of the record, metadata only.
  sim::Task<bool> Resize(Inode* in, uint64_t size);

  const Layout& layout_;
  sim::EventQueue* q_;
  Image* image_;
  IoManager* io_;
  SegmentManager* sm_;
  NatTable* nat_;
  NodeManager* nodes_;
  NamespaceManager* ns_;
  InodeTable* itab_;
  DataPages* dp_;
  CheckpointManager* cpm_;
  Journal* journal_;
  Counters n_;
  Host* host_;
};

}  // namespace fs::f2fs
