// Multi-flow runs: several block workloads (flows) sharing the device,
// each on its own NVMe submission queues (host/flows/flow_config.h).
//
// The flows of a run are workload.flows.<name> (ordered by name) or, with
// workload.kind fio and workload.fio.jobfile set, the jobs of that fio job
// file (in file order, see host/workload/fio_jobfile.h). A run with flows
// builds a host::FlowsDriver in place of the single workload.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "app/experiment.h"
#include "host/flows/flow_config.h"
#include "host/flows/flows_driver.h"
#include "host/workload_kind.h"
#include "sim/status.h"

namespace ssd {
class BlockDevice;
}

namespace app {

struct NamedFlow {
  std::string name;
  std::string key;  // its key path for messages: "workload.flows.<name>", or "<jobfile>:<line>: job [<name>]"
  bool from_jobfile = false;
  host::FlowConfig cfg;
  uint32_t first_queue = 0;  // resolved (cfg.queue, or assigned)
  std::string jobfile_section;  // a job file's job: its section name
};

// The run's flows with their queues assigned; empty for a single-workload
// run. Errors: a job file that cannot be read or honoured.
sim::Result<std::vector<NamedFlow>> FlowsOf(const ExperimentConfig& cfg);
bool HasFlows(const ExperimentConfig& cfg);

// Checks the flows against the device: block kinds only, no file system,
// queues inside device.ssd.queues and not shared between flows, depths
// within device.ssd.queue_depth, each workload's own checks (messages name
// the flow's keys).
sim::Status ValidateFlows(const ExperimentConfig& cfg, uint64_t capacity, uint32_t sector_size);
uint64_t FlowsMemory(const ExperimentConfig& cfg);
// A fio workload (kind `kind`, its sections) that writes with zonemode none
// on a zoned device: the warning `check` gives (its writes not at a write
// pointer will fail); "" otherwise.
std::string ZonedFioWarning(const ExperimentConfig& cfg, const std::string& kind, const sim::ImplConfigs& sections);

// Block workload `kind`'s zone options checked against the device
// (WorkloadKind::validate_zoned): on a zoned device (ftl.kind: zns) against
// its zone layout, a kind without the check refused; on another device
// zone options that need one are refused. Ok for file workloads. Errors
// name workload.<kind>.* keys.
sim::Status CheckZonedWorkload(const ExperimentConfig& cfg, const host::WorkloadKind& kind,
                               const sim::ImplConfigs& sections);
std::vector<std::string> FlowWarnings(const ExperimentConfig& cfg);

// Sets up each flow's queues on `device` (priority, depth, per-flow
// figures) and builds its workload with stats under "flows.<name>".
// REQUIRES: ValidateFlows ok.
sim::Result<std::unique_ptr<host::FlowsDriver>> BuildFlows(const ExperimentConfig& cfg, const host::WorkloadEnv& base,
                                                           ssd::BlockDevice* device, sim::StatsRegistry* stats);

// Runs each flow alone on a fresh stack of the same configuration and seed
// and returns its mean end-to-end latency (ns), in flow order. A signal in
// `*interrupt` stops early (the result is then empty).
std::vector<double> AloneLatencies(const ExperimentConfig& cfg, const std::atomic<int>* interrupt);

}  // namespace app
