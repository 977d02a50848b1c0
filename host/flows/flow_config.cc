#include "host/flows/flow_config.h"

#include "host/workload_kind.h"

namespace host {

void FlowConfig::Describe(sim::Schema<FlowConfig>& s) {
  s.Choice("kind", &FlowConfig::kind, "fio", WorkloadKindNames(),
           "The flow's workload, a block workload configured in the flow's section <kind> (e.g. "
           "workload.flows.<name>.fio.rw)");
  s.Param("start", &FlowConfig::start, "0s", "Simulated time after the run's start at which the flow starts");
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
