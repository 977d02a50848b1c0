// An experiment: the root configuration and the assembled simulation stack.
//
// ExperimentConfig is the root of the YAML tree:
//   name, seed                 identity of the run
//   run.*                      run bounds, statistics interval
//   host.cpu.*                 the host's CPU cores the simulated threads share
//   device.{geometry,flash,ssd}.*  the simulated SSD
//   ftl.*                      the flash translation layer (incl. precondition)
//   fs.*                       the file system for file workloads (kind + its section)
//   workload.*                 what drives the stack (kind + its section)
//
// Experiment builds the stack bottom-up (NAND array, FTL, host interface,
// file system, workload) through the registries of FTL kinds, file systems
// and workload kinds, with dependencies passed through constructors; it has
// no per-kind code. It runs the stack on one EventQueue and exposes the
// stats registry for the results writer.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "ftl/ftl_config.h"
#include "host/flows/flow_config.h"
#include "sim/config.h"
#include "sim/cpu.h"
#include "sim/stats.h"
#include "sim/status.h"
#include "sim/time.h"
#include "ssd/device_config.h"

namespace app {

// run.power_cut: cut the power during a file-system experiment, mount
// again (recovery) and compare the recovered volume with what the file
// system acknowledged as durable (fs/durability_ledger.h).
struct PowerCutSection {
  std::string when;          // none | time | ops | random
  sim::SimTime time;         // when: time — simulated time from the run's start
  uint64_t ops = 0;          // when: ops — file-system calls completed
  sim::SimTime min_time;     // when: random — the window the cut time is drawn from
  sim::SimTime max_time;
  uint32_t cuts = 1;         // runs cut (each a fresh run of the same config)
  std::string device_keeps;  // random | none | completed: the volatile writes the device keeps
  bool enabled() const { return when != "none"; }
  static void Describe(sim::Schema<PowerCutSection>& s);
};

struct RunSection {
  sim::SimTime max_time;        // 0 = until the workload finishes
  sim::SimTime stats_interval;  // time-series sampling period
  sim::Bytes max_memory;        // refuse a larger estimate; 0 = the machine's memory
  std::string rate_window;      // "measured" (the workload's measured phase) or "run"
  PowerCutSection power_cut;
  static void Describe(sim::Schema<RunSection>& s);
};

// The file system between file workloads and the device: fs.kind names a
// registered file system (fs/file_system_kind.h), whose section is fs.<kind>.
struct FsSection {
  std::string kind;   // "none" or a registered file system
  sim::Bytes volume;  // formatted size; 0 = the whole device
  sim::ImplConfigs kinds;
  static void Describe(sim::Schema<FsSection>& s);
};

// What drives the stack: workload.kind names a registered workload
// (host/workload_kind.h), whose section is workload.<kind>. Block workloads
// drive the device directly; file workloads need fs.kind. With flows
// (workload.flows.<name>, app/flows.h) several block workloads share the
// device instead and kind is not used.
struct WorkloadSection {
  std::string kind;
  sim::ImplConfigs kinds;
  std::map<std::string, host::FlowConfig> flows;
  bool alone_runs = false;  // also run each flow alone (slowdown, fairness)
  static void Describe(sim::Schema<WorkloadSection>& s);
};

// The host the workload's threads and the file system's kernel threads run
// on: its CPUs (sim/cpu.h). Block workloads do not use it (the device is not
// the host).
struct HostSection {
  sim::CpuConfig cpu;
  static void Describe(sim::Schema<HostSection>& s);
};

struct ExperimentConfig {
  std::string name;
  uint64_t seed = 1;
  RunSection run;
  HostSection host;
  ssd::DeviceConfig device;
  ftl::FtlConfig ftl;
  FsSection fs;
  WorkloadSection workload;
  static void Describe(sim::Schema<ExperimentConfig>& s);
};

// Cross-section validation (device geometry vs FTL, workload vs device
// capacity). Messages start with the full key path ("ftl.op: …").
sim::Status ValidateExperiment(const ExperimentConfig& cfg);
// Estimated memory of the configured stack: the tables that grow with the
// device (the FTL's), with the volume (the file system's) and with the
// workload's configuration (a filebench fileset), which dominate; file
// contents written during the run come on top. Checked against
// run.max_memory by ValidateExperiment.
struct MemoryEstimate {
  uint64_t ftl = 0;
  uint64_t fs = 0;
  uint64_t workload = 0;
  uint64_t total() const { return ftl + fs + workload; }
};
// REQUIRES: the FTL, file-system and workload sections validate.
MemoryEstimate EstimateMemory(const ExperimentConfig& cfg);
// What `check` warns about in a valid config (the workload kind's
// warnings, e.g. a trace whose times look misread). REQUIRES: validated.
std::vector<std::string> CheckWarnings(const ExperimentConfig& cfg);

struct RunReport {
  double wall_seconds = 0;
  uint64_t events = 0;
  sim::SimTime sim_time;
  uint64_t host_ios = 0;
  int interrupted_by = 0;  // the signal that cut the run short; 0 = it ran to its end
  // The events ran out before the workload finished: every simulated
  // thread was waiting for something that never came (a deadlock in the
  // model). The results cover the run up to then.
  bool stalled = false;
};

class Experiment {
 public:
  // Builds the stack. REQUIRES: ValidateExperiment(cfg).ok().
  static sim::Result<std::unique_ptr<Experiment>> Create(const ExperimentConfig& cfg);
  ~Experiment();

  // How a run shows that it is alive, on stderr.
  struct Progress {
    enum class Mode {
      kOff,
      kTerminal,  // one line rewritten every wall second, after the first three
      kLog,       // a full line every `every_seconds` of wall time (batch jobs)
    };
    Mode mode = Mode::kOff;
    double every_seconds = 60;
    std::string label;  // names the run in kLog lines
  };
  // Runs to completion (or run.max_time), showing `progress`. A non-zero
  // `*interrupt` (app/interrupt.h) ends the run early: the statistics then
  // cover the run so far and the report names the signal.
  RunReport Run(const Progress& progress, const std::atomic<int>* interrupt = nullptr);
  RunReport Run(bool terminal_progress) {
    Progress p;
    if (terminal_progress) p.mode = Progress::Mode::kTerminal;
    return Run(p);
  }

  const sim::StatsRegistry& stats() const { return stats_; }
  // The human summary of the finished run. A run whose device refused
  // requests says so on its first line.
  std::string Summary() const;
  // ", over the measured phase 1s..5s (the run ended at 20s)": the window
  // of the rates, when it is not the whole run; empty otherwise.
  std::string RateWindow() const;
  // Requests the device refused (ssd.errors): work the figures do not
  // count. A run with any is a failed run (the CLI exits with code 3).
  uint64_t FailedRequests() const;
  // A workload that stopped on bad input (a malformed trace line in fail
  // mode, a request beyond the device with fit: error) reports it here.
  sim::Status status() const;

  // run.power_cut's figures, summed over the cuts (power_cut.* in
  // stats.json).
  struct PowerCutFigures {
    uint64_t cuts = 0;
    double cut_time = 0;           // s, summed
    uint64_t ops_before_cut = 0;
    uint64_t mount_failures = 0;
    uint64_t check_failures = 0;
    uint64_t cuts_violating = 0;   // cuts that lost acknowledged state
    // Acknowledged durable at the cut.
    uint64_t ack_files = 0, ack_bytes = 0, ack_names = 0, ack_fsyncs = 0, ack_syncs = 0, ack_commits = 0;
    // Violations.
    uint64_t files_missing = 0, files_short = 0, blocks_wrong = 0, names_wrong = 0, bytes_lost_acknowledged = 0;
    // Losses the contract allows.
    uint64_t files_at_cut = 0, bytes_at_cut = 0, bytes_lost = 0, names_at_cut = 0, names_lost = 0, names_back = 0;
    uint64_t files_unverifiable = 0, blocks_compared = 0;
    // The mount after the cut, on a fixed-latency device.
    double recovery_time = 0, recovery_time_max = 0;  // s
    uint64_t recovery_reads = 0, recovery_writes = 0;  // requests
    std::string first_failure;  // the first violation, mount or checker failure
    uint64_t violations() const { return files_missing + files_short + blocks_wrong + names_wrong; }
    void Add(const PowerCutFigures& o);
  };
  const PowerCutFigures& power_cut() const { return pc_; }

  // Keys naming files (trace paths), as full key paths: they are resolved
  // against the directory of the config file that set them.
  static std::vector<std::string> FileKeys();
  // Whether `key` names a file: one of FileKeys(), or the same key of a
  // flow ("workload.flows.<name>.trace.path").
  static bool IsFileKey(std::string_view key);

 private:
  explicit Experiment(const ExperimentConfig& cfg);
  // The run stopped at the cut: cuts the power, mounts on a fixed-latency
  // device, runs the checker and the ledger's comparison; adds to pc_.
  void CutAndRecover();
  void RegisterPowerCutStats(const sim::StatGroup& g);
  std::string PowerCutSummary() const;
  struct Stack;
  ExperimentConfig cfg_;
  sim::StatsRegistry stats_;
  std::unique_ptr<Stack> stack_;
  PowerCutFigures pc_;
  uint32_t cut_index_ = 0;  // which of run.power_cut.cuts this run is
};

}  // namespace app
