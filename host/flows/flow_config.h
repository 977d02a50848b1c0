// FlowConfig: one flow of a multi-flow run, the section
// workload.flows.<name> of an experiment.
//
// A flow is a block workload (any registered kind that drives the device
// directly: fio, trace) with its own start time, its own range of NVMe
// submission queues, their depth and their priority class:
//
//   workload:
//     flows:
//       reader:                 # any name: letters, digits, '_', '-'
//         kind: fio
//         priority: urgent
//         fio: {rw: randread, iodepth: 4, runtime: 50ms}
//       writer:
//         kind: fio
//         start: 5ms
//         queues: 2
//         priority: low
//         fio: {rw: randwrite, iodepth: 32, numjobs: 2, runtime: 50ms}
//
// Flows are ordered by name (the order of stats and of automatic queue
// assignment). The workload's statistics are registered under
// "flows.<name>." (instead of "workload."), its random streams are its own
// (named after that prefix), and the device keeps per-flow figures under
// "ssd.flow.<name>.".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/config.h"
#include "sim/time.h"

namespace host {

struct FlowConfig {
  std::string kind;        // a registered workload kind (block, or file beside fs.kind); its section is <kind>
  sim::SimTime start;      // the flow starts this long after the run starts
  std::vector<std::string> after;  // ... and not before these flows finished (fio's stonewall / wait_for)
  int32_t queue;           // first submission queue; -1 = the lowest free ones (flows in name order)
  uint32_t queues;         // submission queues, queue .. queue + queues - 1
  uint32_t queue_depth;    // depth of each of them; 0 = device.ssd.queue_depth
  std::string priority;    // urgent | high | medium | low (NVMe QPRIO, used by wrr arbitration)
  sim::ImplConfigs kinds;  // the workload kinds' sections

  static void Describe(sim::Schema<FlowConfig>& s);
};

}  // namespace host
