// Cleaner: F2FS's cleaning control (f2fs_gc, gc_thread_func,
// has_enough_invalid_blocks): when to clean, which sections (through the
// victim policies of victim_policy.h), and how the background thread
// paces itself. How a victim's valid blocks move is the host's
// (CleanerHost::MigrateSection, the F2FS data and node paths), so a design
// that cleans differently — coordinated with the device, or with its own
// pacing — replaces this class without touching the migration, and the
// reverse.
//
// Contract:
// - Gc(foreground, from_thread) runs one cleaning call under the cleaning
//   lock (one cleaner at a time), as the kernel's f2fs_gc: if the host
//   lacks free sections on entry, a checkpoint first turns prefree
//   sections free (when there are any), and only if that is not enough
//   does the call clean in foreground mode — victims of the foreground
//   policy until the sections it emptied make up the shortfall, with no
//   checkpoint in between (at most one pass over the sections) — except
//   with regions (ParaFS), where a checkpoint follows a foreground victim
//   when emptied sections wait as prefree and fewer than two free sections
//   a region are left. With
//   enough space, a foreground call from outside the thread returns at
//   once and a background call cleans one victim of the background policy.
//   Returns the number of victims cleaned; 0 after a power cut.
// - Background victims (the kernel's victim_secmap): a section background
//   cleaning chose keeps valid blocks until the host writes the pages the
//   migration dirtied; until it holds none, background selection skips it
//   and foreground cleaning takes it first (check_bg_victims, lowest
//   section first). gc.sections_freed counts a foreground victim when its
//   migration empties it, a background victim when the cleaner next finds
//   it empty (each call and each wake-up of the thread).
// - Thread() is the background thread (gc_thread_func): sleeps min_sleep
//   .. max_sleep, lengthened while the host is busy or has few invalid
//   blocks and shortened while it has many, no_gc_sleep after a round
//   without a victim; cleans only when the host has been idle for
//   idle_interval; runs the host's background balance after each wake-up.
//   Returns when the host stops or dies; Kick() cuts a sleep short.
// - Kill() (power cut): waiters on the cleaning lock and the sleep return
//   and nothing more is scheduled.
//
// Per-region cleaning (ParaFS's multi-threaded GC, fs.f2fs.parafs_2d
// .gc_threads: per_region, with regions only): one cleaning thread per
// region (flash channel) and a manager.
// - Foreground: a Gc call that lacks free sections (after a checkpoint of
//   the prefree ones) is the manager: it holds the cleaning lock, starts
//   one cleaning task per region short of space — a region is short while
//   its free sections plus those it emptied in this pass are fewer than
//   its share of what the host needs, ceil((NeededFreeSecs() + 1) /
//   regions) (the foreground threshold per region) — the tasks clean
//   victims of their own region with the foreground policy concurrently
//   (each stops once its region has its share, the sections the pass
//   emptied end the host's shortage, its region has no victim, or fewer
//   than two free sections a region are left), and when all have
//   finished the manager checkpoints, so the emptied sections become free
//   and are trimmed. Passes repeat while the host lacks space and a pass
//   cleaned something.
// - Background: Thread() runs one thread per region, each paced as the
//   single thread is (same sleeps, idle test and invalid-block test; the
//   host's background balance runs from region 0's thread only); a
//   wake-up cleans one background victim of its own region under the
//   cleaning lock shared (background threads of different regions clean
//   at once; a foreground call waits for them and they for it), or runs
//   the foreground passes above when the host lacks space. Background
//   victims become free at the next checkpoint, as with one thread.
// - gc.max_parallel is the most sections being migrated at one time.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "fs/f2fs/f2fs_config.h"
#include "fs/f2fs/layout.h"
#include "fs/f2fs/segment_manager.h"
#include "fs/vfs/sync_primitives.h"
#include "fs/f2fs/victim_policy.h"
#include "sim/event_queue.h"
#include "sim/stats.h"
#include "sim/task.h"

namespace fs::f2fs {

// What the cleaner needs of the file system it cleans.
class CleanerHost {
 public:
  virtual ~CleanerHost() = default;
  virtual bool Dead() const = 0;      // power cut
  virtual bool Stopping() const = 0;  // unmounting
  // has_not_enough_free_secs(sbi, freed, 0).
  virtual bool HasNotEnoughFreeSecs(uint32_t freed) const = 0;
  // Blocks in use (data, reservations and nodes).
  virtual uint64_t ValidBlocks() const = 0;
  virtual bool IsIdle(sim::SimTime interval) const = 0;
  // A checkpoint for cleaning (turns prefree sections free).
  virtual sim::Task<void> CheckpointForCleaning() = 0;
  // Moves every valid block of section `sec` (do_garbage_collect); returns
  // the blocks moved. A foreground call writes them and waits; a background
  // call may only dirty their pages (the section empties later).
  virtual sim::Task<uint32_t> MigrateSection(uint32_t sec, bool foreground) = 0;
  // f2fs_balance_fs_bg.
  virtual sim::Task<void> BackgroundBalance() = 0;
  // The free sections below which HasNotEnoughFreeSecs(0) holds (it holds
  // when free sections <= this).
  virtual uint32_t NeededFreeSecs() const = 0;
};

struct CleanerStats {
  sim::Counter bg_calls, fg_calls, victims_bg, victims_fg, sections_freed;
  sim::Counter region_passes;  // per-region foreground passes (each ends in the manager's checkpoint)
  sim::Gauge max_parallel;     // most sections migrating at one time
};

class Cleaner {
 public:
  // Fails when a victim policy name is unknown. The arguments outlive the
  // cleaner.
  static sim::Result<std::unique_ptr<Cleaner>> Create(sim::EventQueue* q, const F2fsConfig& cfg,
                                                      const Layout& layout, const SegmentManager* sm,
                                                      CleanerHost* host, CleanerStats* stats);

  sim::Task<uint32_t> Gc(bool foreground, bool from_thread);
  sim::Task<void> Thread();
  void Kick() {
    timer_.Kick();
    for (auto& t : region_timers_) t->Kick();
  }
  void Kill() {
    lock_.Kill();
    timer_.Cancel();
    for (auto& t : region_timers_) t->Cancel();
    join_wq_.Kill();
  }
  // Destroys the per-region tasks still running (the owner calls it before
  // destroying what they use, e.g. with its own threads).
  void DestroyWorkers() { workers_.DestroyAll(); }
  bool per_region() const { return per_region_; }
  bool HasEnoughInvalidBlocks() const;
  // Sections background cleaning chose that still hold valid blocks.
  size_t pending_bg_victims() const { return bg_victim_list_.size(); }

 private:
  Cleaner(sim::EventQueue* q, const F2fsConfig& cfg, const Layout& layout, const SegmentManager* sm,
          CleanerHost* host, CleanerStats* stats);

  sim::EventQueue* q_;
  const F2fsConfig& cfg_;
  const Layout& layout_;
  const SegmentManager* sm_;
  CleanerHost* host_;
  CleanerStats* stats_;
  std::unique_ptr<VictimPolicy> bg_policy_;
  std::unique_ptr<VictimPolicy> fg_policy_;
  // Drops background victims left without valid blocks (counted freed).
  void RefreshBgVictims();
  // check_bg_victims: the lowest background victim foreground cleaning may
  // take (of `region` only, unless kAnyRegion), removed from the map;
  // kNoSection if none.
  uint32_t TakeBgVictim(uint32_t region = kAnyRegion);
  // Per-region cleaning (see the file comment).
  sim::Task<uint32_t> GcRegions(bool foreground, bool from_thread);
  sim::Task<void> CleanRegion(uint32_t region, uint32_t share, uint32_t* victims);
  sim::Task<uint32_t> GcRegionBackground(uint32_t region);
  // The background loop of the one thread (region kAnyRegion) or of one
  // region's thread.
  sim::Task<void> ThreadLoop(vfs::DaemonTimer* timer, uint32_t region);
  sim::Task<void> RegionThread(uint32_t region);
  void MigrationStarts() {
    ++migrating_;
    if (migrating_ > stats_->max_parallel.value()) stats_->max_parallel.Set(migrating_);
  }

  uint32_t last_victim_bg_ = 0;
  uint32_t last_victim_fg_ = 0;
  std::vector<uint8_t> bg_victims_;      // by section (victim_secmap)
  std::vector<uint32_t> bg_victim_list_; // the sections set in bg_victims_
  vfs::RwLock lock_;
  vfs::DaemonTimer timer_;
  // Per-region cleaning.
  bool per_region_ = false;
  std::vector<uint32_t> last_victim_fg_r_, last_victim_bg_r_;
  std::vector<std::unique_ptr<vfs::DaemonTimer>> region_timers_;
  uint32_t migrating_ = 0;   // sections being migrated now
  uint32_t tasks_running_ = 0;    // foreground region tasks not finished
  uint32_t threads_running_ = 0;  // region threads not finished
  uint32_t pass_emptied_ = 0;     // sections the tasks of this pass emptied
  vfs::WaitQueue join_wq_;        // woken when either drops to 0
  sim::ThreadGroup workers_;  // last: destroyed first
};

}  // namespace fs::f2fs
