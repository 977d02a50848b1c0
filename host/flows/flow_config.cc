#include "host/flows/flow_config.h"

#include "host/workload_kind.h"

namespace host {

void FlowConfig::Describe(sim::Schema<FlowConfig>& s) {
  s.Choice("kind", &FlowConfig::kind, "fio", WorkloadKindNames(),
           "The flow's workload, configured in the flow's section <kind> (e.g. workload.flows.<name>.fio.rw): a "
           "block workload on queues of its own, or a file workload on the file system (fs.kind) in directories "
           "of its own; beside a file system a block flow is fio with its range past fs.volume");
  s.Param("start", &FlowConfig::start, "0s", "Simulated time after the run's start at which the flow starts");
  s.Param("after", &FlowConfig::after, "[]",
          "Flows that must have finished before this one starts (fio's stonewall and wait_for): it starts at the "
          "later of its start and their last end");
  s.Param("queue", &FlowConfig::queue, "-1",
          "First NVMe submission queue of the flow; -1 = the lowest queues no other flow uses (flows taken in name "
          "order)")
      .Range(-1, 65534);
  s.Param("queues", &FlowConfig::queues, "1",
          "Submission queues of the flow (job or slot i submits on queue + i % queues)")
      .Range(1, 65535);
  s.Param("queue_depth", &FlowConfig::queue_depth, "0",
          "Commands outstanding at once on each of the flow's queues; 0 = device.ssd.queue_depth")
      .Range(0, 65536);
  s.Choice("priority", &FlowConfig::priority, "medium", {"urgent", "high", "medium", "low"},
           "Priority class of the flow's queues (NVMe QPRIO); used by device.ssd.arbitration.policy wrr");
  s.Implementations(&FlowConfig::kinds, WorkloadKindSections());
}

}  // namespace host
