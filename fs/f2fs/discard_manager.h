// DiscardManager: when the F2FS model's freed blocks are trimmed — the
// kernel's discard_cmd_control (segment.c: issue_discard_thread,
// __init_discard_policy, f2fs_issue_discard_timeout) over the DiscardQueue
// (discard_queue.h, the sorted and merged pending commands), and the
// whole-section trims of a device of fixed placement.
//
// Contract:
// - Queue(freed) adds the ranges a checkpoint freed (CommitCheckpoint's) to
//   the DiscardQueue and wakes the thread if enough is pending and the file
//   system is idle for discard (wake_up_discard_thread).
// - Thread() is the discard thread (DPOLICY_BG): sleeps min/mid/max_interval;
//   issues at most max_requests commands a round, longest first then short
//   ones by address, only while the file system is idle for discard
//   (discard.idle_interval without a request, no read, plain data write or
//   flush in flight: Host::InflightIo(false)); above urgent_util it issues
//   every length and sleeps min_interval while commands are pending.
//   Returns when the host stops or dies; Kick() cuts a sleep short.
// - IssueAtUmount() (DPOLICY_UMOUNT): everything pending, not I/O-aware,
//   max_requests at a time and waited for, until nothing is left or
//   umount_timeout passed; the rest is dropped.
// - On a device of fixed placement (a flash block is erased only when
//   trimmed whole): TrimFreedSections trims each freed section that is now
//   free, whole, at once, and drops what was pending in it;
//   TrimAllFreeSections (mount) trims every free section the device reports
//   written. On a zoned device (a section is a zone) the trim of a freed
//   section is its Zone Reset (IoManager::SubmitTrim), partial discards in
//   the zones are dropped (a sequential zone takes none), and at mount every
//   free section whose zone is not empty is reset.
// - Every trim goes through the IoManager; a discard command's completion
//   comes back as OnDiscardDone (IoManager::Host::DiscardDone).
// - Kill() (power cut): waiters return, the timer is cancelled, nothing
//   more is scheduled.
//
// State owned: the discard thread's timer and the wait queue of issued
// discards completing. Not owned: the DiscardQueue and its DiscardStats
// (shared with the IoManager, which holds back writes to blocks an issued
// command covers), the SegmentManager (read: free sections, valid blocks).
// No lock: bookkeeping runs between suspension points.
//
// Who calls it: the checkpoint (Queue, TrimFreedSections), mount
// (TrimAllFreeSections), unmount (Kick, IssueAtUmount), the I/O layer
// (OnDiscardDone). It calls the IoManager and, for the file system's
// state, its Host.
#pragma once

#include <cstdint>
#include <vector>

#include "fs/f2fs/discard_queue.h"
#include "fs/f2fs/f2fs_config.h"
#include "fs/f2fs/io_manager.h"
#include "fs/f2fs/layout.h"
#include "fs/f2fs/segment_manager.h"
#include "fs/vfs/sync_primitives.h"
#include "sim/event_queue.h"
#include "sim/stats.h"
#include "sim/task.h"
#include "sim/time.h"
#include "ssd/block_device.h"

namespace fs::f2fs {

class DiscardManager {
 public:
  // The file system's state the discard policy reads.
  class Host {
   public:
    virtual ~Host() = default;
    virtual bool Dead() const = 0;      // power cut
    virtual bool Stopping() const = 0;  // unmount stops the threads
    virtual sim::SimTime LastRequestTime() const = 0;
    // is_inflight_io; `count_queued_discards`: trims in flight count too.
    virtual bool InflightIo(bool count_queued_discards) const = 0;
    virtual uint64_t ValidBlocks() const = 0;  // data, NEW reservations and nodes
  };
  struct Deps {
    const F2fsConfig* cfg = nullptr;
    const Layout* layout = nullptr;
    sim::EventQueue* events = nullptr;
    ssd::BlockDevice* device = nullptr;
    SegmentManager* sm = nullptr;
    DiscardQueue* dq = nullptr;
    DiscardStats* stats = nullptr;
    sim::Counter* section_trims = nullptr;
    IoManager* io = nullptr;
    Host* host = nullptr;
  };
  explicit DiscardManager(const Deps& d);
  DiscardManager(const DiscardManager&) = delete;
  DiscardManager& operator=(const DiscardManager&) = delete;

  void Queue(const std::vector<SegmentManager::DiscardRange>& freed);
  sim::Task<void> Thread();  // issue_discard_thread
  void Kick() { timer_.Kick(); }
  sim::Task<void> IssueAtUmount();  // f2fs_issue_discard_timeout
  void TrimFreedSections(std::vector<SegmentManager::DiscardRange>* freed);
  // The device zone section `sec` is. REQUIRES: a zoned device.
  uint64_t ZoneOfSection(uint32_t sec) const;
  void TrimAllFreeSections();
  void OnDiscardDone() { discard_wq_.NotifyAll(); }
  void Kill();

 private:
  // The background policy now (__init_discard_policy(DPOLICY_BG)) and its
  // sleep with nothing to issue.
  DiscardQueue::Policy BackgroundPolicy(sim::SimTime* max_interval) const;
  bool IdleForDiscard() const;           // is_idle(DISCARD_TIME)
  sim::SimTime DiscardIdleWait() const;  // f2fs_time_to_wait(DISCARD_TIME)
  void WakeThread();                     // wake_up_discard_thread(sbi, false)
  void SubmitDiscard(BlockAddr start, uint32_t count);
  sim::Task<void> WaitIssuedDiscards();
  void TrimSection(uint32_t sec);

  const F2fsConfig& cfg_;
  const Layout& layout_;
  sim::EventQueue* q_;
  ssd::BlockDevice* dev_;
  SegmentManager* sm_;
  DiscardQueue* dq_;
  DiscardStats* stats_;
  sim::Counter* section_trims_;
  IoManager* io_;
  Host* host_;
  vfs::DaemonTimer timer_;
  vfs::WaitQueue discard_wq_;  // issued discards completing
};

}  // namespace fs::f2fs
