#include "host/fsworkload/fs_workload.h"

#include <glog/logging.h>

namespace host {

FsWorkload::FsWorkload(FsWorkloadEnv env, uint32_t threads)
    : env_(std::move(env)),
      threads_(threads),
      metered_(env_.queue, env_.fs),
      ops_(env_.stats.Group("op")),
      workers_done_(env_.queue),
      threads_group_(env_.queue) {
  CHECK(env_.queue != nullptr && env_.fs != nullptr);
  // A flow's threads are charged to the flow ("flows.<name>").
  if (env_.cpu != nullptr) {
    const std::string& p = env_.stats.prefix();
    owner_ = env_.cpu->Owner(p.rfind("flows.", 0) == 0 ? p : "workload");
  }
  rngs_.reserve(threads_);
  for (uint32_t i = 0; i < threads_; ++i) rngs_.push_back(MakeRng("thread" + std::to_string(i)));

  const sim::StatGroup& g = env_.stats;
  metered_.Register(g.Group("fs"));
  g.AddFormula([this] { return static_cast<double>(ops_.total()); }, "ops", "ops",
               "Named workload operations completed");
  g.AddFormula(
      [this] {
        const double s = measured_seconds();
        return s > 0 ? static_cast<double>(ops_.total()) / s : 0.0;
      },
      "ops_per_sec", "ops/s", "Named operations per second of the measured phase");
  g.Add(&metered_.bytes_read_counter(), "bytes_read", "bytes", "Bytes returned to the application by read/pread");
  g.Add(&metered_.bytes_written_counter(), "bytes_written", "bytes",
        "Bytes written by the application (write/pwrite)");
  g.AddFormula(
      [this] {
        const double s = measured_seconds();
        return s > 0 ? static_cast<double>(metered_.bytes_read()) / s / 1e6 : 0.0;
      },
      "read_MBps", "MB/s", "Application read throughput over the measured phase");
  g.AddFormula(
      [this] {
        const double s = measured_seconds();
        return s > 0 ? static_cast<double>(metered_.bytes_written()) / s / 1e6 : 0.0;
      },
      "write_MBps", "MB/s", "Application write throughput over the measured phase");
  g.AddFormula([this] { return static_cast<double>(metered_.fsyncs()); }, "fsyncs", "calls",
               "fsync and fdatasync calls");
  g.AddFormula([this] { return static_cast<double>(metered_.sync_writes()); }, "sync_writes", "calls",
               "write and pwrite calls on files opened with O_SYNC (each durable on return)");
  g.AddFormula([this] { return static_cast<double>(metered_.calls_total()); }, "fs_calls", "calls",
               "File-system calls issued in the measured phase");
  g.AddFormula([this] { return measured_seconds(); }, "measured_time", "s",
               "Length of the measured phase (workers running)");
  g.AddSeries([this] { return static_cast<double>(ops_.total()); }, sim::StatGroup::SeriesKind::kRate, "ops",
              "ops/s", "Named operations per second");
  g.AddSeries([this] { return static_cast<double>(metered_.bytes_read() + metered_.bytes_written()) / 1e6; },
              sim::StatGroup::SeriesKind::kRate, "MBps", "MB/s", "Application bytes read + written per second");
}

FsWorkload::~FsWorkload() {
  CHECK(threads_group_.empty()) << "a workload's most-derived destructor must call DestroyThreads()";
  if (deadline_event_.scheduled()) env_.queue->Deschedule(&deadline_event_);
}

sim::Rng FsWorkload::MakeRng(std::string_view purpose) const {
  const std::string& prefix = env_.stats.prefix();
  return sim::Rng(env_.seed, prefix.empty() ? std::string(purpose) : prefix + "." + std::string(purpose));
}

void FsWorkload::SetRunTime(sim::SimTime t) {
  CHECK(!started_) << "SetRunTime after Start";
  run_time_ = t;
}

void FsWorkload::Start() {
  CHECK(!started_) << "workload started twice";
  started_ = true;
  Spawn(Main());
}

void FsWorkload::RequestStop() {
  if (stop_) return;
  stop_ = true;
  OnStop();
}

void FsWorkload::Abort(sim::Status why) {
  CHECK(!why.ok());
  if (run_status_.ok()) run_status_ = std::move(why);
  RequestStop();
}

sim::SimTime FsWorkload::end_time() const {
  if (!started_) return start_time_;
  return measuring_ ? now() : end_time_;
}

double FsWorkload::measured_seconds() const { return (end_time() - start_time_).sec(); }

sim::Task<void> FsWorkload::Setup() { co_return; }
sim::Task<void> FsWorkload::Teardown() { co_return; }

sim::Task<void> FsWorkload::SleepUntil(sim::SimTime t) {
  if (t > deadline_) t = deadline_;
  if (t <= now()) co_return;
  co_await sim::Delay(env_.queue, t - now());
}

sim::Task<void> FsWorkload::RunWorker(uint32_t index) {
  co_await Worker(index);
  if (--running_ == 0) {
    end_time_ = now();
    measuring_ = false;
    env_.stats.EndMeasured(end_time_);
    workers_done_.Complete(true);
  }
}

sim::Task<void> FsWorkload::Main() {
  co_await Setup();
  start_time_ = now();
  end_time_ = start_time_;
  if (!stop_ && threads_ > 0) {
    if (run_time_ > sim::SimTime::Zero()) {
      deadline_ = start_time_ + run_time_;
      env_.queue->Schedule(&deadline_event_, deadline_);
    }
    measuring_ = true;
    env_.stats.BeginMeasured(start_time_);
    running_ = threads_;
    for (uint32_t i = 0; i < threads_; ++i) Spawn(RunWorker(i));
    co_await workers_done_;
  }
  if (deadline_event_.scheduled()) env_.queue->Deschedule(&deadline_event_);
  co_await Teardown();
  done_ = true;
  if (on_done_) on_done_();
}

}  // namespace host
