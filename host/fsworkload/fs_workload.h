// FsWorkload: the base of every file-system workload: simulated threads on
// the one clock driving an fs::FileSystem, with common statistics.
//
// Life cycle. Start() spawns a root simulated thread that
//  1. runs Setup() (unmeasured: filesets, layout, trace preparation; it
//     should use raw_fs(), whose calls are not counted),
//  2. starts thread_count() worker threads at the same instant (the start
//     of the measured phase) and, with a run time, arms the deadline,
//  3. waits until every worker has returned (end of the measured phase),
//  4. runs Teardown() (unmeasured), then marks the workload done and calls
//     the done callback once.
// Workers poll stopping() between operations; RequestStop() (also called
// at the deadline and by Abort()) makes them wind down and wakes those
// blocked on workload-internal waits (OnStop()). A worker that is inside a
// file-system call finishes that call first.
//
// Destroying a workload before done() (a run cut short by a time limit)
// destroys its simulated threads still suspended, with everything they
// await (their waits withdraw, see sim/task.h). The threads are owned by
// the workload: the most-derived class's destructor calls DestroyThreads()
// before its own members, which the threads use, go.
//
// Randomness. Worker i draws from its own stream
// sim::Rng(seed, "<stats prefix>.thread<i>"); other streams are derived
// from the prefix and a purpose ("<prefix>.setup"), so runs are
// reproducible and independent of the number of draws elsewhere.
//
// Statistics, under the group given at construction (e.g. "workload"):
//   op.<name>.{count,errors,bytes,lat}  named operations (OpStats)
//   fs.<call>.{calls,errors,lat}        file-system calls (MeteredFs)
//   ops, ops_per_sec                    named operations completed, rate
//   bytes_read, bytes_written           application bytes (read/pread
//                                       returned, write/pwrite accepted)
//   read_MBps, write_MBps, fsyncs       (fsync + fdatasync calls)
//   fs_calls, measured_time (s)
//   series: ops (ops/s) and MBps (read + write)
// Rates use measured_time = end_time - start_time (now while running).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fs/file_system.h"
#include "host/fsworkload/metered_fs.h"
#include "host/fsworkload/op_stats.h"
#include "sim/cpu.h"
#include "sim/event_queue.h"
#include "sim/rng.h"
#include "sim/stats.h"
#include "sim/status.h"
#include "sim/task.h"
#include "sim/time.h"

namespace ssd {
class BlockDevice;
}

namespace host {

// What every file-system workload is built with.
struct FsWorkloadEnv {
  sim::EventQueue* queue = nullptr;
  fs::FileSystem* fs = nullptr;
  sim::StatGroup stats;  // statistics are registered below this group
  uint64_t seed = 1;     // run seed
  // The device under the file system, for workloads that measure it (the
  // aging workload's layout score); may be null. Workloads never submit
  // requests to it.
  ssd::BlockDevice* device = nullptr;
  // The host's CPUs: worker threads are charged to its owner "workload".
  sim::CpuScheduler* cpu = nullptr;
};

class FsWorkload {
 public:
  virtual ~FsWorkload();
  FsWorkload(const FsWorkload&) = delete;
  FsWorkload& operator=(const FsWorkload&) = delete;

  // Starts the workload at queue->now(). REQUIRES: called once.
  void Start();
  // Called once when the workload is done.
  void SetDoneCallback(std::function<void()> fn) { on_done_ = std::move(fn); }
  // Asks the workers to stop at their next operation boundary.
  void RequestStop();

  bool started() const { return started_; }
  bool done() const { return done_; }
  // Start of the measured phase (when the workers started).
  sim::SimTime start_time() const { return start_time_; }
  // When the last worker returned; now() while running.
  sim::SimTime end_time() const;
  double measured_seconds() const;
  // OK, or why the run ended early (a failed call that the workload treats
  // as fatal, filebench running out of files, a setup failure).
  const sim::Status& run_status() const { return run_status_; }

  uint32_t thread_count() const { return threads_; }
  const OpStats& ops() const { return ops_; }
  const MeteredFs& metered() const { return metered_; }

 protected:
  FsWorkload(FsWorkloadEnv env, uint32_t threads);

  // Unmeasured preparation (use raw_fs()). May call Abort().
  virtual sim::Task<void> Setup();
  // Worker `index` in [0, thread_count()).
  virtual sim::Task<void> Worker(uint32_t index) = 0;
  // Unmeasured clean-up after the workers (use raw_fs()).
  virtual sim::Task<void> Teardown();
  // Called by RequestStop(): wake workers blocked on internal waits.
  virtual void OnStop() {}

  sim::EventQueue* queue() const { return env_.queue; }
  fs::FileSystem* fs() { return &metered_; }
  fs::FileSystem* raw_fs() { return env_.fs; }
  sim::Rng& rng(uint32_t thread) { return rngs_[thread]; }
  // A stream for `purpose` under the run seed and the stats prefix.
  sim::Rng MakeRng(std::string_view purpose) const;
  const sim::StatGroup& stats_group() const { return env_.stats; }
  OpStats& op_stats() { return ops_; }
  sim::SimTime now() const { return env_.queue->now(); }

  // The measured phase ends `t` after it starts (zero = no bound).
  // REQUIRES: before Start().
  void SetRunTime(sim::SimTime t);
  sim::SimTime deadline() const { return deadline_; }
  bool stopping() const { return stop_ || now() >= deadline_; }
  // Records `why` as the run status (the first one wins) and stops.
  void Abort(sim::Status why);

  // Suspends until `t`, or until the deadline if that is earlier. Returns
  // at once if `t` <= now.
  sim::Task<void> SleepUntil(sim::SimTime t);

  // Starts `task` as another simulated thread of the workload (from an
  // event at now()), owned by it.
  void Spawn(sim::Task<void> task) { threads_group_.Spawn(std::move(task), owner_); }
  // Destroys every thread still running. The most-derived destructor calls
  // it first (the base destructor CHECKs that no thread is left).
  void DestroyThreads() { threads_group_.DestroyAll(); }

 private:
  sim::Task<void> Main();
  sim::Task<void> RunWorker(uint32_t index);
  void OnDeadline() { RequestStop(); }

  FsWorkloadEnv env_;
  uint16_t owner_ = 0;  // CPU owner of the threads
  uint32_t threads_;
  MeteredFs metered_;
  OpStats ops_;
  std::vector<sim::Rng> rngs_;
  std::function<void()> on_done_;

  bool started_ = false;
  bool done_ = false;
  bool stop_ = false;
  bool measuring_ = false;
  sim::SimTime run_time_;
  sim::SimTime start_time_;
  sim::SimTime end_time_;
  sim::SimTime deadline_ = sim::SimTime::Max();
  uint32_t running_ = 0;
  sim::Status run_status_;
  sim::Completion<bool> workers_done_;
  sim::MemberEvent<FsWorkload, &FsWorkload::OnDeadline> deadline_event_{this};
  // Last: the threads go before what they use.
  sim::ThreadGroup threads_group_;
};

}  // namespace host
