// Workload kinds: the registry of what drives the stack (workload.kind).
//
// A workload registers a WorkloadKind from its own folder with
// sim::Registrar (sim/registry.h); the experiment assembly builds whatever
// workload.kind names, so a new workload needs no edit outside its files.
// Its parameters are its own section, workload.<kind>.*.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "sim/config.h"
#include "ssd/device_layout.h"
#include "sim/cpu.h"
#include "sim/event_queue.h"
#include "sim/registry.h"
#include "sim/stats.h"
#include "sim/status.h"
#include "sim/time.h"

namespace fs {
class FileSystem;
}
namespace ssd {
class BlockDevice;
}  // namespace ssd

namespace host {

// What a workload is built on: block workloads use `device`, file
// workloads use `fs`.
struct WorkloadEnv {
  sim::EventQueue* events = nullptr;
  ssd::BlockDevice* device = nullptr;
  fs::FileSystem* fs = nullptr;
  sim::StatGroup stats{nullptr, ""};  // e.g. registry.Root().Group("workload")
  uint64_t seed = 1;                  // run seed
  uint32_t device_queues = 1;         // submission queues the workload spreads its requests over
  uint32_t first_queue = 0;           // ... starting at this one (block workloads)
  sim::CpuScheduler* cpu = nullptr;   // the host's CPUs (null: no CPU model)
};

// A built workload, as the experiment runs it.
class WorkloadDriver {
 public:
  virtual ~WorkloadDriver() = default;
  virtual void Start() = 0;
  // `fn` runs once, when the workload has done all it will do (finished()
  // turns true). Call before Start().
  virtual void SetDoneCallback(std::function<void()> fn) = 0;
  // Host I/Os (or operations) completed so far and planned in all (0 =
  // unknown), for the progress line and the wall-clock report.
  virtual uint64_t completed() const = 0;
  virtual uint64_t planned() const = 0;
  // A workload that stopped on bad input reports it here.
  virtual sim::Status status() const { return sim::Status::Ok(); }
  // Whether the workload has done all it will do. A run whose events run
  // out while this is false stopped because every simulated thread waits
  // for something that will never come (a deadlock in the model).
  virtual bool finished() const = 0;
  // Lines for the run summary, from the registered statistics.
  virtual std::string Summary(const sim::StatsRegistry& stats) const = 0;
};

struct WorkloadKind {
  const char* name;
  const char* description;
  bool needs_fs;  // a file workload (needs fs.kind), else a block workload
  sim::ImplSection config;  // workload.<name>.*
  // Keys of the section naming files, resolved against the directory of the
  // config file that set them (e.g. {"path"} for a trace).
  std::vector<std::string> file_keys;
  // Cross-key checks before a run: `capacity` and `sector_size` of the
  // device (block workloads). Errors name full keys ("workload.fio.bs: ...").
  sim::Status (*validate)(const sim::ImplConfigs& sections, uint64_t capacity, uint32_t sector_size);
  // Builds the workload. Errors name full keys.
  sim::Result<std::unique_ptr<WorkloadDriver>> (*make)(const sim::ImplConfigs& sections, const WorkloadEnv& env);
  // Memory the workload's own model takes that its configuration can make
  // large (a filebench fileset's entries); null: none. REQUIRES: validate ok.
  uint64_t (*memory_bytes)(const sim::ImplConfigs& sections) = nullptr;
  // What `check` should warn about that is not an error (a trace whose
  // times look misread or coarse), one sentence each; null: nothing.
  // REQUIRES: validate ok.
  std::vector<std::string> (*warnings)(const sim::ImplConfigs& sections) = nullptr;
  // The key that makes this configuration use file-system transactions
  // (FileSystem::Tx*, AtomicWrite*), e.g. "workload.txbench.mode"; null
  // (or a null function): none. `check` refuses such a configuration on a
  // file system that offers none. REQUIRES: validate ok.
  const char* (*transactions_key)(const sim::ImplConfigs& sections) = nullptr;
  // A file workload's own part of the namespace: the directories its files
  // and directories live under (e.g. {"/fio"}), so that several file
  // workloads can share one file system as flows (workload.flows) without
  // meeting; `key` names the key that moves them ("dir"). Null: the
  // workload may touch any path, and runs only alone. REQUIRES: validate ok.
  std::vector<std::string> (*directories)(const sim::ImplConfigs& sections) = nullptr;
  const char* directory_key = nullptr;
  // Checks of a block kind's zone options against the device: `zones` the
  // zone layout of a zoned device (ftl.kind: zns), null for a device that
  // is not zoned; the flash page size and the device sector size in bytes.
  // Null for a kind that cannot drive a zoned device (it is then refused on
  // one; file kinds reach the device through their file system). REQUIRES:
  // validate ok.
  sim::Status (*validate_zoned)(const sim::ImplConfigs& sections, const ssd::ZoneLayout* zones,
                                uint32_t page_size, uint32_t sector_size) = nullptr;
};

inline std::vector<std::string> WorkloadKindNames() { return sim::Registry<WorkloadKind>::Get().Names(); }
inline std::vector<sim::ImplSection> WorkloadKindSections() {
  std::vector<sim::ImplSection> out;
  for (const WorkloadKind* k : sim::Registry<WorkloadKind>::Get().entries()) out.push_back(k->config);
  return out;
}

// Summary lines of a block workload (the "workload.*" stats the fio
// generator and the trace replayer both register).
// `prefix` is the workload's stats group ("workload", or a flow's
// "flows.<name>"), `label` the line's first word.
inline std::string BlockWorkloadSummary(const sim::StatsRegistry& st, std::string_view prefix = "workload",
                                        std::string_view label = "workload") {
  std::string out = fmt::format("{:<10} {} I/Os in {} simulated: {} IOPS, {}\n", label,
                                static_cast<uint64_t>(st.Value(fmt::format("{}.ios_total", prefix))),
                                sim::Sec(st.Value(fmt::format("{}.measured_time", prefix))).ToString(),
                                sim::HumanNumber(st.Value(fmt::format("{}.iops", prefix)), ""),
                                sim::HumanNumber(st.Value(fmt::format("{}.bw", prefix)), "B/s"));
  for (const char* op : {"read", "write", "trim", "flush"}) {
    const sim::Histogram* h = st.FindHistogram(fmt::format("{}.{}.lat", prefix, op));
    if (h == nullptr || h->count() == 0) continue;
    out += fmt::format("  {:<9} n={} {}\n", op, h->count(), sim::LatencySummary(*h));
  }
  return out;
}

}  // namespace host
