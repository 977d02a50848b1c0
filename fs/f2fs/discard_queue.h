// DiscardQueue: the discard commands of the F2FS model (the kernel's
// discard_cmd_control, Linux 5.15 fs/f2fs/segment.c): ranges of the main
// area a checkpoint freed, waiting to be sent to the device as trims.
// Synchronous bookkeeping only; the F2fs submits the trims, reports their
// completions (Done) and paces the issue (its discard thread).
//
// Commands never overlap and are kept sorted by address (the kernel's
// discard rb-tree). A command is
//   pending  (D_PREP) — not sent yet: it may grow by merging, be punched
//            by an allocation, be dropped; or
//   issued   (D_SUBMIT) — its trim is in flight: it stays until Done, so a
//            write to one of its blocks can wait for it.
//
// Add (__queue_discard_cmd / __update_discard_tree_range): the parts of the
// range no command covers become commands; with `merge`, a part adjacent to
// a pending command joins it while the result stays within max_blocks
// (the device's largest discard). A part longer than max_blocks is split
// when queued (the kernel splits it into several bios when it issues it;
// either way each piece is one request).
//
// Allocation (f2fs_wait_discard_bio, called from f2fs_allocate_data_block):
// the SegmentManager reports every block a log takes (OnBlocksAllocated);
// a pending command covering it is punched around it (__punch_discard_cmd),
// so no trim issued later can reach a block in use. An issued command
// still in flight covering it is the caller's to wait for (IssuedOverlaps)
// before the write goes to the device.
//
// Issue (__issue_discard_cmd with a discard_policy): pending commands by
// length class, largest class first (the kernel's pend_list[min(len,
// 512) - 1]; first come first within a class, a merged or punched command
// counting as new), none shorter than the policy's granularity; with an
// ordered policy, once the classes reach commands of at most max_ordered
// blocks (5.15: DEFAULT_DISCARD_GRANULARITY), the rest goes in address
// order from where the previous ordered walk stopped
// (__issue_discard_cmd_orderly, which in 5.15 checks no length and counts
// its requests afresh; its result is the round's). Before each command
// `may_issue()` is asked (the io-aware idle check, or the umount
// timeout); false ends the round as interrupted.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>

#include "fs/f2fs/on_disk.h"
#include "fs/f2fs/segment_manager.h"
#include "sim/stats.h"

namespace fs::f2fs {

struct DiscardStats {
  sim::Counter commands;           // commands issued (trims sent)
  sim::Counter blocks;             // blocks in them
  sim::Counter merged;             // queued ranges joined to a pending neighbour
  sim::Counter punched;            // blocks cut out of pending commands by allocations
  sim::Counter rounds;             // background rounds that ran
  sim::Counter interrupted_rounds; // background rounds stopped because the file system was not idle
  sim::Counter write_waits;        // writes held until an issued discard of their blocks completed
  sim::Counter dropped_blocks;     // pending blocks dropped (unmount timeout, erase-before-reuse trims)
};

class DiscardQueue final : public SegmentManager::AllocationObserver {
 public:
  struct Options {
    uint32_t max_blocks = UINT32_MAX;  // longest command; merges stay within it (>= 1)
    bool merge = true;                 // pending neighbours merge
    uint32_t max_ordered = 16;         // ordered policies issue commands up to this length by address
  };
  // discard_policy.
  struct Policy {
    uint32_t granularity = 1;   // shortest command the length classes issue
    uint32_t max_requests = 8;  // commands per round (per phase, as the kernel counts)
    bool ordered = false;       // short commands go in address order
  };
  struct Round {
    uint32_t issued = 0;       // the round's result as the kernel counts it (see Issue)
    uint32_t submitted = 0;    // every command submitted by the round
    bool interrupted = false;  // may_issue() said no
  };

  // `stats` outlives this.
  DiscardQueue(const Options& opt, DiscardStats* stats) : opt_(opt), stats_(stats) {}

  // Queues [start, start + len) for discard (len > 0).
  void Add(BlockAddr start, uint32_t len);
  // SegmentManager::AllocationObserver: punches pending commands.
  void OnBlocksAllocated(BlockAddr first, uint32_t n) override;
  // Removes [start, start + n) from the pending commands (a trim of the
  // range went to the device another way); counted as dropped.
  void DropPending(BlockAddr start, uint32_t n);
  // Drops every pending command (__drop_discard_cmd); returns its blocks.
  uint64_t DropAllPending();
  // An issued command still in flight covers a block of [start, start + n).
  bool IssuedOverlaps(BlockAddr start, uint32_t n) const;

  // One round under `p`: calls submit(start, len) for each command sent
  // (it is issued from then on; report its completion with Done(start)).
  Round Issue(const Policy& p, const std::function<bool()>& may_issue,
              const std::function<void(BlockAddr, uint32_t)>& submit);
  // The trim of the issued command starting at `start` completed.
  void Done(BlockAddr start);

  // A pending command of at least `len` blocks exists (wake_up_discard_thread).
  bool HasPendingAtLeast(uint32_t len) const;
  uint64_t commands() const { return tree_.size(); }  // discard_cmd_cnt
  uint64_t pending_commands() const { return pend_.size(); }
  uint64_t pending_blocks() const { return pending_blocks_; }
  uint64_t issued_commands() const { return tree_.size() - pend_.size(); }  // queued_discard
  // Every command, in address order (tests).
  struct Cmd {
    uint32_t len = 0;
    bool issued = false;
    uint64_t seq = 0;  // position in its length class
  };
  const std::map<uint32_t, Cmd>& commands_by_address() const { return tree_; }

 private:
  static constexpr uint32_t kClasses = 512;  // MAX_PLIST_NUM
  struct PendKey {
    uint32_t cls;  // min(len, kClasses)
    uint64_t seq;
    uint32_t start;
    bool operator<(const PendKey& o) const {
      if (cls != o.cls) return cls > o.cls;  // largest class first
      return seq < o.seq;
    }
  };
  static uint32_t ClassOf(uint32_t len) { return len < kClasses ? len : kClasses; }
  PendKey KeyOf(uint32_t start, const Cmd& c) const { return PendKey{ClassOf(c.len), c.seq, start}; }
  // Inserts a pending command (not merging).
  void InsertPending(uint32_t start, uint32_t len);
  // Adds one uncovered piece, merging with pending neighbours.
  void AddPiece(uint32_t start, uint32_t len);
  // Removes [start, end) from pending commands; returns the blocks removed.
  uint64_t Punch(uint32_t start, uint32_t end);
  void Submit(std::map<uint32_t, Cmd>::iterator it, const std::function<void(BlockAddr, uint32_t)>& submit);
  Round IssueOrderly(const Policy& p, const std::function<bool()>& may_issue,
                     const std::function<void(BlockAddr, uint32_t)>& submit);

  Options opt_;
  DiscardStats* stats_;
  std::map<uint32_t, Cmd> tree_;  // by start address
  std::set<PendKey> pend_;        // pending commands in issue order of the length classes
  uint64_t pending_blocks_ = 0;
  uint64_t next_seq_ = 1;
  uint32_t next_pos_ = 0;  // where the next ordered walk starts (dcc->next_pos)
};

}  // namespace fs::f2fs
