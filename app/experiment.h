// An experiment: the root configuration and the assembled simulation stack.
//
// ExperimentConfig is the root of the YAML tree:
//   name, seed                 identity of the run
//   run.*                      run bounds, statistics interval
//   device.{geometry,flash,ssd}.*  the simulated SSD
//   ftl.*                      the flash translation layer (incl. precondition)
//   fs.*                       the file system for file workloads (kind + its section)
//   workload.*                 what drives the stack (kind + its section)
//
// Experiment builds the stack bottom-up (NAND array, FTL, host interface,
// workload) with dependencies passed through constructors, runs it on one
// EventQueue and exposes the stats registry for the results writer.
#pragma once

#include <memory>
#include <ostream>
#include <string>

#include "fs/f2fs/f2fs_config.h"
#include "fs/memfs/mem_fs.h"
#include "ftl/ftl_config.h"
#include "host/fsworkload/file_fio.h"
#include "host/fsworkload/filebench_workload.h"
#include "host/fsworkload/mobigen_replay.h"
#include "host/fsworkload/postmark.h"
#include "host/sqlite/mobibench.h"
#include "host/replay/trace_replay_config.h"
#include "host/workload/fio_config.h"
#include "sim/config.h"
#include "ssd/device_config.h"
#include "sim/stats.h"
#include "sim/status.h"
#include "sim/time.h"

namespace app {

struct RunSection {
  sim::SimTime max_time;        // 0 = until the workload finishes
  sim::SimTime stats_interval;  // time-series sampling period
  static void Describe(sim::Schema<RunSection>& s);
};

// The file system between file workloads and the device.
struct FsSection {
  std::string kind;  // "none" | "memfs" | "f2fs"
  sim::Bytes volume;  // formatted size; 0 = the whole device
  fs::MemFsConfig memfs;
  fs::f2fs::F2fsConfig f2fs;
  static void Describe(sim::Schema<FsSection>& s);
};

struct WorkloadSection {
  // Block workloads (fio, trace) drive the device directly; file workloads
  // (filebench, fio_files, postmark, mobigen, mobibench) need fs.kind.
  std::string kind;
  host::FioConfig fio;
  host::TraceReplayConfig trace;
  host::FilebenchConfig filebench;
  host::FileFioConfig fio_files;
  host::PostmarkConfig postmark;
  host::MobigenConfig mobigen;
  host::sqlite::MobibenchConfig mobibench;
  bool is_block() const { return kind == "fio" || kind == "trace"; }
  static void Describe(sim::Schema<WorkloadSection>& s);
};

struct ExperimentConfig {
  std::string name;
  uint64_t seed = 1;
  RunSection run;
  ssd::DeviceConfig device;
  ftl::FtlConfig ftl;
  FsSection fs;
  WorkloadSection workload;
  static void Describe(sim::Schema<ExperimentConfig>& s);
};

// Cross-section validation (device geometry vs FTL, workload vs device
// capacity). Messages start with the full key path ("ftl.op: …").
sim::Status ValidateExperiment(const ExperimentConfig& cfg);

struct RunReport {
  double wall_seconds = 0;
  uint64_t events = 0;
  sim::SimTime sim_time;
  uint64_t host_ios = 0;
};

class Experiment {
 public:
  // Builds the stack. REQUIRES: ValidateExperiment(cfg).ok().
  static sim::Result<std::unique_ptr<Experiment>> Create(const ExperimentConfig& cfg);
  ~Experiment();

  // Runs to completion (or run.max_time). With `progress`, prints a
  // progress line on stderr every second of wall time.
  RunReport Run(bool progress);

  const sim::StatsRegistry& stats() const { return stats_; }
  // The human summary of the finished run.
  std::string Summary() const;
  // A workload that stopped on bad input (a malformed trace line in fail
  // mode, a request beyond the device with fit: error) reports it here.
  sim::Status status() const;

  class Workload;  // the driver behind workload.kind

 private:
  explicit Experiment(const ExperimentConfig& cfg);
  // Builds the file system and the file workload on top of the device.
  sim::Status CreateFileStack();
  sim::Status MountF2fs();
  struct Stack;
  ExperimentConfig cfg_;
  sim::StatsRegistry stats_;
  std::unique_ptr<Stack> stack_;
};

}  // namespace app
